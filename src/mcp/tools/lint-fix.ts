import { z } from "zod";
import { BY_LANGUAGE_DOC, CONFIG_DOC, FILES_DOC, PATH_DOC } from "./arg-docs.js";
import { ToolError } from "../../errors.js";
import { displayPaths, rebaseDiff } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { findingsView } from "../../findings/views.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { filesView, perFileListingCost } from "../../findings/file-view.js";
import { LISTING_ARGS, listingFields, listingOf, type ListingArgs } from "./listing.js";
import { estimateTokens, listWithin, reserveFor } from "../../findings/budget.js";
import { pageDiffs } from "../../findings/diff-budget.js";
import type { FixOptions } from "../../adapters/lint-options.js";
import { inRuleScope } from "../../adapters/rule-scope.js";
import { AGENT_ARGS, changedAsFiles, filesFrom, resolveAgentArgs } from "./lint-scope.js";
import { defineTool, type ToolContext, WRITES_FILES, PATH_AND_CONFIG } from "../../engine/tool.js";
import {
  findFixer,
  fixerNames,
  type FixerAdapter,
  type FixOutcome,
  type FixRequest,
} from "../../adapters/fixers.js";
import { runTransaction, type TransactionReport } from "../../fix/transaction.js";
import { chooseFixer, placeNamed } from "../../adapters/tool-choice.js";
import { hasFilesOf, type ProjectLanguage } from "../../adapters/project-languages.js";

/**
 * A lint fix: a dry run computes it without a lock; otherwise it runs as a transaction of `tool`.
 * Shared by the core `lint_fix` and the eslint-typescript drop-in.
 */
export async function applyLintFix(
  ctx: ToolContext,
  fixer: FixerAdapter,
  request: FixRequest,
  tool = "lint_fix",
): Promise<{ outcome: FixOutcome; transaction?: TransactionReport; txNotes: string[] }> {
  if (request.dryRun) {
    const outcome = await fixer.fix(ctx, request);
    return { outcome, txNotes: [] };
  }
  const tx = await runTransaction(ctx, {
    tool,
    target: request.target,
    candidates: () => fixer.candidates(ctx, request),
    work: async (handle) => {
      const outcome = await fixer.fix(ctx, request);
      await handle.afterWriteStep();
      return outcome;
    },
  });
  return { outcome: tx.value, transaction: tx.transaction, txNotes: tx.notes };
}

/** The problems a fix left (or would leave), as findings of the fixer (the command's program). */
export function leftoverFindings(outcome: FixOutcome): Finding[] {
  const tool = outcome.command.split(" ")[0] ?? "";
  return outcome.files.flatMap((f) =>
    f.messages.map((m) => {
      const finding: Finding = {
        tool,
        file: f.file,
        line: m.line,
        column: m.column,
        rule_id: m.rule_id ?? "",
        severity: m.severity,
        message: m.message,
        correctable: m.fixable,
      };
      // ESLint's messages say more (see adapters/js/eslint-wire.ts); the files[] view shows it.
      const more = m as Partial<
        Pick<
          Finding,
          "end_line" | "end_column" | "message_id" | "suggestions" | "fatal" | "correction" | "docs_url"
        >
      >;
      for (const key of [
        "end_line",
        "end_column",
        "message_id",
        "suggestions",
        "fatal",
        "correction",
        "docs_url",
      ] as const)
        if (more[key] !== undefined) Object.assign(finding, { [key]: more[key] });
      return finding;
    }),
  );
}

/**
 * The lint_fix part of a result (also fix_all's): per-file statuses, summary, problems left. Files are
 * shown by their display paths, unless `show` says otherwise (seed 001's drop-in: absolute).
 */
