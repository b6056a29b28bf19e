import { z } from "zod";
import { ToolError } from "../../errors.js";
import { capList } from "../../engine/result.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG, type ToolContext } from "../../engine/tool.js";
import { displayPaths } from "../../findings/display-path.js";
import { formatFindings } from "../../findings/format-findings.js";
import { findingsView } from "../../findings/views.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import {
  findFormatter,
  formatterLanguages,
  formatterNames,
  formattersFor,
  type FormatCheckOutcome,
  type FormatterAdapter,
} from "../../adapters/formatters.js";

/** The formatter for a request, or invalid_input naming the formatters that language has. */
export function pickFormatter(language: string, formatter: string | undefined) {
  const adapter = findFormatter(language, formatter);
  if (!adapter)
    throw new ToolError(
      "invalid_input",
      `formatter ${formatter} does not format ${language}; use one of: ${formattersFor(language).join(", ")}`,
    );
  return adapter;
}

/** SARIF of a format check: one finding per file that would change, at its first changed line. */
async function formatSarif(
  ctx: ToolContext,
  adapter: FormatterAdapter,
  args: { path: string; diff: boolean; config?: string },
  outcome: FormatCheckOutcome,
) {
  const display = displayPaths(args.path, ctx.allowlist.roots.effective);
  // The first changed lines come from the diff: the one asked for, else a second (read-only) check.
  const diff =
    outcome.formatted || args.diff
      ? outcome.output
      : (await adapter.check(ctx, { target: args.path, diff: true, config: args.config })).output;
  const findings = formatFindings(adapter.formatter, outcome.unformatted_files, diff, ctx.config.cwd);
  const view = findingsView(findings, { display, fingerprints: true });
  return sarifField(ctx, "sarif", display, [
    { tool: adapter.formatter, findings: view.all, notes: outcome.notes, command: outcome.command },
  ]);
}

export const formatCheckTool = () =>
  defineTool({
    name: "format_check",
    description:
      "Check whether files are formatted, without changing them. Python: ruff format --check (default; the embedded " +
      "ruff when none is installed) or black. JavaScript/TypeScript: prettier (the project's own, else bundled). " +
      "Returns `formatted` and `unformatted_files`; `diff: true` puts the diff in `output`.",
    input: z.strictObject({
      path: z.string().describe("File or directory to check (inside the allowed paths)"),
      language: z.enum(formatterLanguages()).default("python").describe("Language of the files"),
      formatter: z
        .enum(formatterNames())
        .optional()
        .describe("Formatter (default: ruff for python, prettier for javascript/typescript)"),
      diff: z.boolean().default(false).describe("Include a unified diff of what would change"),
      config: z.string().optional().describe("Formatter config file"),
      output: OUTPUT_ARG,
    }),
    annotations: { title: "Check formatting", ...READ_ONLY },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const adapter = pickFormatter(args.language, args.formatter);
      const outcome = await adapter.check(ctx, { target: args.path, diff: args.diff, config: args.config });
      const files = capList(outcome.unformatted_files);
      return {
        success: true,
        formatted: outcome.formatted,
        command: outcome.command,
        unformatted_files: files.items,
        unformatted_count: outcome.unformatted_files.length,
        returncode: outcome.returncode,
        output: outcome.output,
        truncated: outcome.truncated || files.capped,
        notes: outcome.notes,
        ...(args.output === "sarif" ? await formatSarif(ctx, adapter, args, outcome) : {}),
      };
    },
  });
