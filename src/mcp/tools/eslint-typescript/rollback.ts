/** seed 001 `rollback`: restore files of earlier committed transactions, newest first, under the project lock. */
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../../../engine/tool.js";
import { MAX_ROLLBACK_COUNT, type RollbackFile } from "../../../fix/rollback.js";
import { rollbackNotes, runRollback } from "../rollback.js";
import { CWD_PATH, cwdParam } from "./params.js";
import { seedNote, type SeedFile, type SeedResult, type SeedStatus } from "./seed-result.js";

export const seedRollbackTool = () =>
  defineTool({
    name: "rollback",
    description:
      "Restore files from prior committed transactions (lint_fix, fix_all) of cwd's project, newest first, under " +
      "the same lock: the last `count` (default 1), or every one since an ISO time. Per-file status: restored, " +
      "unchanged, conflict (changed since the transaction: left alone) or missing (snapshot pruned).",
    input: z.strictObject({
      cwd: cwdParam,
      count: z
        .number()
        .int()
        .min(1)
        .max(MAX_ROLLBACK_COUNT)
        .optional()
        .describe(
          `How many transactions to undo (1-${MAX_ROLLBACK_COUNT}; default 1, or all since \`since\`)`,
        ),
      since: z.iso
        .datetime({ offset: true })
        .optional()
        .describe("Undo the transactions committed at or after this ISO 8601 time"),
    }),
    annotations: {
      title: "Roll back fixes",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
    paths: CWD_PATH,
    exactResult: true,
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
        ...report.restored.map(entry("restored")),
        ...report.forced.map(entry("restored")),
        ...report.unchanged.map(entry("unchanged")),
        ...report.conflicts.map(entry("conflict")),
        ...report.missing.map(entry("missing")),
      ];
      const undone = plan.transactions.map(({ entry: e }) => `${e.run_id} (${e.tool}, ${e.timestamp})`);
      return {
        tool: "rollback",
        success: true,
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
        ]),
      };
    },
  });
