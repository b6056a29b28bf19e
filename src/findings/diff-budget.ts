/**
 * Dry-run diffs under the result's token budget, like every other list: a unified diff is split into its
 * files, the files from `offset` are listed as long as they fit, one file's diff may take at most half of
 * the share (past that it is cut at a line end, saying how many lines were shown), and `next_offset` is the
 * first file not listed. Counts say how many files the diff has, were listed and were cut.
 */
import { estimateTokens } from "./budget.js";

export interface DiffPart {
  /** The file's name, from its `+++` header. */
  name: string;
  text: string;
  /** Which of the diffs given it came from. */
  source: number;
}

/** Notes the capped joiner (diff-caps.ts) appends after the files; they are not a file's. */
const JOINER_NOTE = /^\.\.\. \[(?:diffs of \d+ more file|\d+ file diff\(s\) cut)/;

/**
 * A unified diff's per-file parts (each from its `--- ` header line, or from git's `diff --git` line with
 * its mode lines), and the lines that belong to no file.
 */
export function splitDiff(diff: string, source = 0): { parts: DiffPart[]; notes: string[] } {
  const lines = diff.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const parts: DiffPart[] = [];
  const notes: string[] = [];
  let current: string[] | undefined;
  let name = "";
  const close = () => {
    if (current) parts.push({ name, text: `${current.join("\n")}\n`, source });
    current = undefined;
  };
  // Inside a git extended header (`diff --git`, mode lines): the `---`/`+++` pair that follows is its file's.
  let gitHeader = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.startsWith("diff --git ")) {
      close();
      current = [line];
      name = line.split(" b/").at(-1) ?? line;
      gitHeader = true;
      continue;
    }
    if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      if (!gitHeader) close();
      if (!gitHeader || !current) current = [];
      current.push(line);
      name = (lines[i + 1] as string).slice(4).split("\t")[0] as string;
      gitHeader = false;
      continue;
    }
    if (JOINER_NOTE.test(line) || !current) {
      if (line.trim()) notes.push(line);
      continue;
    }
    current.push(line);
  }
  close();
  return { parts, notes };
}

/** Cuts a file's diff at the last line end within `tokens`, with a line saying how many lines were shown. */
function cutPart(part: DiffPart, tokens: number): DiffPart {
  const lines = part.text.split("\n").slice(0, -1);
  const marker = (shown: number) =>
    `... [diff of ${part.name} cut: ${shown} of ${lines.length} lines shown (max_result_tokens); pass its path in files to see more] ...`;
  let kept = 0;
  let used = estimateTokens(marker(lines.length)) + 1;
  while (kept < lines.length && used + estimateTokens(lines[kept]) <= tokens)
    used += estimateTokens(lines[kept++]);
  kept = Math.max(kept, Math.min(3, lines.length));
  return { ...part, text: `${[...lines.slice(0, kept), marker(kept)].join("\n")}\n` };
}

export interface DiffPage {
  /** The listed part of each diff given, in the order given ("" when none of its files is listed). */
  diffs: string[];
  /** Files the diffs have. */
  file_count: number;
  /** Files listed in this page. */
  listed: number;
  /** Files listed but cut. */
  cut: number;
  /** The first file not listed, when files are left. */
  next_offset?: number;
  /** What the capped joiner said (files whose diffs were not even computed). */
  notes: string[];
}

/**
 * The page of `diffs` (several diffs page as one list of files, in order) that starts at file `offset`
 * and fits `tokens`. The first file of a page is always listed (cut if need be), so pages move on.
 */
export function pageDiffs(diffs: readonly (string | undefined)[], tokens: number, offset = 0): DiffPage {
  const split = diffs.map((d, i) => splitDiff(d ?? "", i));
  const parts = split.flatMap((s) => s.parts);
  const notes = split.flatMap((s) => s.notes);
  const perFile = Math.max(64, Math.floor(tokens / 2));
  const listed: DiffPart[] = [];
  let used = 0;
  let cut = 0;
  let i = Math.min(offset, parts.length);
  for (; i < parts.length; i++) {
    let part = parts[i] as DiffPart;
    let cost = estimateTokens(part.text);
    if (cost > perFile || (listed.length === 0 && cost > tokens)) {
      part = cutPart(part, Math.min(perFile, tokens));
      cost = estimateTokens(part.text);
      cut++;
    }
    if (listed.length > 0 && used + cost > tokens) {
      if (part !== parts[i]) cut--;
      break;
    }
    listed.push(part);
    used += cost;
  }
  return {
    diffs: diffs.map((_, s) =>
      listed
        .filter((p) => p.source === s)
        .map((p) => p.text)
        .join(""),
    ),
    file_count: parts.length,
    listed: listed.length,
    cut,
    ...(i < parts.length && { next_offset: i }),
    notes,
  };
}
