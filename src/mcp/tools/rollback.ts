import { z } from "zod";
import { PROJECT_DOC } from "./arg-docs.js";
import { defineTool, type ToolContext } from "../../engine/tool.js";
import {
  applyRollback,
  filesOf,
  MAX_ROLLBACK_COUNT,
  planFiles,
  planRollback,
  type RollbackPlan,
  type RollbackReport,
} from "../../fix/rollback.js";
import { projectCache, runTransaction, txAudit } from "../../fix/transaction.js";

/**
 * The annotations of both rollback tools (core and the eslint-typescript drop-in): it restores files,
 * and is not idempotent (a second call undoes the transaction before).
 */
export const ROLLBACK_ANNOTATIONS = {
  title: "Roll back fixes",
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
} as const;

export const rollbackTool = () =>
  defineTool({
    name: "rollback",
    description: "Undo a project's last fix transactions, newest first.",
    input: z.strictObject({
      path: z.string().describe(PROJECT_DOC),
      count: z
        .number()
        .int()
        .min(1)
        .max(MAX_ROLLBACK_COUNT)
        .optional()
        .describe(`Transactions to undo (1-${MAX_ROLLBACK_COUNT}, default 1)`),
      since: z.iso.datetime({ offset: true }).optional().describe("Instead: all since then"),
      force: z.boolean().default(false).describe("Restore files changed since, too"),
    }),
    annotations: ROLLBACK_ANNOTATIONS,
    paths: [{ arg: "path", kind: "any" }],
    async handler(args, ctx) {
      const { paths, plan, report: r, transaction, notes: txNotes } = await runRollback(ctx, args.path, args);
      const notes = [...txNotes, ...rollbackNotes(plan, r, true)];
      const failed = nothingRestored(plan, r);
      return {
        success: !failed,
        ...(failed && { error: failed, error_type: "tool_error" }),
        project_root: paths.root,
        transactions: plan.transactions.map(({ entry }) => ({
          run_id: entry.run_id,
          tool: entry.tool,
          timestamp: entry.timestamp,
          files_written: filesOf(entry),
        })),
        rolled_back: r.rolled_back,
        restored: r.restored,
        forced: r.forced,
        unchanged: r.unchanged,
        missing: r.missing,
        conflicts: r.conflicts,
        transaction,
        notes,
      };
    },
  });

/**
 * Rolls back the chosen committed transactions of the project of `target`, as a transaction of its own.
 * Shared by the core `rollback` and the eslint-typescript drop-in.
 */
export async function runRollback(
  ctx: ToolContext,
  target: string,
  selection: { count?: number; since?: string; force?: boolean },
) {
  const paths = await projectCache(ctx, target);
  let plan: RollbackPlan = { transactions: [] };
  const tx = await runTransaction(ctx, {
    tool: "rollback",
    target,
    candidates: async () => {
      plan = await planRollback(paths, txAudit(ctx, paths), selection);
      return planFiles(paths, plan);
    },
    work: async (handle): Promise<RollbackReport> => {
      const report = await applyRollback(paths, plan, selection.force ?? false);
      handle.auditExtra.rolled_back = report.rolled_back;
      if (report.conflicts.length) handle.auditExtra.conflicts = report.conflicts;
      if (report.missing.length) handle.auditExtra.missing = report.missing;
      await handle.afterWriteStep();
      return report;
    },
  });
  return { paths, plan, report: tx.value, transaction: tx.transaction, notes: tx.notes };
}

/**
 * Why a rollback that had transactions to undo restored none of their files (snapshots missing, files
 * changed since), or undefined: such a rollback is no success, whatever else it says.
 */
export function nothingRestored(plan: RollbackPlan, r: RollbackReport): string | undefined {
  if (plan.transactions.length === 0 || r.restored.length + r.forced.length > 0) return undefined;
  if (r.missing.length + r.conflicts.length === 0) return undefined;
  const why = [
    ...(r.missing.length ? [`${r.missing.length} file(s) have no snapshot to restore from`] : []),
    ...(r.conflicts.length ? [`${r.conflicts.length} file(s) changed after their transaction`] : []),
  ];
  const ids = plan.transactions.map(({ entry }) => entry.run_id).join(", ");
  return `nothing was restored of ${ids}: ${why.join("; ")}`;
}

/** What a rollback result says about nothing matching, conflicts and missing snapshots. */
export function rollbackNotes(plan: RollbackPlan, r: RollbackReport, canForce: boolean): string[] {
  const notes: string[] = [];
  if (plan.transactions.length === 0) notes.push("no committed transaction to roll back matched");
  if (r.conflicts.length)
    notes.push(
      `${r.conflicts.length} file(s) changed after their transaction and were left as they are` +
        (canForce ? "; pass force: true to overwrite them with the snapshot" : ""),
    );
  if (r.missing.length)
    notes.push(`${r.missing.length} file(s) could not be restored: their snapshot was pruned or is missing`);
  return notes;
}