export function lintFixFields(
  ctx: ToolContext,
  outcome: FixOutcome,
  request: FixRequest,
  started: number,
  show?: (file: string) => string,
  /** More diffs of the same dry run (fix_all's format diff), by display path: paged with the fix's. */
  otherDiffs: readonly (string | undefined)[] = [],
) {
  const display = displayPaths(request.target, ctx.allowlist.roots.effective);
  const leftovers = leftoverFindings(outcome);
  // Named by display paths (the other diffs already are).
  const diffs = [outcome.diff && rebaseDiff(outcome.diff, ctx.config.cwd, display), ...otherDiffs];
  // The drop-in (show given) keeps seed 001's shape: no budget fields. A dry run's diffs share the budget
  // with the problems left: half each.
  const shares = show ? undefined : fixShares(ctx, request.args, diffs.some(Boolean), 1 + otherDiffs.length);
  // The files with no problem left (fixed, would-fix, clean) are listed when they take at most a quarter of
  // what the listing may take (their entries are then kept out of its budget); past that, and whenever the
  // problems are trimmed or paged, files[] holds the files of the listed problems only.
  const fullFormat = show !== undefined || request.args.format === "full";
  const statusOnly = outcome.files.filter(
    (f) => f.messages.length === 0 && (fullFormat || f.status !== "clean" || (f.errors?.length ?? 0) > 0),
  );
  const statusCost = estimateTokens(
    statusOnly.map(({ diff: _d, ...f }) => ({ ...f, file: display.show(f.file) })),
  );
  const base = shares && listingOf(ctx, request.args, { ...perFileListingCost(true), ...shares.listing });
  const showStatus = base !== undefined && statusCost <= (base.maxTokens - (base.reserveTokens ?? 0)) / 4;
  const listing = base && {
    ...base,
    ...(showStatus && { reserveTokens: (base.reserveTokens ?? 0) + statusCost }),
  };
  const remaining = findingsView(leftovers, { display, listing });
  const diffPage = shares?.diffTokens ? diffFields(diffs, shares.diffTokens, request.args) : undefined;
  const info = remaining.listing;
  // Files with nothing to report (not changed, nothing left, no errors) are only counted, for every
  // fixer (seed 003); the drop-in (show given) keeps what its fixer chose. Leftovers carry their
  // corrections, as inspected offenses do. Trimmed or paged, only files with listed problems are listed.
  const files = filesView(outcome.files, leftovers, {
    format: fullFormat ? "full" : "compact",
    show: show ?? display.show,
    // The drop-in (show given) caps its files itself, saying so (fitSeedResult).
    ...(show && { cap: Infinity }),
    listed: listing && new Set(remaining.listed),
    corrections: !show,
    onlyListed: info !== undefined && (info.trimmed || info.page !== undefined || !showStatus),
    // The drop-in (show given) caps its files itself, saying so (fitSeedResult).
    ...(show && { cap: Infinity }),
  });
  // The files the fix changed: `changed_files` (as many as fit their share; `changed_count` counts them all).
  const changed = listing
    ? listWithin(outcome.changed_files, shares?.changedTokens ?? 0)
    : { items: outcome.changed_files, count: outcome.changed_files.length, capped: false };
  return {
    passed: remaining.count === 0,
    command: outcome.command,
    // A dry run's diffs are listed once, in `diff` (within the budget, paged by file), not again per file
    // (the drop-in's shape has no diff at all).
    files: files.files.map(({ diff: _diff, ...f }) => f),
    summary: {
      totalFiles: outcome.filesInScope ?? outcome.files.length,
      totalErrors: files.totalErrors,
      totalWarnings: files.totalWarnings,
      // Files the fix changed (or would change), whether or not problems are left in them.
      fixedFiles: outcome.changed_files.length,
      durationMs: Math.round(performance.now() - started),
      scope: outcome.scope ?? (request.files ? ("filtered" as const) : ("full" as const)),
      dryRun: request.dryRun,
    },
    changed_files: changed.items,
    ...(changed.capped && { changed_count: changed.count }),
    ...(diffPage ? diffPage.fields : { diff: diffs[0] }),
    issues: remaining.issues,
    issue_count: remaining.count,
    returncode: outcome.returncode,
    truncated: outcome.truncated || files.capped || remaining.capped || changed.capped,
    ...(listing &&
      listingFields(outcome.command.split(" ")[0] || "lint_fix", remaining, {
        lists: ["issues"],
        perFile: "files",
      })),
    /** The listed part of each of `otherDiffs` (fix_all's format diff), for the caller to place. */
    other_diffs: diffPage ? diffPage.diffs.slice(1) : diffs.slice(1),
  };
}

