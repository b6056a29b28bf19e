/**
 * Where a Markdown text may be cut into sections that parse the same apart as together: before an ATX
 * heading at the margin (`#` to `######` at column 1). Such a line ends every paragraph, list and quote
 * before it (it is never a lazy continuation, and a line at the margin continues no container), so the
 * parser starts it from the same state as a new document. It is part of a block only inside a fenced code
 * block or an HTML block left open before it: the parse of the section before says so (leavesBlockOpen),
 * and the text is then parsed whole.
 *
 * Why cut at all: micromark keeps every token of a document until its parse ends, and walks them again at
 * each level of nesting. Parsed a section at a time, most of them die young (cheap for the garbage
 * collector) and each walk is shorter.
 */

import type { postprocess } from "micromark";

/** Where a section starts: its offset in the text and its 1-based line. */
export interface SectionStart {
  offset: number;
  line: number;
}

const ATX_HEADING = /^#{1,6}(?:[ \t]|\r?$)/;
/** A fence that may open or close a fenced code block (at most 3 spaces in, as CommonMark allows). */
const FENCE = /^ {0,3}(?:`{3,}|~{3,})/;

/**
 * The starts of the sections of `text`: the first line, then each ATX heading at the margin that ends a
 * section of at least `minLines` lines. A heading inside what looks like a fenced code block or an HTML
 * comment is passed over (the parse would only send the text back whole).
 */
export function sectionStarts(text: string, minLines: number): SectionStart[] {
  const starts: SectionStart[] = [{ offset: 0, line: 1 }];
  let inFence = false;
  let inComment = false;
  let offset = 0;
  for (let line = 1; offset <= text.length; line++) {
    const newline = text.indexOf("\n", offset);
    const end = newline === -1 ? text.length : newline;
    const content = text.slice(offset, end);
    if (inComment) inComment = !content.includes("-->");
    else if (FENCE.test(content)) inFence = !inFence;
    else if (!inFence && content.startsWith("<!--")) inComment = !content.includes("-->", 4);
    else if (!inFence && ATX_HEADING.test(content)) {
      const last = starts[starts.length - 1] as SectionStart;
      if (line - last.line >= minLines) starts.push({ offset, line });
    }
    if (newline === -1) break;
    offset = newline + 1;
  }
  return starts;
}

type ParseEvent = ReturnType<typeof postprocess>[number];

/**
 * Whether the events of the section of `text` from `start` to offset `end` leave a block open that the
 * heading at `end` would continue, so that the cut there is not one: a fenced code block with no closing
 * fence, or an HTML block not followed by a blank line (its end for kinds 6 and 7) other than a closed
 * comment, that reaches the section's last line holding anything but whitespace. (An unclosed fence that
 * ends before that line was closed by its container, as it is in the whole text; an HTML block of the
 * other kinds left open runs to the end of the section, past any blank line.)
 */
export function leavesBlockOpen(
  events: readonly ParseEvent[],
  text: string,
  start: SectionStart,
  end: number,
): boolean {
  const lastLine = lastContentLine(text, start, end);
  let fences = 0;
  // Indexed, not destructured: a fresh process runs this unoptimized, where destructuring is slow.
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as ParseEvent;
    const token = event[1];
    if (event[0] === "enter") {
      if (token.type === "codeFenced") fences = 0;
      else if (token.type === "codeFencedFence") fences++;
    } else if (token.end.line >= lastLine) {
      if (token.type === "codeFenced" && fences < 2) return true;
      if (
        token.type === "htmlFlow" &&
        !closedComment(event[2].sliceSerialize(token)) &&
        !blankLineBetween(text, token.end.offset, end)
      )
        return true;
    }
  }
  return false;
}

/**
 * Whether an HTML block is a comment that ends on its last line (its end condition, `-->`, met there).
 * Other kinds are not told apart.
 */
export function closedComment(html: string): boolean {
  if (!html.trimStart().startsWith("<!--")) return false;
  const lastLineStart = html.lastIndexOf("\n") + 1;
  // On a single line, `-->` after the opening `<!--` (`<!-->` is left to the whole parse).
  return html.indexOf("-->", lastLineStart === 0 ? html.indexOf("<!--") + 4 : lastLineStart) !== -1;
}

/** Whether `text[from, to)`, which holds only whitespace, ends a line and holds a blank one after it. */
function blankLineBetween(text: string, from: number, to: number): boolean {
  const first = text.indexOf("\n", from);
  return (
    first !== -1 && first < to && text.indexOf("\n", first + 1) !== -1 && text.indexOf("\n", first + 1) < to
  );
}

/** The 1-based line of the last character of the section from `start` to offset `end` that is not whitespace. */
function lastContentLine(text: string, start: SectionStart, end: number): number {
  let last = end;
  while (last > start.offset && /\s/.test(text[last - 1] as string)) last--;
  let line = start.line;
  for (let i = text.indexOf("\n", start.offset); i !== -1 && i < last; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
