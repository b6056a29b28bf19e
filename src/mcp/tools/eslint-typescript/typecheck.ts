/** seed 001 `typecheck`: tsc --noEmit on the whole project; `files` filters which diagnostics are shown. */
import { z } from "zod";
import { findTypeChecker } from "../../../adapters/type-checkers.js";
import { ToolError } from "../../../errors.js";
import { READ_ONLY } from "../../../engine/tool.js";
import { fileFilter } from "../file-filter.js";
import { readParams } from "./params.js";
import { addFindings, seedNote, seedTool, totalsOf, type SeedResult } from "./seed-result.js";

export const seedTypecheckTool = () =>
  seedTool({
    name: "typecheck",
    description:
      "Run tsc --noEmit with the project's tsconfig.json. tsc always compiles the whole project; `files` only " +
      "filters which diagnostics are returned, and summary.scope says whether the view is full or filtered. " +
      "success is false when type errors are in view.",
    input: z.strictObject(readParams),
    annotations: { title: "tsc --noEmit", ...READ_ONLY },
    async handler(args, ctx): Promise<SeedResult> {
      const started = performance.now();
      const tsc = findTypeChecker("tsc");
      if (!tsc) throw new ToolError("tool_not_found", "TypeScript is not available in this build");
      const cwd = args.cwd as string;
      const filter = fileFilter(ctx, cwd, args.files);
      const outcome = await tsc.check(ctx, { target: cwd, strict: false, args: {} });
      const shown = filter ? outcome.findings.filter((f) => filter(f.file)) : outcome.findings;
      const files = addFindings([], shown);
      const totals = totalsOf(files);
      // tsc failed without a diagnostic to show (e.g. a broken tsconfig): say why.
      const failedSilently = !outcome.passed && outcome.findings.length === 0;
      return {
        tool: "typecheck",
        success: totals.totalErrors === 0 && !failedSilently,
        workingDirectory: cwd,
        files,
        summary: {
          ...totals,
          fixedFiles: 0,
          durationMs: Math.round(performance.now() - started),
          scope: filter ? "filtered" : "full",
          dryRun: false,
        },
        ...(failedSilently ? { error: `tsc failed: ${(outcome.output ?? "").slice(0, 2000)}` } : {}),
        note: seedNote(),
      };
    },
  });
