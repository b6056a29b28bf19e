/** seed 001 `lint_fix`: ESLint's fixes as a transaction (lock, snapshot, audit); dryRun writes nothing. */
import { z } from "zod";
import { findFixer, type FixRequest } from "../../../adapters/fixers.js";
import { ToolError } from "../../../errors.js";
import { defineTool, WRITES_FILES } from "../../../engine/tool.js";
import { applyLintFix, lintFixFields } from "../lint-fix.js";
import { CWD_PATH, commonParams } from "./params.js";
import { seedFile, seedNote, type SeedResult } from "./seed-result.js";

export const seedLintFixTool = () =>
  defineTool({
    name: "lint_fix",
    description:
      "Run ESLint with --fix (or --fix-dry-run when dryRun: true). Per-file status: fixed (modified, now clean), " +
      "would-fix (dry run), fixable (problems left after the fix), unfixable (no auto-fixable problems), " +
      "error (ESLint could not lint the file). Runs as a transaction: project lock, snapshot, audit (undo with rollback).",
    input: z.strictObject(commonParams),
    annotations: { title: "ESLint --fix", ...WRITES_FILES },
    paths: CWD_PATH,
    exactResult: true,
    async handler(args, ctx): Promise<SeedResult> {
      const started = performance.now();
      const fixer = findFixer("eslint");
      if (!fixer) throw new ToolError("tool_not_found", "ESLint is not available in this build");
      const cwd = args.cwd as string;
      const request: FixRequest = {
        target: cwd,
        files: args.files,
        safety: "safe",
        dryRun: args.dryRun,
        args: { format: args.format },
      };
      const fix = await applyLintFix(ctx, fixer, request);
      const fields = lintFixFields(ctx, fix.outcome, request, started);
      return {
        tool: "lint_fix",
        success: true,
        workingDirectory: cwd,
        files: fields.files.map(seedFile),
        summary: fields.summary,
        note: seedNote(fix.txNotes),
      };
    },
  });
