/**
 * rubocop_autocorrection (seed 003): RuboCop's corrections, written inside a transaction (lock, snapshot, audit;
 * undo with `rollback`), or only shown with dry_run. The offenses left come back located in the corrected code.
 */
import { createTwoFilesPatch } from "diff";
import { z } from "zod";
import { failOnInlineCrash } from "../../../adapters/ruby/rubocop.js";
import { jobFiles, runRubocop, type RubocopJob } from "../../../adapters/ruby/rubocop-run.js";
import { defineTool, WRITES_FILES, type ToolContext } from "../../../engine/tool.js";
import { displayPaths } from "../../../findings/display-path.js";
import { runTransaction } from "../../../fix/transaction.js";
import { rewriteSource } from "../../../paths/safe-fs.js";
import { jobOf, scopeParams } from "./params.js";
import { seedView } from "./shape.js";

/** Leftovers after a correction: each cop lists five unless max_offenses_per_cop says otherwise. */
export const LEFTOVERS_PER_COP = 5;

async function correct(ctx: ToolContext, job: RubocopJob, dryRun: boolean) {
  const run = await runRubocop(ctx, job);
  const changed = run.files.filter((f) => f.corrected !== undefined && f.corrected !== f.source);
  if (!dryRun) for (const f of changed) rewriteSource(ctx.allowlist, f.file, f.source, f.corrected as string);
  return { run, changed: new Set(changed.map((f) => f.file)) };
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
        const { run, changed } = await correct(ctx, job, true);
        if (inline) {
          failOnInlineCrash(run.files, run.command);
          const file = run.files[0];
          return {
            success: true,
            source_code: file?.corrected ?? inline.code,
            ...seedView(run.files, display, max),
          };
        }
        const view = seedView(run.files, display, max, (r) =>
          changed.has(r.file)
            ? { diff: unifiedDiff(display.show(r.file), r.source, r.corrected as string) }
            : undefined,
        );
        return {
          success: true,
          dry_run: true,
          ...view,
          summary: { ...view.summary, corrected_file_count: changed.size },
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
      const view = seedView(run.files, display, max, (r) =>
        changed.has(r.file) ? { corrected: true } : undefined,
      );
      return {
        success: true,
        files: view.files.map((f) => ({ ...f, corrected: f.corrected === true })),
        summary: { ...view.summary, corrected_file_count: changed.size },
        transaction: tx.transaction,
      };
    },
  });

/** The unified diff of one file, as the project's other dry runs show it (jsdiff, 3 lines of context). */
export function unifiedDiff(name: string, before: string, after: string): string {
  return createTwoFilesPatch(name, name, before, after, undefined, undefined, { context: 3 }).replace(
    /^Index: .*\n=+\n/,
    "",
  );
}
