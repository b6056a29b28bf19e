import path from "node:path";
import { z } from "zod";
import { displayPaths, rebaseDiff, showFromCwd } from "../../findings/display-path.js";
import { capList } from "../../engine/result.js";
import { defineTool, WRITES_FILES, PATH_AND_CONFIG } from "../../engine/tool.js";
import { formatterLanguages, formatterNames, type FormatWriteOutcome } from "../../adapters/formatters.js";
import { runTransaction } from "../../fix/transaction.js";
import { pickFormatter } from "./format-check.js";
import { DIFF_OFFSET_ARG, diffFields } from "./lint-fix.js";
import { listingOf, PAGING_ARGS } from "./listing.js";
import { reserveFor } from "../../findings/budget.js";

const budgetLeft = (tokens: number) => tokens - reserveFor(tokens);

export const autoformatTool = () =>
  defineTool({
    name: "autoformat",
    description:
      "Format files in place as a transaction (undo with `rollback`); `dry_run` returns the diff only.",
    input: z.strictObject({
      path: z.string(),
      language: z.enum(formatterLanguages()).default("python"),
      formatter: z.enum(formatterNames()).optional(),
      dry_run: z.boolean().default(false),
      config: z.string().optional(),
      max_result_tokens: PAGING_ARGS.max_result_tokens,
      diff_offset: DIFF_OFFSET_ARG,
    }),
    annotations: { title: "Format files", ...WRITES_FILES },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const adapter = pickFormatter(args.language, args.formatter);
      const request = { target: args.path, diff: args.dry_run, dryRun: args.dry_run, config: args.config };
      let outcome: FormatWriteOutcome;
      let transaction: unknown;
      let txNotes: string[] = [];
      if (args.dry_run) outcome = await adapter.write(ctx, request);
      else {
        const tx = await runTransaction(ctx, {
          tool: "autoformat",
          target: args.path,
          // The formatter's own check names exactly the files it will rewrite.
          candidates: async () => {
            const check = await adapter.check(ctx, { target: args.path, diff: false, config: args.config });
            return check.unformatted_files.map((f) => path.resolve(ctx.config.cwd, f));
          },
          work: async (handle) => {
            const written = await adapter.write(ctx, request);
            await handle.afterWriteStep();
            return written;
          },
        });
        outcome = tx.value;
        transaction = tx.transaction;
        txNotes = tx.notes;
      }
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      const files = capList(outcome.changed_files.map((f) => showFromCwd(display, ctx.config.cwd, f)));
      return {
        success: true,
        formatted: true,
        dry_run: args.dry_run,
        command: outcome.command,
        changed_files: files.items,
        changed_count: outcome.changed_files.length,
        // A dry run's diff, within the budget, paged by file.
        ...(outcome.diff
          ? diffFields(
              [rebaseDiff(outcome.diff, ctx.config.cwd, display)],
              budgetLeft(listingOf(ctx, args).maxTokens),
              args,
            ).fields
          : {}),
        returncode: outcome.returncode,
        output: outcome.output,
        truncated: outcome.truncated || files.capped,
        transaction,
        notes: [...outcome.notes, ...txNotes],
      };
    },
  });
