/**
 * seed 001 `fix_all`: ESLint's fixes then tsc (no formatting step), in one transaction; when tsc fails
 * and autoRollback is on (default), every written file is restored byte for byte before the lock is released.
 */
import { z } from "zod";
import { findFixer, type FixRequest } from "../../../adapters/fixers.js";
import { findTypeChecker } from "../../../adapters/type-checkers.js";
import { ToolError } from "../../../errors.js";
import { defineTool, WRITES_FILES } from "../../../engine/tool.js";
import { fileFilter } from "../../../findings/file-filter.js";
import { runFixAll } from "../fix-all.js";
import { lintFixFields } from "../lint-fix.js";
import { CWD_PATH, commonParams } from "./params.js";
import { addFindings, seedFile, seedNote, totalsOf, type SeedResult } from "./seed-result.js";

export const seedFixAllTool = () =>
  defineTool({
    name: "fix_all",
    description:
      "Run lint_fix then typecheck, as one transaction (project lock, snapshot, audit). Type errors introduced " +
      "or exposed by the fix are reported in the same result. When tsc fails and autoRollback is on (default), " +
      "every file ESLint wrote is restored byte for byte and success is false.",
    input: z.strictObject({
      ...commonParams,
      skipTypecheck: z.boolean().default(false).describe("Run lint_fix only"),
      autoRollback: z
        .boolean()
        .default(true)
        .describe("Restore every written file when the type check fails"),
    }),
    annotations: { title: "ESLint --fix, then tsc", ...WRITES_FILES },
    paths: CWD_PATH,
    exactResult: true,
    async handler(args, ctx): Promise<SeedResult> {
      const started = performance.now();
      const fixer = findFixer("eslint");
      const tsc = findTypeChecker("tsc");
      if (!fixer || !tsc)
        throw new ToolError("tool_not_found", "ESLint or TypeScript is not available in this build");
      const cwd = args.cwd as string;
      const filter = fileFilter(ctx, cwd, args.files);
      const request: FixRequest = {
        target: cwd,
        files: args.files,
        safety: "safe",
        dryRun: args.dryRun,
        args: { format: args.format },
      };
      const run = await runFixAll(ctx, {
        fixer,
        checker: args.skipTypecheck ? undefined : tsc,
        request,
        autoRollback: args.autoRollback,
      });
      const fields = lintFixFields(ctx, run.lint, request, started);
      const shownTypeErrors = (run.typeCheckOutcome?.findings ?? []).filter((f) => !filter || filter(f.file));
      const files = addFindings(fields.files.map(seedFile), shownTypeErrors);

      const tx = run.transaction;
      const failed = tx?.verification?.passed === false;
      const rolledBack = tx?.result === "rollback";
      const notes = [...(run.txNotes ?? [])];
      if (args.dryRun) notes.push("dry run: nothing was written and the type check was not run");
      else if (args.skipTypecheck) notes.push("type check skipped (skipTypecheck): the fix was not verified");
      // A failed check with autoRollback off is already in the transaction's notes.
      if (rolledBack)
        notes.push(
          `rolled back: ${tx?.rollback_reason}`,
          `every file ESLint wrote was restored (${tx?.restored_files?.length ?? 0}); ` +
            "the statuses and type errors above describe the undone fix",
        );
      return {
        tool: "fix_all",
        // The fix stands and is verified (or verification was skipped).
        success: !failed,
        workingDirectory: cwd,
        files,
        summary: {
          ...totalsOf(files),
          fixedFiles: rolledBack ? 0 : fields.summary.fixedFiles,
          durationMs: Math.round(performance.now() - started),
          scope: fields.summary.scope,
          dryRun: args.dryRun,
        },
        note: seedNote(notes),
      };
    },
  });
