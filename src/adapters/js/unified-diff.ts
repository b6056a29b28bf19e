/** Unified diffs of whole-file rewrites, file names relative to the server's working directory. */
import path from "node:path";
import { cappedUnifiedDiff, type DiffBudget } from "../../findings/diff-caps.js";

export interface Rewrite {
  /** Absolute path. */
  file: string;
  before: string;
  after: string;
}

/** Capped per file and in total (see findings/diff-caps.ts). */
export function unifiedDiff(changes: readonly Rewrite[], cwd: string, budget?: DiffBudget): string {
  return cappedUnifiedDiff(
    changes.map((c) => ({ name: path.relative(cwd, c.file) || c.file, before: c.before, after: c.after })),
    budget,
  );
}
