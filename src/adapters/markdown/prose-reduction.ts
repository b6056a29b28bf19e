/**
 * Shrinks a Markdown source before parsing: a line of plain prose, which can hold no link, no anchor and
 * nothing that changes how its neighbours parse, is replaced by a one-letter stand-in, and a stand-in
 * that repeats the line before it is dropped (reduceMarkdown keeps where each remaining line came from).
 * The block structure stays the same, and everything a link check reads (links, definitions, headings,
 * HTML, code spans and brackets that may span lines) is kept verbatim, so the parse gives the same links
 * and anchors at the same lines and columns for a fraction of the work: in real documentation most
 * lines are prose and code that the tokenizers would otherwise walk.
 *
 * A line is replaced only when all of these hold (anything else is kept as is):
 * - it is not part of a paragraph that ends in a setext underline;
 * - outside its code spans it has none of `[ ] < > & \ @ =` nor `://` or `www.` (links, HTML,
 *   references, escapes, autolinks); inside a code span these are literal text;
 * - it does not start (after indentation) with `#`, `>`, `|`, three backticks or tildes, or a character
 *   that could open a block other than a list item, whose marker is kept (an empty item is kept whole);
 * - it does not start inside, or leave open, a code span or an HTML tag begun on an earlier line, nor
 *   start inside an open `[` (a reference label may span lines), and does not follow a line ending in
 *   `(` or `:` (a link destination may be on the next line).
 *
 * The lines of a fenced code block opened at the start of a line (not inside an HTML block) are replaced
 * too, whatever they hold, up to its closing fence: code yields no link and no anchor, and in real
 * documentation (a book's listings) it is the other half of the bytes. A fence indented or inside a
 * container (a list item, a quote) is left alone: a stand-in there could end the container.
 */

const UNSAFE_CHARACTERS = /[[\]<>&\\@=]|:\/\/|www\./i;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*\r?$/;
const LIST_MARKER = /^[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]+/;
/** A list marker with nothing after it (an empty item: its stand-in could not keep it one). */
const EMPTY_ITEM = /^[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]*\r?$/;
const LEADING_SPACE = /^[ \t]*/;
/**
 * A start that may open a block (heading, quote, fence, HTML, table). One or two backticks or tildes
 * open no fence, and `*`, `_`, `-`, `+` or `=` followed by a word no list item nor thematic break: a
 * line that starts with a code span or emphasis is prose (setext underlines are looked for in groups).
 */
const BLOCK_START = /^[ \t]*(?:[#>|<]|`{3}|~{3})/;
/** A thematic break (`***`, `- - -`, `___`): a line of three or more of one of `*-_` and spaces. */
const THEMATIC_BREAK = /^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*\r?$/;

/** Code-span, tag and bracket state carried from line to line within one paragraph-like group. */
interface InlineState {
  /** Length of the backtick run that opened an unclosed code span, 0 when none is open. */
  codeRun: number;
  inTag: boolean;
  /** `[` not yet closed by `]` (outside code spans): a label may be spanning the lines that follow. */
  brackets: number;
}

/** The characters scanLine acts on: backticks and, outside code spans, `\`, `<`, `>`, `[` and `]`. */
const STATE_CHARACTERS = /[`\\<>[\]]/g;

/**
 * Advances the state over one line (escapes outside code spans are skipped, as CommonMark does) and
 * returns the line's text outside code spans (each code span as one space): what can make a link.
 * Inside a code span `[`, `<`, `&` and the rest are literal text, and a span wins over any construct
 * that starts after it, so a line whose only brackets are in code spans it opens and closes is prose.
 */
function scanLine(line: string, state: InlineState): string {
  let outside = "";
  let from = state.codeRun === 0 ? 0 : -1;
  // From one character that can change the state to the next (a regular expression finds them far faster
  // than a loop over every character, which a fresh process runs unoptimized).
  STATE_CHARACTERS.lastIndex = 0;
  for (let m = STATE_CHARACTERS.exec(line); m !== null; m = STATE_CHARACTERS.exec(line)) {
    const i = m.index;
    const c = line.charCodeAt(i);
    if (c === 96 /* ` */) {
      let n = 1;
      while (line.charCodeAt(i + n) === 96) n++;
      if (state.codeRun === 0) {
        state.codeRun = n;
        outside += `${line.slice(from, i)} `;
        from = -1;
      } else if (state.codeRun === n) {
        state.codeRun = 0;
        from = i + n;
      }
      STATE_CHARACTERS.lastIndex = i + n;
    } else if (state.codeRun === 0) {
      if (c === 92 /* \ */) STATE_CHARACTERS.lastIndex = i + 2;
      else if (c === 60 /* < */) state.inTag = true;
      else if (c === 62 /* > */) state.inTag = false;
      else if (c === 91 /* [ */) state.brackets++;
      else if (c === 93 /* ] */ && state.brackets > 0) state.brackets--;
    }
  }
  return from === -1 ? outside : outside + line.slice(from);
}

/** Whether `line`, whose text outside code spans is `outside`, may be replaced by its stand-in. */
function replaceable(line: string, outside: string): boolean {
  if (UNSAFE_CHARACTERS.test(outside) || EMPTY_ITEM.test(line) || THEMATIC_BREAK.test(line)) return false;
  return LIST_MARKER.test(line) || !BLOCK_START.test(line);
}

const FENCE = /^(`{3,}|~{3,})([^\n]*)$/;
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

/**
 * Replaces the content lines of fenced code blocks that open at column 0, outside HTML blocks, blank
 * ones included, each by `a` (marked in `merge`: the lines of one block then become one).
 */
function reduceFences(lines: string[], merge: Uint8Array, fences: Fence[]): boolean {
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
    const closing = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*\\r?$`);
    let j = i + 1;
    for (; j < lines.length && !closing.test(lines[j] as string); j++) {
      // Every line up to the closing fence is code, whatever its indentation or content.
      lines[j] = "a";
      merge[j] = 1;
      changed = true;
    }
    fences.push({ open: i, close: j < lines.length ? j : undefined });
    i = j; // an unclosed fence runs to the end of the document
  }
  return changed;
}

