import { z } from "zod";
import { capList } from "../../engine/result.js";
import { defineTool } from "../../engine/tool.js";
import { formatterLanguages, formatterNames } from "../../adapters/formatters.js";
import { pickFormatter } from "./format-check.js";

export const autoformatTool = () =>
  defineTool({
    name: "autoformat",
    description:
      "Format files in place (ruff format by default, or black, for Python). `dry_run: true` writes nothing and " +
      "returns the diff. Returns `changed_files`.",
    input: z.strictObject({
      path: z.string().describe("File or directory to format (inside the allowed paths)"),
      language: z.enum(formatterLanguages()).default("python"),
      formatter: z.enum(formatterNames()).optional().describe("Formatter (default: ruff for python)"),
      dry_run: z.boolean().default(false).describe("Compute the changes as a diff without writing"),
      config: z.string().optional().describe("Formatter config file"),
    }),
    annotations: {
      title: "Format files",
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
      const adapter = pickFormatter(args.language, args.formatter);
      const outcome = await adapter.write(ctx, {
        target: args.path,
        diff: args.dry_run,
        dryRun: args.dry_run,
        config: args.config,
      });
      const files = capList(outcome.changed_files);
      return {
        success: true,
        formatted: true,
        dry_run: args.dry_run,
        command: outcome.command,
        changed_files: files.items,
        changed_count: outcome.changed_files.length,
        diff: outcome.diff,
        returncode: outcome.returncode,
        output: outcome.output,
        truncated: outcome.truncated || files.capped,
        notes: outcome.notes,
      };
    },
  });