/**
 * How a fix's budget is shared: each list of changed files (the fix's, fix_all's formatter's) an eighth of
 * it; then, with diffs (a dry run), the listing of the problems left half of the rest and the diffs the
 * other half; without, the listing all of it.
 */
export function fixShares(ctx: ToolContext, args: ListingArgs, hasDiff: boolean, changedLists: number) {
  const total = listingOf(ctx, args).maxTokens;
  const changedTokens = Math.floor(total / 8);
  const reserve = reserveFor(total) + changedLists * changedTokens;
  const diffTokens = hasDiff ? Math.floor((total - reserve) / 2) : 0;
  return { listing: { reserveTokens: reserve + diffTokens }, diffTokens, changedTokens };
}

/** A dry run's diffs within `tokens`, from file `diff_offset`: the result's `diff` and its paging fields. */
export function diffFields(
  diffs: readonly (string | undefined)[],
  tokens: number,
  args: { diff_offset?: number },
) {
  const page = pageDiffs(diffs, tokens, args.diff_offset ?? 0);
  return {
    diffs: page.diffs,
    fields: {
      diff: page.diffs[0] || undefined,
      diff_file_count: page.file_count,
      ...(page.listed < page.file_count || page.cut > 0
        ? {
            diff_files_listed: page.listed,
            diff_files_cut: page.cut,
            ...(page.next_offset !== undefined && { next_diff_offset: page.next_offset }),
          }
        : {}),
      ...(page.notes.length && { diff_notes: page.notes }),
    },
  };
}

/** The arguments lint_fix and fix_all share. */
export function fixArguments(fixers: string[]) {
  return {
    path: z.string().describe(PATH_DOC),
    linter: z
      .enum(fixers as [string, ...string[]])
      .optional()
      .describe(BY_LANGUAGE_DOC),
    files: z.array(z.string()).optional().describe(FILES_DOC),
    safety: z.enum(["safe", "unsafe"]).default("safe").describe("unsafe: also unsafe fixes"),
    dry_run: z.boolean().default(false).describe("Write nothing; return diffs"),
    config: z.string().optional().describe(CONFIG_DOC),
    output: OUTPUT_ARG,
    ...LISTING_ARGS,
    diff_offset: DIFF_OFFSET_ARG,
  };
}

/** Paging over a dry run's diffs, by file. */
export const DIFF_OFFSET_ARG = z
  .number()
  .int()
  .min(0)
  .max(1_000_000)
  .optional()
  .describe("Dry run: diff paging");

/** `{sarif}` of the problems a fix left, when asked for. */
export async function leftoverSarif(
  ctx: ToolContext,
  output: "json" | "sarif",
  fixer: string,
  outcome: FixOutcome,
  target: string,
) {
  if (output !== "sarif") return {};
  const display = displayPaths(target, ctx.allowlist.roots.effective);
  const view = findingsView(leftoverFindings(outcome), { display, fingerprints: true });
  return sarifField(ctx, output, display, [
    {
      tool: fixer,
      ...(outcome.version && { version: () => Promise.resolve(outcome.version) }),
      findings: view.all,
      notes: outcome.notes,
      command: outcome.command,
    },
  ]);
}

/** The fixer request of validated lint_fix / fix_all arguments. */
export function fixRequestOf(args: {
  path: string;
  files?: string[];
  safety: FixRequest["safety"];
  dry_run: boolean;
  config?: string;
}): FixRequest {
  return {
    target: args.path,
    files: args.files,
    safety: args.safety,
    dryRun: args.dry_run,
    config: args.config,
    args,
  };
}

/** The registered fixer of that name, or invalid_input. */
export function requireFixer(name: string): FixerAdapter {
  const fixer = findFixer(name);
  if (!fixer) throw new ToolError("invalid_input", `unknown linter ${name}`);
  return fixer;
}

