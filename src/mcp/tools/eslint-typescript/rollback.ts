/** seed 001 `rollback`: restore files of earlier committed transactions, newest first, under the project lock. */
import path from "node:path";
import { z } from "zod";
import { MAX_ROLLBACK_COUNT, type RollbackFile } from "../../../fix/rollback.js";
import { nothingRestored, ROLLBACK_ANNOTATIONS, rollbackNotes, runRollback } from "../rollback.js";
import { cwdParam } from "./params.js";
import { seedNote, seedTool, type SeedFile, type SeedResult, type SeedStatus } from "./seed-result.js";

export const seedRollbackTool = () =>
  seedTool({
    name: "rollback",
    description:
      "Restore files from prior committed transactions (lint_fix, fix_all) of cwd's project, newest first, under " +
      "the same lock: the last `count` (default 1, max 20), or every one since an ISO time. Per-file status: " +
      "fixed (restored), clean (already as before the transaction), unfixable (changed since the transaction: " +
      "left alone, named in note) or error (its snapshot is gone).",
    input: z.strictObject({
      cwd: cwdParam,
      count: z
        .number()
        .int()
        .positive()
        .max(MAX_ROLLBACK_COUNT)
        .optional()
        .describe(`How many transactions to undo (default 1, max ${MAX_ROLLBACK_COUNT})`),
      since: z.iso
        .datetime({ offset: true })
        .optional()
        .describe("Instead of count: undo every transaction committed at or after this ISO 8601 time"),
    }),
    annotations: ROLLBACK_ANNOTATIONS,
    async handler(args, ctx): Promise<SeedResult> {
      const started = performance.now();
      const cwd = args.cwd as string;
      const { paths, plan, report, notes } = await runRollback(ctx, cwd, {
        count: args.count,
        since: args.since,
      });
      const entry =
        (status: SeedStatus) =>
        (f: RollbackFile): SeedFile => ({
          file: path.join(paths.root, f.file),
          status,
          errorCount: 0,
          warningCount: 0,
          messages: [],
        });
      const files = [
        ...report.restored.map(entry("fixed")),
        ...report.forced.map(entry("fixed")),
        ...report.unchanged.map(entry("clean")),
        ...report.conflicts.map(entry("unfixable")),
        ...report.missing.map(entry("error")),
      ];
      // Only the transactions wholly put back are named as rolled back.
      const undone = plan.transactions
        .filter(({ entry: e }) => report.rolled_back.includes(e.run_id))
        .map(({ entry: e }) => `${e.run_id} (${e.tool}, ${e.timestamp})`);
      const leftAlone = report.conflicts.map((f) => f.file);
      const failed = nothingRestored(plan, report);
      return {
        tool: "rollback",
        success: !failed,
        ...(failed && { error: failed }),
        workingDirectory: cwd,
        files,
        summary: {
          totalFiles: files.length,
          totalErrors: 0,
          totalWarnings: 0,
          fixedFiles: report.restored.length + report.forced.length,
          durationMs: Math.round(performance.now() - started),
          scope: "full",
          dryRun: false,
        },
        note: seedNote([
          ...(undone.length ? [`rolled back ${undone.join(", ")}`] : []),
          ...notes,
          ...rollbackNotes(plan, report, false),
          ...(leftAlone.length
            ? [`left alone (changed after their transaction): ${leftAlone.join(", ")}`]
            : []),
        ]),
      };
    },
  });
