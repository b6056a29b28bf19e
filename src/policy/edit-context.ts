/**
 * A proposed edit → the CEL context edit policies see: the path relative to the project, the text before
 * and after, the file's first bytes (`header`, for generated-file markers however large the file), how it
 * is changed (`write_kind`), the lines it adds and removes (trimmed, trailing commas dropped, so a reformatted
 * line is recognised as the same line), and the secrets in what it adds (secrets.ts). The added and removed
 * lines are a multiset difference of the two texts: linear in their size whatever the edit, where a line
 * diff (Myers) is quadratic in the number of changes and took minutes on a large lock file.
 */
import path from "node:path";
import { parsePatch } from "diff";
import type { CelContext } from "./cel.js";
import { configWeakening } from "./config-weakening.js";
import { broadSuppressions } from "./suppressions.js";

/** How a file is changed: an edit of its text, a write over it, its removal, a mode change, a new link to it. */
export type WriteKind = "edit" | "write" | "delete" | "mode" | "link";

export interface EditInput {
  /** Path relative to the project root (forward slashes), or absolute when outside every allowed root. */
  path: string;
  before?: string;
  after?: string;
  /** A unified diff of the file instead of before/after. */
  diff?: string;
  /** The file's first bytes as it is (default: the start of `before`). */
  header?: string;
  writeKind?: WriteKind;
  outsideAllowedPaths?: boolean;
  /** The file is one of the policy hook's own (its bundle, start-up snapshot, the shipped policies). */
  guardFile?: boolean;
}

/** The lines an edit adds and removes (as the policies compare them), and the secrets it adds. */
export interface EditLines {
  added: string[];
  removed: string[];
}

/** How much of a file's start `header` holds: generated-file markers sit in its first lines. */
export const HEADER_BYTES = 8192;

function normalize(line: string): string {
  return line.trim().replace(/,$/, "");
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Lines of `after` not in `before` and lines of `before` not in `after`, compared normalized and counted (a
 * multiset difference): a line that only moved, or was only re-indented or lost a trailing comma, is no change.
 */
export function difference(beforeLines: readonly string[], afterLines: readonly string[]): EditLines {
  const counts = new Map<string, number>();
  const before = beforeLines.map(normalize).filter((l) => l !== "");
  for (const line of before) counts.set(line, (counts.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const raw of afterLines) {
    const line = normalize(raw);
    if (line === "") continue;
    const n = counts.get(line) ?? 0;
    if (n > 0) counts.set(line, n - 1);
    else added.push(line);
  }
  const removed: string[] = [];
  for (const line of before) {
    const n = counts.get(line) ?? 0;
    if (n > 0) {
      removed.push(line);
      counts.set(line, n - 1);
    }
  }
  return { added, removed };
}

/** The added and removed lines between two texts (see difference). */
export function linesBetween(before: string, after: string): EditLines {
  return difference(splitLines(before), splitLines(after));
}

/** One file a unified diff names, with the lines its hunks add and remove. */
export interface DiffFile {
  /** The file's path after the change (its old path when it is deleted), without git's a/ b/ prefixes. */
  path: string;
  /** The path before the change, when it differs (a rename, a copy). */
  oldPath?: string;
  added: string[];
  removed: string[];
  deleted: boolean;
  created: boolean;
}

function diffName(name: string | undefined, gitPrefixes: boolean): string | undefined {
  if (!name || name === "/dev/null") return undefined;
  const clean = name.replace(/\t.*$/, "");
  return gitPrefixes ? clean.replace(/^[ab]\//, "") : clean;
}

/** Every file a unified diff names (its headers), with each file's added and removed lines. */
export function filesOfDiff(diff: string): DiffFile[] {
  const patches = parsePatch(diff);
  const out: DiffFile[] = [];
  for (const p of patches) {
    const gitPrefixes =
      /^a\//.test(p.oldFileName ?? "") || /^b\//.test(p.newFileName ?? "") || /^diff --git /m.test(diff);
    const oldName = diffName(p.oldFileName, gitPrefixes);
    const newName = diffName(p.newFileName, gitPrefixes);
    const name = newName ?? oldName;
    const added: string[] = [];
    const removed: string[] = [];
    for (const hunk of p.hunks)
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added.push(line.slice(1));
        else if (line.startsWith("-")) removed.push(line.slice(1));
      }
    if (name === undefined) {
      if (added.length || removed.length)
        out.push({ path: "", added, removed, deleted: false, created: false });
      continue;
    }
    out.push({
      path: name,
      ...(oldName && oldName !== name ? { oldPath: oldName } : {}),
      added,
      removed,
      deleted: newName === undefined,
      created: oldName === undefined,
    });
  }
  return out;
}

/** The added and removed lines of an edit: from its diff (every file in it), or between its texts. */
export function editLines(edit: EditInput): EditLines {
  if (edit.diff === undefined) return linesBetween(edit.before ?? "", edit.after ?? "");
  const added: string[] = [];
  const removed: string[] = [];
  for (const f of filesOfDiff(edit.diff)) {
    added.push(...f.added);
    removed.push(...f.removed);
  }
  return difference(removed, added);
}

/** The CEL context of an edit, given its lines and the secrets found in what it adds. */
export function editContext(edit: EditInput, lines: EditLines, secrets: readonly string[]): CelContext {
  const before = edit.before ?? "";
  const after = edit.after ?? "";
  return {
    path: edit.path,
    basename: path.posix.basename(edit.path),
    before,
    after,
    header: edit.header ?? before.slice(0, HEADER_BYTES),
    added: lines.added,
    removed: lines.removed,
    is_new: edit.before === undefined && edit.diff === undefined,
    write_kind: edit.writeKind ?? "edit",
    secrets: [...secrets],
    suppressions: broadSuppressions(lines.added),
    config_weakening: configWeakening(
      path.posix.basename(edit.path),
      before,
      after,
      lines.added,
      lines.removed,
    ),
    guard_file: edit.guardFile === true,
    outside_allowed_paths: edit.outsideAllowedPaths === true,
  };
}
