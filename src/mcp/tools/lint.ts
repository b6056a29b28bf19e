import { z } from "zod";
import { displayPaths } from "../../findings/display-path.js";
import { findingsView } from "../../findings/views.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG } from "../../engine/tool.js";
import { findLinter, linterNames } from "../../adapters/linters.js";
import { ToolError } from "../../errors.js";

export const lintTool = () =>
  defineTool({
    name: "lint",
    description:
      "Run a linter and return its findings as `file:line:col: message` strings. ruff (default; the embedded ruff " +
      "when none is installed) or flake8 for Python; eslint for JavaScript/TypeScript (the project's own ESLint in a " +
      "warm worker, with per-file `files[]` and `summary`). `passed` needs exit code 0 and no issues.",
    input: z.strictObject({
      path: z.string().describe("File or directory to lint (inside the allowed paths)"),
      linter: z.enum(linterNames()).default("ruff").describe("Linter to run"),
      config: z.string().optional().describe("Linter config file (passed as --config)"),
      files: z
        .array(z.string())
        .optional()
        .describe("eslint: files or globs relative to path (default: src/ when present, else path)"),
      format: z
        .enum(["compact", "full"])
        .default("compact")
        .describe("eslint: compact omits files without problems from files[]; full lists every file"),
      output: OUTPUT_ARG,
    }),
    annotations: { title: "Lint", ...READ_ONLY },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const linter = findLinter(args.linter);
      if (!linter) throw new ToolError("invalid_input", `unknown linter ${args.linter}`);
      const outcome = await linter.lint(ctx, { target: args.path, config: args.config, args });
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      const view = findingsView(outcome.findings, { display, fingerprints: args.output === "sarif" });
      return {
        success: true,
        passed: (outcome.returncode ?? 0) === 0 && view.count === 0,
        command: outcome.command,
        issues: view.issues,
        issue_count: view.count,
        ...outcome.extra,
        returncode: outcome.returncode,
        output: outcome.output,
        truncated: outcome.truncated || view.capped,
        notes: outcome.notes,
        ...(await sarifField(ctx, args.output, display, [
          { ...outcome, findings: view.all, notes: outcome.notes },
        ])),
      };
    },
  });
