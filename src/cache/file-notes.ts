/**
 * A tool's notes about one file (ruff's `warning: Invalid # noqa directive on pkg/a.py:171: ...`): the
 * per-file cache keeps them with that file's value, so that a run of other files neither drops them nor
 * keeps them once the file has changed (per-file.ts). Pure.
 */
import path from "node:path";

/** A path followed by a line number, as tools name a place: `pkg/a.py:171`, `/abs/b.py:3:1`. */
const PLACE = /(?:^|[\s`'"(])([^\s`'"():]+):\d+\b/g;

/**
 * The notes that name a file below `root` at a line (relative names resolved from `cwd`, where the tool
 * ran), by that file; the others as they were, in order.
 */
export function splitFileNotes(
  notes: readonly string[],
  cwd: string,
  root: string,
): { rest: string[]; byFile: Map<string, string[]> } {
  const rest: string[] = [];
  const byFile = new Map<string, string[]>();
  for (const note of notes) {
    let file: string | undefined;
    for (const m of note.matchAll(PLACE)) {
      const candidate = path.resolve(cwd, m[1] as string);
      const rel = path.relative(root, candidate);
      if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) {
        file = candidate;
        break;
      }
    }
    if (!file) rest.push(note);
    else byFile.set(file, [...(byFile.get(file) ?? []), note]);
  }
  return { rest, byFile };
}