/**
 * The fixer of a lint_fix / fix_all call: the one named, else the project's (tool-choice.ts), with the notes
 * saying why; `nothing` when no fixer fits the project's languages (the call then fixes and writes nothing).
 */
export function fixerOfCall(
  target: string,
  named: string | undefined,
  inline = false,
  root?: string,
): { fixer?: FixerAdapter; notes: string[]; nothing?: string; placements?: FixerPlacement[] } {
  if (named) {
    const fixer = requireFixer(named);
    if (inline) return { fixer, notes: [] };
    // A path holding several projects: the named fixer at each of its projects (tool-choice.ts).
    const placed = placeNamed(named, fixer.languages, target, root);
    const several = placed.picks.filter((p) => p.target !== undefined);
    return several.length
      ? {
          fixer,
          notes: placed.notes,
          placements: several.map((p) => ({ fixer, target: p.target as string })),
        }
      : { fixer, notes: [] };
  }
  const choice = chooseFixer(target, inline ? target : undefined, root);
  const pick = choice.picks[0];
  if (!pick) return { notes: choice.notes, nothing: choice.nothing };
  if (pick.target !== undefined)
    return {
      fixer: requireFixer(pick.name),
      notes: choice.notes,
      placements: choice.picks.map((p) => ({ fixer: requireFixer(p.name), target: p.target as string })),
    };
  // A Python project's ruff is the long-standing default: no note for it.
  const quiet = pick.name === "ruff" && choice.languages.every((l) => l === "python");
  return { fixer: requireFixer(pick.name), notes: quiet ? [] : choice.notes };
}

/** A fixer and the project it fixes, when the call's path holds several. */
export interface FixerPlacement {
  fixer: FixerAdapter;
  target: string;
}

/** Fix outcomes of several projects as one (each file's results are its own fixer's). */
export function mergeFixOutcomes(outcomes: readonly FixOutcome[]): FixOutcome {
  const diffs = outcomes.map((o) => o.diff).filter(Boolean);
  return {
    files: outcomes.flatMap((o) => o.files),
    filesInScope: outcomes.reduce((n, o) => n + (o.filesInScope ?? o.files.length), 0),
    scope: outcomes.every((o) => o.scope !== "filtered") ? "full" : "filtered",
    changed_files: outcomes.flatMap((o) => o.changed_files),
    ...(diffs.length && { diff: diffs.join("") }),
    command: outcomes.map((o) => o.command).join(" && "),
    returncode: Math.max(...outcomes.map((o) => o.returncode ?? 0)),
    truncated: outcomes.some((o) => o.truncated),
    notes: outcomes.flatMap((o) => o.notes),
  };
}

/**
 * lint_fix on a path holding several projects: each project's fixer at its own root with its own
 * configuration, all in one transaction on the path (one rollback undoes them all); the result is one
 * lint_fix result over them, `projects` saying which fixer ran where.
 */
