/** seed 001 `lint`: ESLint, read-only, in the project's warm ESLint worker. */
import { z } from "zod";
import { findLinter } from "../../../adapters/linters.js";
import type { FileView } from "../../../adapters/js/eslint-results.js";
import { ToolError } from "../../../errors.js";
import { READ_ONLY } from "../../../engine/tool.js";
import { readParams } from "./params.js";
import { seedFile, seedNote, seedTool, type SeedResult } from "./seed-result.js";

/** What the ESLint linter adds to a lint outcome (`extra`): seed 001's files and summary. */
interface EslintExtra {
  files: FileView[];
  summary: { totalFiles: number; totalErrors: number; totalWarnings: number; scope: "full" | "filtered" };
}

export const seedLintTool = () =>
  seedTool({
    name: "lint",
    description:
      "Run ESLint in read-only mode (the project's ESLint and eslint.config.*, else the bundled ones). " +
      "Returns per-file diagnostics: status clean, fixable, unfixable or error.",
    input: z.strictObject(readParams),
    annotations: { title: "ESLint", ...READ_ONLY },
    async handler(args, ctx): Promise<SeedResult> {
      const started = performance.now();
      const eslint = findLinter("eslint");
      if (!eslint) throw new ToolError("tool_not_found", "ESLint is not available in this build");
      const cwd = args.cwd as string;
      const outcome = await eslint.lint(ctx, {
        target: cwd,
        args: { files: args.files, format: args.format, default_scope: "seed" },
      });
      const extra = outcome.extra as unknown as EslintExtra;
      return {
        tool: "lint",
        success: true,
        workingDirectory: cwd,
        files: extra.files.map(seedFile),
        summary: {
          totalFiles: extra.summary.totalFiles,
          totalErrors: extra.summary.totalErrors,
          totalWarnings: extra.summary.totalWarnings,
          fixedFiles: 0,
          durationMs: Math.round(performance.now() - started),
          scope: extra.summary.scope,
          dryRun: false,
        },
        note: seedNote(),
      };
    },
  });
