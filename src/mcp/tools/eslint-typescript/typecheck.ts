/** seed 001 `typecheck`: tsc --noEmit on the whole project; `files` filters which diagnostics are shown. */
import { z } from "zod";
import { findTypeChecker } from "../../../adapters/type-checkers.js";
import { ToolError } from "../../../errors.js";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { fileFilter } from "../../../findings/file-filter.js";
import { CWD_PATH, commonParams } from "./params.js";
import { addFindings, seedNote, totalsOf, type SeedResult } from "./seed-result.js";

export const seedTypecheckTool = () =>
  defineTool({
    name: "typecheck",
    description:
      "Run tsc --noEmit with the project's tsconfig.json. tsc always compiles the whole project; `files` only " +
      "filters which diagnostics are returned, and summary.scope says whether the view is full or filtered.",
    input: z.strictObject(commonParams),
    annotations: { title: "tsc --noEmit", ...READ_ONLY },
    paths: CWD_PATH,
    exactResult: true,
    async handler(args, ctx): Promise<SeedResult> {
      const started = performance.now();
      const tsc = findTypeChecker("tsc");
      if (!tsc) throw new ToolError("tool_not_found", "TypeScript is not available in this build");
      const cwd = args.cwd as string;
      const filter = fileFilter(ctx, cwd, args.files);
      const outcome = await tsc.check(ctx, { target: cwd, strict: false, args: {} });
      const shown = filter ? outcome.findings.filter((f) => filter(f.file)) : outcome.findings;
      const files = addFindings([], shown);
      return {
        tool: "typecheck",
        success: true,
        workingDirectory: cwd,
        files,
        summary: {
          ...totalsOf(files),
          fixedFiles: 0,
          durationMs: Math.round(performance.now() - started),
          scope: filter ? "filtered" : "full",
          dryRun: args.dryRun,
        },
        note: seedNote(),
      };
    },
  });
