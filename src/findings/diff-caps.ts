/**
 * Diffs are capped per file and in total, so that computing a dry run over a large tree stays bounded in
 * memory (what a result shows of them is decided by the token budget, findings/diff-budget.ts, which pages
 * through them by file): a file's diff past its share is cut at a line boundary, and once the total is
 * spent the remaining files are left out (not even computed). Both say what was left out, in the diff's text.
 *
 * Computing a diff is bounded too: the line diff (Myers, O(lines x edits)) gives up past a number of
 * edits scaled to the file's length, and the file's diff is then one hunk replacing every line: still a
 * correct patch, just not a minimal one.
 */
import { createTwoFilesPatch } from "diff";
export interface DiffBudget {
  perFileBytes: number;
  totalBytes: number;
}

/**
 * A file's diff may take half the result cap, all diffs together four times it: more than one result
 * shows (the budget pages through them), bounded in memory all the same.
 */
export function diffBudget(maxResultBytes: number): DiffBudget {
  return { perFileBytes: Math.floor(maxResultBytes / 2), totalBytes: 4 * maxResultBytes };
}

/** The default --max-result-bytes (1 MiB), for callers without a config at hand. */
export const DEFAULT_DIFF_BUDGET = diffBudget(1024 * 1024);

export interface FileDiff {
  name: string;
  /** Builds the file's unified diff (only called while the budget lasts). */
  diff: () => string;
}

/** About this many line comparisons at most per file (a few hundred milliseconds). */
const DIFF_WORK = 20_000_000;
const MAX_EDITS = 400;

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** One hunk that removes every old line and adds every new one. */
function wholeFileDiff(name: string, before: string, after: string): string {
  const hunkLines = (text: string, sign: string): { lines: string[]; count: number } => {
    if (text === "") return { lines: [], count: 0 };
    const parts = text.split("\n");
    const noEol = parts.at(-1) !== "";
    if (!noEol) parts.pop();
    const lines = parts.map((l) => sign + l);
    if (noEol) lines.push("\\ No newline at end of file");
    return { lines, count: parts.length };
  };
  const old = hunkLines(before, "-");
  const neu = hunkLines(after, "+");
  const range = (start: number, count: number) => `${count === 0 ? 0 : start},${count}`;
  return [
    `--- ${name}`,
    `+++ ${name}`,
    `@@ -${range(1, old.count)} +${range(1, neu.count)} @@`,
    ...old.lines,
    ...neu.lines,
    "",
  ].join("\n");
}

/** A unified diff of one file (context 3), computed in bounded time. */
export function fileDiff(name: string, before: string, after: string): string {
  const maxEditLength = Math.min(MAX_EDITS, Math.floor(DIFF_WORK / (lineCount(before) + lineCount(after))));
  const patch =
    maxEditLength >= 10
      ? createTwoFilesPatch(name, name, before, after, undefined, undefined, { context: 3, maxEditLength })
      : undefined;
  return patch === undefined ? wholeFileDiff(name, before, after) : patch.replace(/^Index: .*\n=+\n/, "");
}

export interface FileChange {
  /** The name shown in the diff headers. */
  name: string;
  before: string;
  after: string;
}

/** Unified diffs of the changes, joined, within the budget. */
export function cappedUnifiedDiff(
  changes: readonly FileChange[],
  budget: DiffBudget = DEFAULT_DIFF_BUDGET,
): string {
  return joinCappedDiffs(
    changes.map((c) => ({ name: c.name, diff: () => fileDiff(c.name, c.before, c.after) })),
    budget,
  );
}

/** Cuts a diff at the last line end within `maxBytes`, with a line saying how much was shown. */
function cutDiff(name: string, text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= maxBytes) return text;
  const head = bytes.subarray(0, maxBytes);
  const end = head.lastIndexOf(0x0a);
  const kept = end === -1 ? head : head.subarray(0, end + 1);
  return `${kept.toString("utf8")}... [diff of ${name} cut: ${kept.length} of ${bytes.length} bytes shown] ...\n`;
}

/** The diffs of `files`, joined, within the budget. */
export function joinCappedDiffs(
  files: readonly FileDiff[],
  budget: DiffBudget = DEFAULT_DIFF_BUDGET,
): string {
  const parts: string[] = [];
  let total = 0;
  const cut: string[] = [];
  const omitted: string[] = [];
  for (const f of files) {
    if (total >= budget.totalBytes) {
      omitted.push(f.name);
      continue;
    }
    const full = f.diff();
    const allowed = Math.min(budget.perFileBytes, budget.totalBytes - total);
    const text = cutDiff(f.name, full, allowed);
    if (text !== full) cut.push(f.name);
    parts.push(text);
    total += Buffer.byteLength(text);
  }
  if (omitted.length) {
    const names =
      omitted.slice(0, 20).join(", ") + (omitted.length > 20 ? `, ... (${omitted.length - 20} more)` : "");
    parts.push(
      `... [diffs of ${omitted.length} more file(s) left out (the diff budget of ${budget.totalBytes} bytes is spent): ${names}] ...\n`,
    );
  }
  if (cut.length)
    parts.push(`... [${cut.length} file diff(s) cut at ${budget.perFileBytes} bytes each] ...\n`);
  return parts.join("");
}
