/** rubocop_inspection (seed 003): offenses as `rubocop --format json` reports them, with their corrections' edits. */
import { z } from "zod";
import { runRubocop } from "../../../adapters/ruby/rubocop-run.js";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { displayPaths } from "../../../findings/display-path.js";
import { jobOf, scopeParams } from "./params.js";
import { budgetedSeedView } from "./shape.js";

export const rubocopInspectionTool = () =>
  defineTool({
    name: "rubocop_inspection",
    description:
      "Inspect Ruby code (path or source_code) for RuboCop offenses, as --format json reports them, each with the " +
      "edits its correction would make; crashed cops are listed in the file's errors.",
    input: z.strictObject(scopeParams),
    annotations: { title: "RuboCop's inspection", ...READ_ONLY },
    exactResult: true,
    async handler(args, ctx) {
      const job = await jobOf(ctx, args);
      const run = await runRubocop(ctx, job);
      const display = displayPaths(job.target, ctx.allowlist.roots.effective);
      return { success: true, ...budgetedSeedView(ctx, run.files, display, job.options?.maxPerRule) };
    },
  });
