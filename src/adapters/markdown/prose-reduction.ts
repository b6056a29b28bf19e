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

/** Returns the source with its plain-prose lines replaced (the same string when nothing is replaced). */
export function reduceProse(source: string): string {
  const lines = source.split("\n");
  let changed = false;
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