async function fixProjects(
  ctx: ToolContext,
  args: LintFixArgs,
  placements: readonly FixerPlacement[],
  pickNotes: string[],
) {
  const started = performance.now();
  const notes = [...pickNotes];
  const runs: { fixer: FixerAdapter; request: FixRequest }[] = [];
  for (const { fixer, target } of placements) {
    const files = filesFrom(args.files, args.path, target);
    if (files?.length === 0 || !fixer.languages.some((l) => hasFilesOf(target, l as ProjectLanguage)))
      continue;
    const own = { ...args, path: target, files };
    const agent = await resolveAgentArgs(ctx, own, fixer, {
      fixing: true,
      takesFiles: FIXERS_TAKING_FILES.has(fixer.name),
    });
    notes.push(...agent.notes);
    if (agent.nothingChanged) continue;
    const options: FixOptions = { ...agent.options, contextual: args.contextual };
    const request: FixRequest = { ...fixRequestOf(own), options };
    if (options.changedFiles) {
      if (FIXERS_TAKING_FILES.has(fixer.name)) request.files = changedAsFiles(target, options.changedFiles);
      else if (fixer.name !== "rubocop" && fixer.name !== "clippy")
        throw new ToolError("invalid_input", `${fixer.name} cannot limit its fixes to the changed files`);
    }
    runs.push({ fixer, request });
  }
  if (runs.length === 0)
    return nothingToFix(args.dry_run, notes, "nothing to fix in the projects under the path");
  const fixAll = async () => {
    const outcomes: FixOutcome[] = [];
    for (const r of runs) outcomes.push(await r.fixer.fix(ctx, r.request));
    return mergeFixOutcomes(outcomes);
  };
  let outcome: FixOutcome;
  let transaction: TransactionReport | undefined;
  let txNotes: string[] = [];
  if (args.dry_run) outcome = await fixAll();
  else {
    const tx = await runTransaction(ctx, {
      tool: "lint_fix",
      target: args.path,
      candidates: async () => (await Promise.all(runs.map((r) => r.fixer.candidates(ctx, r.request)))).flat(),
      work: async (handle) => {
        const merged = await fixAll();
        await handle.afterWriteStep();
        return merged;
      },
    });
    outcome = tx.value;
    transaction = tx.transaction;
    txNotes = tx.notes;
  }
  const request: FixRequest = fixRequestOf(args);
  const rules = runs[0]?.request.options;
  const left = capLeftovers(outcome, rules ?? {}, args.max_per_rule ?? Infinity);
  const { other_diffs: _none, ...fields } = lintFixFields(ctx, left.outcome, request, started);
  const display = displayPaths(args.path, ctx.allowlist.roots.effective);
  return {
    success: true,
    dry_run: args.dry_run,
    projects: runs.map((r) => ({ path: display.show(r.request.target) || ".", linter: r.fixer.name })),
    ...fields,
    issue_count: left.total,
    summary: {
      ...fields.summary,
      target_file_count: outcome.filesInScope ?? outcome.files.length,
      offense_count: left.total,
      unreported_offenses: left.unreported,
      error_count: outcome.files.reduce((n, f) => n + (f.errors?.length ?? 0), 0),
    },
    transaction,
    notes: [...notes, ...outcome.notes, ...txNotes],
    ...(await leftoverSarif(ctx, args.output, "lint_fix", left.outcome, args.path)),
  };
}

type LintFixArgs = {
  path: string;
  files?: string[];
  safety: FixRequest["safety"];
  dry_run: boolean;
  config?: string;
  output: "json" | "sarif";
  contextual?: boolean;
  max_per_rule?: number;
} & ListingArgs &
  Record<string, unknown>;

/** A write tool that found nothing to work on: no pass, no transaction, nothing written. */
export function nothingToFix(dryRun: boolean, notes: string[], why: string | undefined) {
  return {
    success: true,
    nothing_checked: true,
    dry_run: dryRun,
    changed_files: [],
    notes: [...notes, `checked nothing: ${why ?? "nothing to fix"}; nothing was written`],
  };
}

/**
 * The problems left, in the rule scope, listed at most `max` per rule across files (counts per file stay
 * full); `unreported` counts the rest per rule.
 */
export function capLeftovers(outcome: FixOutcome, options: FixOptions, max: number) {
  const seen = new Map<string, number>();
  const unreported: Record<string, number> = {};
  let total = 0;
  const files = outcome.files.map((f) => {
    const inScope = f.messages.filter((m) => inRuleScope(m.rule_id ?? "", options.rules));
    total += inScope.length;
    const messages = inScope.filter((m) => {
      const rule = m.rule_id ?? "";
      const n = (seen.get(rule) ?? 0) + 1;
      seen.set(rule, n);
      if (n <= max) return true;
      unreported[rule] = (unreported[rule] ?? 0) + 1;
      return false;
    });
    return {
      ...f,
      errorCount: inScope.filter((m) => m.severity === "error").length,
      warningCount: inScope.filter((m) => m.severity === "warning").length,
      messages,
    };
  });
  return { outcome: { ...outcome, files }, unreported, total };
}

/** Fixers whose `files` scope their fixes (how `changed` reaches them). */
const FIXERS_TAKING_FILES = new Set(["ruff", "eslint"]);

