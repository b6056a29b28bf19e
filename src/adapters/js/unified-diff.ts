/** Unified diffs of whole-file rewrites, file names relative to the server's working directory. */
import path from "node:path";
import { createTwoFilesPatch } from "diff";

export interface Rewrite {
  /** Absolute path. */
  file: string;
  before: string;
  after: string;
}

export function unifiedDiff(changes: readonly Rewrite[], cwd: string): string {
  return changes
    .map((c) => {
      const name = path.relative(cwd, c.file) || c.file;
      return createTwoFilesPatch(name, name, c.before, c.after, undefined, undefined, { context: 3 }).replace(
        /^Index: .*\n=+\n/,
        "",
      );
    })
    .join("");
}