/** A fenced code block whose content was replaced: the 0-based lines of its fences (no close: unclosed). */
interface Fence {
  open: number;
  close: number | undefined;
}

/**
 * A Markdown source made smaller for parsing: `text` is what the parser reads, and `lines[k]` is the
 * 1-based line of the source that line k + 1 of `text` stands for (undefined: the same lines).
 * `fences` are the fenced code blocks set aside, by their 1-based lines in `text` (`close` undefined:
 * unclosed, to the end). A fence is found by its lines alone, without the containers a parser tracks, so
 * the parse of `text` must confirm each (fencesConfirmed) before its result is used.
 */
export interface ReducedSource {
  text: string;
  /** The source line of each line of `text` (1-based); undefined when every line was kept. */
  lines: number[] | undefined;
  fences: { open: number; close: number | undefined }[];
}

/**
 * Whether the parse of a reduced text found each of its fenced code blocks where the reduction took one
 * to be: `parsed` maps the 1-based line where each fenced code block of the parse opens (at column 1) to
 * the line where it ends. The first fence misjudged (a closing fence of an indented block read as an
 * opening one, say) is parsed as something else, since everything before it was reduced right.
 */
export function fencesConfirmed(reduced: ReducedSource, parsed: ReadonlyMap<number, number>): boolean {
  for (const f of reduced.fences) {
    const end = parsed.get(f.open);
    if (end === undefined || (f.close !== undefined && end !== f.close)) return false;
  }
  return true;
}

/**
 * Replaces plain-prose lines and fenced code by stand-ins, then drops each stand-in that repeats the
 * one on the line before (the same indentation, no list marker): such a line continues whatever block
 * the line before is in (a paragraph, code, an HTML block), adds no text that matters, and cannot end
 * a container, so the block structure, and every link, anchor and column, stays the same on fewer lines.
 */
export function reduceMarkdown(source: string): ReducedSource {
  const reduced = standIns(source);
  if (!reduced) return { text: source, lines: undefined, fences: [] };
  const { lines, merge } = reduced;
  const kept: string[] = [];
  const origin: number[] = [];
  const keptMerge: boolean[] = [];
  // The 1-based line in `kept` of each source line kept (fence lines are always kept).
  const at = new Int32Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const n = kept.length;
    if (merge[i] === 1) {
      // The same stand-in again: it continues whatever the one before is in.
      if (n >= 1 && keptMerge[n - 1] && kept[n - 1] === line) continue;
      // A blank line then a stand-in, after the same pair: the pair adds nothing (a blank line ends the
      // same blocks, the stand-in opens the same block in the same containers), so both go.
      if (
        n >= 3 &&
        isBlank(kept[n - 1]) &&
        keptMerge[n - 2] &&
        kept[n - 2] === line &&
        isBlank(kept[n - 3])
      ) {
        kept.pop();
        origin.pop();
        keptMerge.pop();
        continue;
      }
    }
    kept.push(line);
    origin.push(i + 1);
    keptMerge.push(merge[i] === 1);
  }
  const [text, from] = withoutMarginParagraphs(kept, keptMerge, origin);
  for (let k = 0; k < from.length; k++) at[(from[k] as number) - 1] = k + 1;
  return {
    text: text.join("\n"),
    lines: text.length === lines.length ? undefined : from,
    fences: reduced.fences.map((f) => ({
      open: at[f.open] as number,
      close: f.close === undefined ? undefined : at[f.close],
    })),
  };
}

