/** seed 001 `lint`: ESLint, read-only, in the project's warm ESLint worker. */
import { z } from "zod";
import { findLinter } from "../../../adapters/linters.js";
import { perFileFields } from "../../../findings/file-view.js";
import { ToolError } from "../../../errors.js";
import { READ_ONLY } from "../../../engine/tool.js";
import { readParams } from "./params.js";
import { defaultConfigNotes, seedFile, seedNote, seedTool, type SeedResult } from "./seed-result.js";

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
      if (!outcome.perFile) throw new ToolError("exception", "ESLint gave no per-file view");
      // seed 001 names files by their absolute paths.
      // Every file: the toolset caps its results itself, saying so (fitSeedResult).
      const view = perFileFields(outcome.perFile, outcome.findings, (file) => file, undefined, Infinity);
      return {
        tool: "lint",
        success: true,
        workingDirectory: cwd,
        files: view.files.map((f) => seedFile(f as Parameters<typeof seedFile>[0])),
        summary: {
          totalFiles: view.summary.totalFiles,
          totalErrors: view.summary.totalErrors,
          totalWarnings: view.summary.totalWarnings,
          fixedFiles: 0,
          durationMs: Math.round(performance.now() - started),
          scope: view.summary.scope,
          dryRun: false,
        },
        note: seedNote(defaultConfigNotes(outcome.notes)),
      };
    },
  });
