/** A tool's write that is one step: a transaction, or nothing of one on a dry run. */
import type { ToolContext } from "../engine/tool.js";
import { runTransaction, type TransactionReport } from "./transaction.js";

export interface WriteStep<T> {
  tool: string;
  /** Canonical target; its project root is locked. */
  target: string;
  /** A dry run writes nothing: `write` runs bare, without a lock, a snapshot or an audit entry. */
  dryRun: boolean;
  /** Absolute paths of every file `write` may write; called under the lock. */
  candidates(): Promise<string[]>;
  write(): Promise<T>;
}

/**
 * Runs `step.write` as the one write step of a transaction (the after-write check follows it), or bare
 * on a dry run; the transaction's report and notes come back with its value (none on a dry run). The
 * tools that write in one step (autoformat, lint_fix) share it, so they lock and snapshot alike.
 */
export async function runWriteStep<T>(
  ctx: ToolContext,
  step: WriteStep<T>,
): Promise<{ value: T; transaction?: TransactionReport; notes: string[] }> {
  if (step.dryRun) return { value: await step.write(), notes: [] };
  return runTransaction(ctx, {
    tool: step.tool,
    target: step.target,
    candidates: () => step.candidates(),
    work: async (handle) => {
      const written = await step.write();
      await handle.afterWriteStep();
      return written;
    },
  });
}
