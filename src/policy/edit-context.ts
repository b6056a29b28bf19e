/**
 * A proposed edit → the CEL context edit policies see: the path relative to the project, the text before
 * and after, and the lines it adds and removes (trimmed, trailing commas dropped, so a reformatted line
 * is recognised as the same line). Pure.
 */
import path from "node:path";
import { diffLines, parsePatch } from "diff";
import type { CelContext } from "./cel.js";

export interface EditInput {
  /** Path relative to the project root (forward slashes), or absolute when outside every allowed root. */
  path: string;
  before?: string;
  after?: string;
  /** A unified diff of the file instead of before/after. */
  diff?: string;
  outsideAllowedPaths?: boolean;
}

const MAX_LINES = 20_000;

function normalize(line: string): string {
  return line.trim().replace(/,$/, "");
}

function splitLines(text: string): string[] {
  return text.split(/\r?\n/).slice(0, MAX_LINES);
}

/** Added and removed lines of a unified diff (every file in it). */
export function linesOfDiff(diff: string): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const file of parsePatch(diff))
    for (const hunk of file.hunks)
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added.push(line.slice(1));
        else if (line.startsWith("-")) removed.push(line.slice(1));
      }
  return { added, removed };
}

/** Added and removed lines between two texts. */
export function linesBetween(before: string, after: string): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const part of diffLines(before, after)) {
    if (!part.added && !part.removed) continue;
    const lines = splitLines(part.value.replace(/\r?\n$/, ""));
    (part.added ? added : removed).push(...lines);
  }
  return { added, removed };
}

export function editContext(edit: EditInput): CelContext {
  const before = edit.before ?? "";
  const after = edit.after ?? "";
  const { added, removed } = edit.diff !== undefined ? linesOfDiff(edit.diff) : linesBetween(before, after);
  return {
    path: edit.path,
    basename: path.posix.basename(edit.path),
    before,
    after,
    added: added.map(normalize).filter((l) => l !== ""),
    removed: removed.map(normalize).filter((l) => l !== ""),
    is_new: edit.before === undefined && edit.diff === undefined,
    outside_allowed_paths: edit.outsideAllowedPaths === true,
  };
}