const isBlank = (line: string | undefined): boolean => line !== undefined && line.trim() === "";

/** A stand-in at the margin: a paragraph (`a`) or a list item holding one (`* a`, `1. a`). */
const MARGIN_STAND_IN = /^(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?a$/;

/**
 * Drops each stand-in at the margin (a paragraph `a`, or a list item `* a`, no indentation) between blank
 * lines, with the blank line before it, when the next line that is not blank starts at the margin too (or
 * there is none). After a blank line, a line at the margin closes every container it is not a new item
 * of (a list item's content, a quote, a footnote) and is no lazy continuation; the line at the margin
 * after it closes them just the same, so from there on the parse is the same without it but for which
 * list an item is in, and it holds no link and no anchor. (Followed by an indented line it stays: that
 * line could then continue a list item and hold a link that, after it, was code.) In API references
 * (electron's) these are a fifth of what is parsed.
 */
function withoutMarginParagraphs(
  kept: readonly string[],
  merge: readonly boolean[],
  origin: readonly number[],
): [string[], number[]] {
  // Whether the first line after k that is not blank is at the margin (true when there is none).
  const marginAfter = new Uint8Array(kept.length);
  let next = 1;
  for (let k = kept.length - 1; k >= 0; k--) {
    marginAfter[k] = next;
    const line = kept[k] as string;
    if (!isBlank(line)) next = line.charCodeAt(0) === 32 || line.charCodeAt(0) === 9 ? 0 : 1;
  }
  const text: string[] = [];
  const from: number[] = [];
  for (let k = 0; k < kept.length; k++) {
    const line = kept[k] as string;
    if (
      MARGIN_STAND_IN.test(line) &&
      merge[k] === true &&
      isBlank(text[text.length - 1]) &&
      (k + 1 === kept.length || isBlank(kept[k + 1])) &&
      marginAfter[k] === 1
    ) {
      text.pop();
      from.pop();
      continue;
    }
    text.push(line);
    from.push(origin[k] as number);
  }
  return [text, from];
}

/** The source with its plain-prose lines and fenced code replaced, line for line (no line dropped). */
export function reduceProse(source: string): string {
  return standIns(source)?.lines.join("\n") ?? source;
}

/** The source's lines with stand-ins, and which of them may merge; undefined when nothing is replaced. */
function standIns(source: string): { lines: string[]; merge: Uint8Array; fences: Fence[] } | undefined {
  const lines = source.split("\n");
  const merge = new Uint8Array(lines.length);
  const fences: Fence[] = [];
  let changed = reduceFences(lines, merge, fences);
  let groupStart = 0;
  while (groupStart < lines.length) {
    // A group: consecutive non-blank lines (a paragraph cannot span a blank line, nor can a code span).
    let end = groupStart;
    while (end < lines.length && (lines[end] as string).trim() !== "") end++;
    if (end > groupStart) changed = reduceGroup(lines, groupStart, end, merge) || changed;
    groupStart = end + 1;
  }
  return changed ? { lines, merge, fences } : undefined;
}

function reduceGroup(lines: string[], start: number, end: number, merge: Uint8Array): boolean {
  for (let i = start; i < end; i++) if (SETEXT_UNDERLINE.test(lines[i] as string)) return false;
  const state: InlineState = { codeRun: 0, inTag: false, brackets: 0 };
  let changed = false;
  let keepNext = false;
  for (let i = start; i < end; i++) {
    const line = lines[i] as string;
    const openBefore = state.codeRun !== 0 || state.inTag || state.brackets > 0;
    const outside = scanLine(line, state);
    const openAfter = state.codeRun !== 0 || state.inTag;
    // A byte order mark hides what the first line starts with: that line is kept.
    const bom = line.charCodeAt(0) === 0xfeff;
    if (!keepNext && !bom && !openBefore && !openAfter && replaceable(line, outside)) {
      const marker = LIST_MARKER.exec(line);
      lines[i] = marker ? `${marker[0]}a` : `${LEADING_SPACE.exec(line)?.[0] ?? ""}a`;
      merge[i] = 1;
      changed = true;
    }
    const last = line.trimEnd().slice(-1);
    keepNext = last === "(" || last === ":";
  }
  return changed;
}
