import path from "node:path";
import { z } from "zod";
import { ToolError } from "../../engine/errors.js";
import { capList } from "../../engine/result.js";
import { defineTool } from "../../engine/tool.js";
import { findFixer, fixerNames } from "../../adapters/fixers.js";

/** Listed only once a fixer is registered. */
export const lintFixTool = () => {
  const names = fixerNames();
  if (names.length === 0) return undefined;
  return defineTool({
    name: "lint_fix",
    description:
      `Apply a linter's automatic fixes (${names.join(", ")}). safety "safe" (default) applies only safe fixes; ` +
      '"unsafe" also applies unsafe fixes and suggestions. `dry_run: true` writes nothing and returns the diff. ' +
      "Per-file status: fixed, would-fix, fixable (problems left), unfixable, error; problems left are reported.",
    input: z.strictObject({
      path: z.string().describe("Project directory or file (inside the allowed paths)"),
      linter: z
        .enum(names as [string, ...string[]])
        .default(names[0] as string)
        .describe("Linter whose fixes to apply"),
      files: z.array(z.string()).optional().describe("Files or globs (relative to path) to scope the fix to"),
      safety: z.enum(["safe", "unsafe"]).default("safe").describe("Which fixes to apply"),
      dry_run: z.boolean().default(false).describe("Compute fixes and diff without writing"),
      config: z.string().optional().describe("Linter config file"),
    }),
    annotations: {
      title: "Apply lint fixes",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    paths: [
      { arg: "path", kind: "any" },
      { arg: "config", kind: "file" },
    ],
    async handler(args, ctx) {
      const fixer = findFixer(args.linter);
      if (!fixer) throw new ToolError("invalid_input", `unknown linter ${args.linter}`);
      const started = performance.now();
      const request = {
        target: args.path,
        files: args.files,
        safety: args.safety,
        dryRun: args.dry_run,
        config: args.config,
        args,
      };
      const outcome = await fixer.fix(ctx, request);
      const files = capList(outcome.files);
      const remaining = outcome.files.flatMap((f) =>
        f.messages.map(
          (m) =>
            `${path.relative(ctx.config.cwd, f.file) || f.file}:${m.line}:${m.column}: ${m.rule_id ? `${m.rule_id} ` : ""}${m.message}`,
        ),
      );
      const totalErrors = outcome.files.reduce((n, f) => n + f.errorCount, 0);
      const totalWarnings = outcome.files.reduce((n, f) => n + f.warningCount, 0);
      const issues = capList(remaining);
      return {
        success: true,
        passed: remaining.length === 0,
        dry_run: args.dry_run,
        command: outcome.command,
        files: files.items,
        summary: {
          totalFiles: outcome.files.length,
          totalErrors,
          totalWarnings,
          fixedFiles: outcome.files.filter((f) => f.status === "fixed" || f.status === "would-fix").length,
          durationMs: Math.round(performance.now() - started),
          scope: args.files ? "filtered" : "full",
          dryRun: args.dry_run,
        },
        changed_files: outcome.changed_files,
        diff: outcome.diff,
        issues: issues.items,
        issue_count: remaining.length,
        returncode: outcome.returncode,
        truncated: outcome.truncated || files.capped || issues.capped,
        notes: outcome.notes,
      };
    },
  });
};
