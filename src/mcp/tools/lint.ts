import { z } from "zod";
import { capList } from "../../engine/result.js";
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
        .describe(
          "Files or globs relative to path to lint instead of all of it (eslint default: src/ when present, " +
            "else path); matching nothing is invalid_input",
        ),
      format: z
        .enum(["compact", "full"])
        .optional()
        .describe(
          "eslint only (default compact): compact omits files without problems from files[]; full lists every " +
            "file. Refused for other linters",
        ),
    }),
    annotations: { title: "Lint", ...READ_ONLY },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const linter = findLinter(args.linter);
      if (!linter) throw new ToolError("invalid_input", `unknown linter ${args.linter}`);
      const outcome = await linter.lint(ctx, { target: args.path, config: args.config, args });
      const issues = capList(outcome.issues);
      return {
        success: true,
        passed: (outcome.returncode ?? 0) === 0 && outcome.issues.length === 0,
        command: outcome.command,
        issues: issues.items,
        issue_count: outcome.issues.length,
        ...outcome.extra,
        returncode: outcome.returncode,
        output: outcome.output,
        truncated: outcome.truncated || issues.capped,
        notes: outcome.notes,
      };
    },
  });
