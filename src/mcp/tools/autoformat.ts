import path from "node:path";
import { z } from "zod";
import { CONFIG_DOC } from "./arg-docs.js";
import { displayPaths, rebaseDiff, showFromCwd } from "../../findings/display-path.js";
import { capList } from "../../engine/result.js";
import { defineTool, WRITES_FILES, PATH_AND_CONFIG } from "../../engine/tool.js";
import {
  formatterLanguages,
  formattersFor,
  type FormatRequest,
  type FormatterAdapter,
  type FormatWriteOutcome,
} from "../../adapters/formatters.js";
import { runWriteStep } from "../../fix/write-step.js";
import { formatterChoiceArgs, pickFormatter } from "./format-check.js";
import { DIFF_OFFSET_ARG, diffFields } from "./pipeline/fix-result.js";
import { nothingToFix } from "./pipeline/nothing-checked.js";
import { listingOf, PAGING_ARGS } from "./listing.js";
import { reserveFor } from "../../findings/budget.js";
import { hasFilesOf, type ProjectLanguage } from "../../adapters/project-languages.js";
import { chooseFormatters, formatterFor, placeFormatter } from "../../adapters/tool-choice.js";
import type { ToolContext } from "../../engine/tool.js";

const budgetLeft = (tokens: number) => tokens - reserveFor(tokens);

/**
 * The language and formatter of an autoformat call: as given; else the language `formatter` formats that the
 * project has; else the project's first formatted language (tool-choice.ts), `nothing` when none fits.
 */
function formatterOfCall(
  ctx: ToolContext,
  target: string,
  language: string | undefined,
  formatter: string | undefined,
): {
  language?: string;
  formatter?: string;
  notes: string[];
  nothing?: string;
  /** A path holding several projects: each project's formatter at its root (tool-choice.ts). */
  placements?: { language: string; formatter: string; target: string }[];
} {
  const root = ctx.allowlist.rootOf(target);
  const choice = chooseFormatters(target, root);
  // The language asked for, else the one the named formatter formats (the first the project has).
  const formats = formatter
    ? (formatterLanguages() as string[]).filter((l) => formattersFor(l).includes(formatter))
    : [];
  const named = language ?? (formatter && (choice.languages.find((l) => formats.includes(l)) ?? formats[0]));
  if (named) {
    // A path holding several projects of the language: its formatter at each (format_check's placement).
    const placed = placeFormatter(named as ProjectLanguage, formatter, target, root);
    const several = placed.picks.filter((p) => p.target !== undefined);
    if (several.length)
      return {
        language: named,
        notes: placed.notes,
        placements: several.map((p) => ({
          language: named,
          formatter: p.formatter ?? pickFormatter(named, undefined).formatter,
          target: p.target as string,
        })),
      };
    const own = formatter ? undefined : formatterFor(named as ProjectLanguage, target, root).name;
    return { language: named, formatter: own, notes: [] };
  }
  const pick = choice.picks[0];
  if (!pick) return { notes: choice.notes, nothing: choice.nothing };
  if (pick.target !== undefined) {
    // One run per formatter and project: Prettier's covers both of its languages there.
    const placements: { language: string; formatter: string; target: string }[] = [];
    for (const p of choice.picks)
      if (!placements.some((q) => q.formatter === p.name && q.target === p.target))
        placements.push({ language: p.language, formatter: p.name, target: p.target as string });
    return {
      language: pick.language,
      formatter: pick.name,
      notes: choice.notes.filter((n) => !n.startsWith("languages detected")),
      placements,
    };
  }
  const others = choice.picks.slice(1).map((p) => p.language);
  const quiet = pick.language === "python" && choice.languages.length === 1;
  return {
    language: pick.language,
    formatter: pick.name,
    notes: [
      ...(quiet ? [] : [`formatter: ${pick.name} (the project's languages: ${choice.languages.join(", ")})`]),
      ...(others.length && pick.name !== "prettier" ? [`${others.join(", ")} too: pass language`] : []),
      ...choice.notes.filter((n) => !n.startsWith("languages detected")),
    ],
  };
}

interface AutoformatArgs {
  path: string;
  language?: string;
  dry_run: boolean;
  config?: string;
  max_result_tokens?: number;
  diff_offset?: number;
}

/**
 * Each formatter writes its request in turn, as one write step of an autoformat transaction (bare on a
 * dry run). What the transaction snapshots is what each formatter's own check names: exactly the files
 * it will rewrite. One project or several, the same transaction.
 */
