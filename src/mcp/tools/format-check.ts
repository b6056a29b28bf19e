import { z } from "zod";
import { ToolError } from "../../errors.js";
import { capList } from "../../engine/result.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG } from "../../engine/tool.js";
import {
  findFormatter,
  formatterLanguages,
  formatterNames,
  formattersFor,
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
      };
    },
  });