/** Listed only once a fixer is registered. */
export const lintFixTool = () => {
  const names = fixerNames();
  if (names.length === 0) return undefined;
  return defineTool({
    name: "lint_fix",
    description: "Apply lint fixes as a transaction (undo: rollback); lists the problems left.",
    input: z.strictObject({
      ...fixArguments(names),
      ...AGENT_ARGS,
      contextual: z.boolean().optional().describe("false: hold back unused-code removals"),
    }),
    annotations: { title: "Apply lint fixes", ...WRITES_FILES },
    paths: [{ arg: "path", kind: "any", mayBeMissing: true }, PATH_AND_CONFIG[1]!],
    async handler(args, ctx) {
      const picked = fixerOfCall(
        args.path,
        args.linter,
        args.source_code !== undefined,
        ctx.allowlist.rootOf(args.path),
      );
      if (!picked.fixer) return nothingToFix(args.dry_run, picked.notes, picked.nothing);
      if (picked.placements) return fixProjects(ctx, args, picked.placements, picked.notes);
      const fixer = picked.fixer;
      const started = performance.now();
      const agent = await resolveAgentArgs(ctx, args, fixer, {
        fixing: true,
        takesFiles: FIXERS_TAKING_FILES.has(fixer.name),
      });
      // Inline code has no files to look for; otherwise a fixer with no file of its languages fixes nothing.
      if (
        args.source_code === undefined &&
        !fixer.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage))
      )
        return nothingToFix(
          args.dry_run,
          [...picked.notes, ...agent.notes],
          `${fixer.name} fixes ${fixer.languages.join(", ")} and there are no such files under ${args.path}`,
        );
      const notes = [...picked.notes, ...agent.notes];
      if (args.contextual !== undefined && !fixer.capabilities?.contextual)
        notes.push(`${fixer.name} has no corrections it holds back: contextual changes nothing`);
      const options: FixOptions = { ...agent.options, contextual: args.contextual };
      if (agent.nothingChanged)
        return {
          success: true,
          nothing_checked: true,
          dry_run: args.dry_run,
          changed_files: [],
          notes: [...notes, "no file changed"],
        };
      const request: FixRequest = { ...fixRequestOf(args), options };
      if (options.changedFiles) {
        // Fixers that take `files` get the changed ones; RuboCop's and clippy's adapters read
        // options.changedFiles themselves; any other would fix more than was changed, so it is refused.
        if (FIXERS_TAKING_FILES.has(fixer.name))
          request.files = changedAsFiles(args.path, options.changedFiles);
        else if (fixer.name !== "rubocop" && fixer.name !== "clippy")
          throw new ToolError("invalid_input", `${fixer.name} cannot limit its fixes to the changed files`);
      }
      // Inline code is corrected in memory: no transaction, nothing written, the text comes back.
      const fix = options.source
        ? { outcome: await fixer.fix(ctx, { ...request, dryRun: true }), transaction: undefined, txNotes: [] }
        : await applyLintFix(ctx, fixer, request);
      // Left over after a fix: every problem, listed and paged within the budget (whose fair trim already
      // gives every rule its share); max_per_rule caps them per rule, the rest counted as unreported.
      const left = capLeftovers(fix.outcome, options, options.maxPerRule ?? Infinity);
      const { other_diffs: _none, ...fields } = lintFixFields(ctx, left.outcome, request, started);
      return {
        success: true,
        dry_run: args.dry_run,
        ...(options.source
          ? {
              corrected_source: fix.outcome.correctedSource,
              corrected: fix.outcome.correctedSource !== options.source.code,
            }
          : {}),
        ...fields,
        issue_count: left.total,
        summary: {
          ...fields.summary,
          target_file_count: fix.outcome.filesInScope ?? fix.outcome.files.length,
          offense_count: left.total,
          unreported_offenses: left.unreported,
          error_count: fix.outcome.files.reduce((n, f) => n + (f.errors?.length ?? 0), 0),
        },
        transaction: fix.transaction,
        notes: [...notes, ...fix.outcome.notes, ...fix.txNotes],
        ...(await leftoverSarif(ctx, args.output, fixer.name, left.outcome, request.target)),
      };
    },
  });
};
