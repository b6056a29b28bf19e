import { z } from "zod";
import { BY_LANGUAGE_DOC } from "./arg-docs.js";
import { defineTool, WRITES_FILES, PATH_AND_CONFIG } from "../../engine/tool.js";
import { fixerNames } from "../../adapters/fixers.js";
import { fixArguments } from "./lint-fix.js";
import { runFixAll } from "./pipeline/fix-steps.js";
import { dryRunResult, planFixAll, writtenResult } from "./pipeline/fix-all-result.js";

/** Listed only once a fixer is registered. */
export const fixAllTool = () => {
  const names = fixerNames();
  if (names.length === 0) return undefined;
  return defineTool({
    name: "fix_all",
    description: "Lint-fix, format, then type-check as one transaction; a failed check restores every file.",
    input: z.strictObject({
      ...fixArguments(names),
      formatter: z.string().optional().describe(BY_LANGUAGE_DOC),
      checker: z.string().optional().describe("Type checker; default by project"),
      skip_typecheck: z.boolean().default(false).describe("Do not verify"),
      auto_rollback: z.boolean().default(true).describe("Restore every file if the check fails"),
    }),
    annotations: { title: "Fix, format and verify", ...WRITES_FILES },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      // Choose: the project's fixer, formatters and verifying checker (or why there is nothing to fix).
      const plan = planFixAll(ctx, args);
      if ("nothing" in plan) return plan.nothing;
      // Run: fix, format and verify in one transaction (a dry run: the steps without writing).
      const started = performance.now();
      const run = await runFixAll(ctx, plan.steps);
      // View and budget: a dry run verifies on a scratch copy and says what the real run would.
      return run.transaction
        ? writtenResult(ctx, args, { ...run, transaction: run.transaction }, plan, started)
        : dryRunResult(ctx, args, run, plan, started);
    },
  });
};