function formatInOneStep(
  ctx: ToolContext,
  args: AutoformatArgs,
  runs: readonly { adapter: FormatterAdapter; request: FormatRequest & { dryRun: boolean } }[],
) {
  return runWriteStep(ctx, {
    tool: "autoformat",
    target: args.path,
    dryRun: args.dry_run,
    candidates: async () => {
      const files: string[] = [];
      for (const { adapter, request } of runs) {
        const check = await adapter.check(ctx, {
          target: request.target,
          diff: false,
          config: request.config,
          all: request.all,
        });
        for (const f of check.unformatted_files) files.push(path.resolve(ctx.config.cwd, f));
      }
      return files;
    },
    write: async () => {
      const outcomes: FormatWriteOutcome[] = [];
      for (const { adapter, request } of runs) outcomes.push(await adapter.write(ctx, request));
      return outcomes;
    },
  });
}

/**
 * autoformat on a path holding several projects: each project's formatter at its root, over its scope,
 * with its configuration, all in one transaction on the path (one rollback undoes them all).
 */
async function formatProjects(
  ctx: ToolContext,
  args: AutoformatArgs,
  placements: readonly { language: string; formatter: string; target: string }[],
  notes: string[],
) {
  const runs = placements
    .filter((p) => hasFilesOf(p.target, p.language as ProjectLanguage))
    .map((p) => ({ ...p, adapter: pickFormatter(p.language, p.formatter) }));
  if (runs.length === 0) return nothingToFix(args.dry_run, notes, `nothing to format under ${args.path}`);
  const request = (target: string) => ({
    target,
    diff: args.dry_run,
    dryRun: args.dry_run,
    config: args.config,
    // Without a language, each formatter's whole scope; with one, that language's files.
    all: args.language === undefined,
  });
  const {
    value: outcomes,
    transaction,
    notes: txNotes,
  } = await formatInOneStep(
    ctx,
    args,
    runs.map((r) => ({ adapter: r.adapter, request: request(r.target) })),
  );
  const display = displayPaths(args.path, ctx.allowlist.roots.effective);
  const changed = outcomes.flatMap((o) => o.changed_files);
  const files = capList(changed.map((f) => showFromCwd(display, ctx.config.cwd, f)));
  const diffs = outcomes.map((o) => o.diff && rebaseDiff(o.diff, ctx.config.cwd, display)).filter(Boolean);
  return {
    success: true,
    formatted: args.dry_run ? changed.length === 0 : true,
    dry_run: args.dry_run,
    projects: runs.map((r) => ({ path: display.show(r.target) || ".", formatter: r.formatter })),
    command: outcomes.map((o) => o.command).join(" && "),
    changed_files: files.items,
    changed_count: changed.length,
    ...(diffs.length
      ? diffFields([diffs.join("")], budgetLeft(listingOf(ctx, args).maxTokens), args).fields
      : {}),
    truncated: outcomes.some((o) => o.truncated) || files.capped,
    transaction,
    notes: [...notes, ...outcomes.flatMap((o) => o.notes), ...txNotes],
  };
}

export const autoformatTool = () =>
  defineTool({
    name: "autoformat",
    description: "Format files in place, as a transaction (undo: rollback).",
    input: z.strictObject({
      ...formatterChoiceArgs(),
      dry_run: z.boolean().default(false).describe("Write nothing; return the diff"),
      config: z.string().optional().describe(CONFIG_DOC),
      max_result_tokens: PAGING_ARGS.max_result_tokens,
      diff_offset: DIFF_OFFSET_ARG,
    }),
    annotations: { title: "Format files", ...WRITES_FILES },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const picked = formatterOfCall(ctx, args.path, args.language, args.formatter);
      if (!picked.language) return nothingToFix(args.dry_run, picked.notes, picked.nothing);
      if (picked.placements) return formatProjects(ctx, args, picked.placements, picked.notes);
      if (!hasFilesOf(args.path, picked.language as ProjectLanguage))
        return nothingToFix(args.dry_run, picked.notes, `no ${picked.language} files under ${args.path}`);
      const adapter = pickFormatter(picked.language, args.formatter ?? picked.formatter);
      // Without a language, the formatter's scope is the project's: all it formats there (Prettier: JSON, CSS
      // and every JavaScript/TypeScript file, as the project's `prettier --write .`), not one language's files.
      const all = args.language === undefined;
      const request = {
        target: args.path,
        diff: args.dry_run,
        dryRun: args.dry_run,
        config: args.config,
        all,
      };
      const tx = await formatInOneStep(ctx, args, [{ adapter, request }]);
      const outcome = tx.value[0] as FormatWriteOutcome;
      const { transaction, notes: txNotes } = tx;
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      const files = capList(outcome.changed_files.map((f) => showFromCwd(display, ctx.config.cwd, f)));
      return {
        success: true,
        // A dry run changed nothing: the files are formatted only if nothing would change.
        formatted: args.dry_run ? outcome.changed_files.length === 0 : true,
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
        notes: [...picked.notes, ...outcome.notes, ...txNotes],
      };
    },
  });
