/**
 * Shrinks a Markdown source before parsing: a long line of plain prose, which can hold no link, no
 * anchor and nothing that changes how its neighbours parse, is replaced by a one-letter stand-in. Lines,
 * line numbers and the block structure stay the same, and everything a link check reads (links,
 * definitions, headings, HTML, code spans and brackets that may span lines) is kept verbatim, so the
 * parse gives the same links and anchors at the same lines and columns for a fraction of the work:
 * in real documentation most bytes are prose that the inline tokenizer would otherwise walk.
 *
 * A line is replaced only when all of these hold (anything else is kept as is):
 * - it is longer than MIN_LENGTH and not part of a paragraph that ends in a setext underline;
 * - it has none of `[ ] < > & \ @ =` nor `://` or `www.` (links, HTML, references, escapes, autolinks);
 * - it does not start (after indentation) with `#`, `>`, `|` or a character that could open a block
 *   other than a list item, whose marker is kept;
 * - it does not start inside, or leave open, a code span or an HTML tag begun on an earlier line, and
 *   does not follow a line ending in `(` or `:` (a link destination may be on the next line).
 *
 * The lines of a fenced code block opened at the start of a line (not inside an HTML block) are replaced
 * too, whatever they hold, up to its closing fence: code yields no link and no anchor, and in real
 * documentation (a book's listings) it is the other half of the bytes. A fence indented or inside a
 * container (a list item, a quote) is left alone: a stand-in there could end the container.
 */

const MIN_LENGTH = 24;
const UNSAFE_CHARACTERS = /[[\]<>&\\@=]|:\/\/|www\./i;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const LIST_MARKER = /^[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]+/;
const LEADING_SPACE = /^[ \t]*/;
/** A first character that may open a block (heading, quote, fence, HTML, table, thematic break, ...). */
const BLOCK_START = /^[ \t]*[#>|<`~=_*+-]/;

/** Code-span and tag state carried from line to line within one paragraph-like group. */
interface InlineState {
  /** Length of the backtick run that opened an unclosed code span, 0 when none is open. */
  codeRun: number;
  inTag: boolean;
}

/** Advances the state over one line (escapes outside code spans are skipped, as CommonMark does). */
function scanLine(line: string, state: InlineState): void {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 96 /* ` */) {
      let n = 1;
      while (line.charCodeAt(i + n) === 96) n++;
      if (state.codeRun === 0) state.codeRun = n;
      else if (state.codeRun === n) state.codeRun = 0;
      i += n - 1;
    } else if (state.codeRun === 0) {
      if (c === 92 /* \ */) i++;
      else if (c === 60 /* < */) state.inTag = true;
      else if (c === 62 /* > */) state.inTag = false;
    }
  }
}

/** The stand-in for a replaceable line: its indentation and list marker, then one letter. */
function standIn(line: string): string {
  const marker = LIST_MARKER.exec(line);
  if (marker) return `${marker[0]}a`;
  return `${LEADING_SPACE.exec(line)?.[0] ?? ""}a`;
}

function replaceable(line: string): boolean {
  if (line.length <= MIN_LENGTH || UNSAFE_CHARACTERS.test(line)) return false;
  return LIST_MARKER.test(line) || !BLOCK_START.test(line);
}

const FENCE = /^(`{3,}|~{3,})(.*)$/;
/** HTML block starts of CommonMark 4.6, types 1 to 5, and what ends each (on the same line or later). */
const HTML_ENDS: [RegExp, RegExp][] = [
  [/^ {0,3}<(?:script|pre|style|textarea)(?:\s|>|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
  [/^ {0,3}<![A-Za-z]/, />/],
];
/** Type 6: a block-level tag name; the block ends at a blank line. */
const HTML_TYPE_6 =
  /^ {0,3}<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:\s|\/?>|$)/i;
/** Type 7: one complete open or closing tag alone on its line (it cannot interrupt a paragraph). */
const HTML_TYPE_7 =
  /^ {0,3}(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^"'=<>`\s]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>)\s*$/;

/** What ends the HTML block `line` starts ("blank": a blank line), or undefined when it starts none. */
function htmlBlockEnd(line: string, afterBlank: boolean): RegExp | "blank" | undefined {
  if (!/^ {0,3}</.test(line)) return undefined;
  for (const [start, end] of HTML_ENDS)
    if (start.test(line)) return end.test(line.replace(start, "")) ? undefined : end;
  if (HTML_TYPE_6.test(line) || (afterBlank && HTML_TYPE_7.test(line))) return "blank";
  return undefined;
}

/** Replaces the content lines of fenced code blocks that open at column 0, outside HTML blocks. */
function reduceFences(lines: string[]): boolean {
  let changed = false;
  let htmlEnd: RegExp | "blank" | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (htmlEnd) {
      if (htmlEnd === "blank" ? line.trim() === "" : htmlEnd.test(line)) htmlEnd = undefined;
      continue;
    }
    const afterBlank = i === 0 || (lines[i - 1] as string).trim() === "";
    htmlEnd = htmlBlockEnd(line, afterBlank);
    if (htmlEnd || /^ {0,3}</.test(line)) continue;
    const m = FENCE.exec(line);
    if (!m) continue;
    const fence = m[1] as string;
    // A backtick fence's info string cannot hold a backtick (then it is a code span, not a fence).
    if (fence[0] === "`" && (m[2] as string).includes("`")) continue;
    const closing = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*$`);
    let j = i + 1;
    for (; j < lines.length && !closing.test(lines[j] as string); j++) {
      const code = lines[j] as string;
      // Blank lines stay (they are blank either way); the rest keep their indentation.
      if (code.trim() !== "" && code.length > 1) {
        lines[j] = `${LEADING_SPACE.exec(code)?.[0] ?? ""}a`;
        changed = true;
      }
    }
    i = j; // an unclosed fence runs to the end of the document
  }
  return changed;
}

/** Returns the source with its plain-prose lines replaced (the same string when nothing is replaced). */
export function reduceProse(source: string): string {
  const lines = source.split("\n");
  let changed = reduceFences(lines);
  let groupStart = 0;
  while (groupStart < lines.length) {
    // A group: consecutive non-blank lines (a paragraph cannot span a blank line, nor can a code span).
    let end = groupStart;
    while (end < lines.length && (lines[end] as string).trim() !== "") end++;
    if (end > groupStart) changed = reduceGroup(lines, groupStart, end) || changed;
    groupStart = end + 1;
  }
  return changed ? lines.join("\n") : source;
}

function reduceGroup(lines: string[], start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (SETEXT_UNDERLINE.test(lines[i] as string)) return false;
  const state: InlineState = { codeRun: 0, inTag: false };
  let changed = false;
  let keepNext = false;
  for (let i = start; i < end; i++) {
    const line = lines[i] as string;
    const openBefore = state.codeRun !== 0 || state.inTag;
    scanLine(line, state);
    const openAfter = state.codeRun !== 0 || state.inTag;
    if (!keepNext && !openBefore && !openAfter && replaceable(line)) {
      lines[i] = standIn(line);
      changed = true;
    }
    const last = line.trimEnd().slice(-1);
    keepNext = last === "(" || last === ":";
  }
  return changed;
}
