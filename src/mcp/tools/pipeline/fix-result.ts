/** What a lint fix reports: the problems left, per-file statuses, changed files and diffs, all within the result budget. */
import type { TransactionReport } from "../../../fix/transaction.js";
import { z } from "zod";
import { displayPaths, rebaseDiff } from "../../../findings/display-path.js";
import type { Finding } from "../../../findings/model.js";
import { findingsView } from "../../../findings/views.js";
import { sarifField } from "../sarif-output.js";
import { filesView, perFileListingCost } from "../../../findings/file-view.js";
import { listingFields, listingOf, type ListingArgs } from "../listing.js";
import { estimateTokens, listWithin, reserveFor } from "../../../findings/budget.js";
import { pageDiffs } from "../../../findings/diff-budget.js";
import type { FixOptions } from "../../../adapters/lint-options.js";
import { inRuleScope } from "../../../adapters/rule-scope.js";
import { type ToolContext } from "../../../engine/tool.js";
import { type FixOutcome, type FixRequest } from "../../../adapters/fixers.js";

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

/**
 * lint_fix's result: the problems left (in the rule scope, `max_per_rule` each, the rest counted), the
 * per-file statuses and diffs within the budget, the transaction, and SARIF of what is left when asked.
 */
export async function lintFixResult(
  ctx: ToolContext,
  args: { dry_run: boolean; output: "json" | "sarif"; max_per_rule?: number },
  fix: { outcome: FixOutcome; transaction?: TransactionReport; txNotes: string[] },
  step: { request: FixRequest; options: FixOptions; notes: string[]; started: number; sarifTool: string },
  extra: Record<string, unknown> = {},
) {
  const { outcome } = fix;
  // Left over after a fix: every problem, listed and paged within the budget (whose fair trim already
  // gives every rule its share); max_per_rule caps them per rule, the rest counted as unreported.
  const left = capLeftovers(outcome, step.options, args.max_per_rule ?? Infinity);
  const { other_diffs: _none, ...fields } = lintFixFields(ctx, left.outcome, step.request, step.started);
  return {
    success: true,
    dry_run: args.dry_run,
    ...extra,
    ...fields,
    issue_count: left.total,
    summary: {
      ...fields.summary,
      target_file_count: outcome.filesInScope ?? outcome.files.length,
      offense_count: left.total,
      unreported_offenses: left.unreported,
      error_count: outcome.files.reduce((n, f) => n + (f.errors?.length ?? 0), 0),
    },
    transaction: fix.transaction,
    notes: [...step.notes, ...outcome.notes, ...fix.txNotes],
    ...(await leftoverSarif(ctx, args.output, step.sarifTool, left.outcome, step.request.target)),
  };
}
