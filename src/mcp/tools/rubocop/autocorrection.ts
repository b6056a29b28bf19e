/**
 * rubocop_autocorrection (seed 003): RuboCop's corrections, written inside a transaction (lock, snapshot, audit;
 * undo with `rollback`), or only shown with dry_run. The offenses left come back located in the corrected code.
 */
import { z } from "zod";
import { changeDiff, changesOf, failOnInlineCrash, writeChanges } from "../../../adapters/ruby/rubocop.js";
import { jobFiles, runRubocop } from "../../../adapters/ruby/rubocop-run.js";
import type { RubocopJob } from "../../../adapters/ruby/rubocop-types.js";
import { defineTool, WRITES_FILES, type ToolContext } from "../../../engine/tool.js";
import { displayPaths } from "../../../findings/display-path.js";
import { runTransaction } from "../../../fix/transaction.js";
import { jobOf, scopeParams } from "./params.js";
import { budgetedSeedView } from "./shape.js";

/** Leftovers after a correction: each cop lists five unless max_offenses_per_cop says otherwise. */
export const LEFTOVERS_PER_COP = 5;

async function correct(ctx: ToolContext, job: RubocopJob, dryRun: boolean) {
  const run = await runRubocop(ctx, job);
  const changes = changesOf(run.files);
  if (!dryRun) writeChanges(ctx, changes);
  return { run, changed: new Set(changes.map((c) => c.file)), changes };
}

export const rubocopAutocorrectionTool = () =>
  defineTool({
    name: "rubocop_autocorrection",
    description:
      "Autocorrect RuboCop offenses (path or source_code); safety true applies safe corrections only. Returns the " +
      "offenses left, located in the corrected code; dry_run writes nothing and adds each file's diff.",
    input: z.strictObject({
      ...scopeParams,
      safety: z.boolean().describe("true: safe corrections only; false: unsafe ones too"),
      contextual: z.boolean().optional().describe("Also apply corrections held back while code is edited"),
      dry_run: z.boolean().optional().describe("Write nothing; return each file's diff"),
    }),
    annotations: { title: "RuboCop's autocorrection", ...WRITES_FILES },
    exactResult: true,
    // Seed 003: inline source comes back as plain corrected text (structuredContent has the rest).
    textContent: (result) => (typeof result.source_code === "string" ? result.source_code : undefined),
    async handler(args, ctx) {
      const base = await jobOf(ctx, args, LEFTOVERS_PER_COP);
      const job: RubocopJob = {
        ...base,
        options: { ...base.options, contextual: args.contextual === true },
        autocorrect: args.safety ? "safe" : "all",
        leftovers: true,
      };
      const display = displayPaths(job.target, ctx.allowlist.roots.effective);
      const max = job.options?.maxPerRule;
      const inline = job.options?.source;
      if (inline || args.dry_run) {
        const { run, changes } = await correct(ctx, job, true);
        if (inline) {
          failOnInlineCrash(run.files, run.command);
          const file = run.files[0];
          // The text content is the corrected code itself (see textContent); this is its structured side.
          return {
            success: true,
            source_code: file?.corrected ?? inline.code,
            ...budgetedSeedView(ctx, run.files, display, max),
          };
        }
        const view = budgetedSeedView(ctx, run.files, display, max, (r) => {
          const change = changes.find((c) => c.file === r.file);
          return change ? { diff: changeDiff(display.show(r.file), change) } : undefined;
        });
        return {
          success: true,
          dry_run: true,
          ...view,
          summary: { ...view.summary, corrected_file_count: changes.length },
        };
      }
      const tx = await runTransaction(ctx, {
        tool: "rubocop_autocorrection",
        target: job.target,
        candidates: async () => (await jobFiles(ctx, job)).files,
        work: async (handle) => {
          const done = await correct(ctx, job, false);
          await handle.afterWriteStep();
          return done;
        },
      });
      const { run, changed } = tx.value;
      const view = budgetedSeedView(ctx, run.files, display, max, (r) =>
        changed.has(r.file) ? { corrected: true } : undefined,
      );
      return {
        ...view,
        success: true,
        files: view.files.map((f) => ({ ...f, corrected: f.corrected === true })),
        summary: { ...view.summary, corrected_file_count: changed.size },
        transaction: tx.transaction,
      };
    },
  });
