/** What a lint call reports: one linter's own shape, or several linters' findings under one budget. */
import path from "node:path";
import { displayPaths } from "../../../findings/display-path.js";
import { findingsView, issueString } from "../../../findings/views.js";
import { estimateTokens } from "../../../findings/budget.js";
import type { Finding } from "../../../findings/model.js";
import { perFileFields, perFileListingCost } from "../../../findings/file-view.js";
import { listingFields, listingOf, snippetFindings } from "../listing.js";
import { sarifField } from "../sarif-output.js";
import { type ToolContext } from "../../../engine/tool.js";
import { type LintOutcome } from "../../../adapters/linters.js";
import { addTallies, type FindingTally } from "../../../findings/collector.js";
import { cacheFields } from "../../../cache/service.js";
import type { LinterCapabilities, LintOptions } from "../../../adapters/lint-options.js";
import { capPerRule, offenseOf, scopeFindings } from "../lint-scope.js";
import type { LintArgs, LintRun, RanLint } from "./run-lint.js";
import { nothingChecked } from "./nothing-checked.js";
import {
  failureNote,
  projectFailure,
  projectNotes,
  withFailedProjects,
  type ProjectFailure,
} from "../project-failures.js";

/** A linter that failed among several: its `linters[]` entry (no pass, no findings counted) and its error. */
export type FailedLint = ProjectFailure & { linter: string; passed: false; issue_count: 0 };

/** The runs that failed among several, as their `linters[]` entries (each with its project's path). */
export function failedLints(ctx: ToolContext, args: LintArgs, runs: readonly LintRun[]): FailedLint[] {
  const display = displayPaths(args.path, ctx.allowlist.roots.effective);
  return runs.flatMap((r) =>
    r.error
      ? [
          {
            linter: r.linter.name,
            passed: false as const,
            issue_count: 0 as const,
            ...projectFailure(r.error, display.show(r.path) || "."),
          },
        ]
      : [],
  );
}

/** Offenses (seed 003's shape, with corrections) are listed when asked for or when seed 003's arguments are used. */
export function withOffenses(args: LintArgs): boolean {
  return (
    args.format === "full" ||
    args.source_code !== undefined ||
    args.only !== undefined ||
    args.except !== undefined ||
    args.changed !== undefined ||
    args.max_per_rule !== undefined
  );
}

/** The result of a call that ran one linter: that linter's own shape (seed 001's files[] for ESLint). */
export async function singleResult(ctx: ToolContext, args: LintArgs, run: RanLint, pickNotes: string[]) {
  const { linter, outcome, options } = run;
  const inline = args.source_code !== undefined;
  const display = displayPaths(inline ? path.dirname(args.path) : args.path, ctx.allowlist.roots.effective);
  // Rule scope and changed files hold whatever the adapter did; the per-rule cap lists, the rest is counted.
  const scoped = scopeFindings(outcome.findings, options);
  const inScope = new Set(scoped);
  const { capped, beyond } = capWithBeyond(scoped, outcome, options);
  const offenses = withOffenses(args);
  // Each listed finding costs its issue string, its offense when listed, and its files[] entry (ESLint).
  const perFileCost = outcome.perFile && perFileListingCost().cost;
  const listing = listingOf(ctx, args, {
    cost: (f: Finding) =>
      (perFileCost ? perFileCost(f) : estimateTokens(issueString(f))) +
      (offenses ? estimateTokens(offenseOf(f)) : 0),
  });
  const view = findingsView(capped.kept, { display, fingerprints: args.output === "sarif", listing, beyond });
  const perFile =
    outcome.perFile &&
    perFileFields(outcome.perFile, view.all, display.show, {
      listed: view.listed,
      trimmed: view.listing?.trimmed === true,
      paged: view.listing?.page !== undefined,
    });
  const unreported = Object.values(capped.unreported).reduce((a, b) => a + b, 0);
  const extraSummary = (outcome.extra?.summary ?? {}) as Record<string, unknown>;
  return {
    success: true,
    passed: (outcome.returncode ?? 0) === 0 && view.count === 0,
    command: outcome.command,
    issues: outcome.issueText ? view.listed.map((f) => outcome.issueText!(f, f.path ?? f.file)) : view.issues,
    issue_count: view.count + unreported,
    ...(perFile && { files: perFile.files }),
    ...outcome.extra,
    // The adapter's raw `findings` list shows what the call's scope (rules, changed files, `files`) keeps.
    ...(Array.isArray(outcome.extra?.findings) &&
      scoped.length !== outcome.findings.length && {
        findings: (outcome.extra.findings as Finding[]).filter((f) => inScope.has(f)),
      }),
    ...(offenses && { offenses: view.listed.map(offenseOf) }),
    summary: {
      ...extraSummary,
      ...perFile?.summary,
      target_file_count: inline ? 1 : undefined,
      offense_count: view.count + unreported,
      unreported_offenses: capped.unreported,
    },
    returncode: outcome.returncode,
    ...cacheFields(outcome.cache),
    output: outcome.output,
    truncated: outcome.truncated || view.capped || perFile?.capped,
    ...listingFields(linter.name, view, {
      lists: ["issues", ...(offenses ? ["offenses"] : []), ...(args.context_lines ? ["findings"] : [])],
      ...(perFile && { perFile: "files" }),
    }),
    ...snippetFindings(view, args),
    notes: [
      ...pickNotes,
      ...run.notes,
      ...outcome.notes,
      ...capabilityNotes(linter.name, linter.capabilities, options),
    ],
    ...(await sarifField(ctx, args.output, display, [
      { ...outcome, findings: view.all, notes: outcome.notes },
    ])),
  };
}

/**
 * The result of a call that ran several linters (one per language of the project): their findings in one
 * list under one budget, `linters` saying what each ran and found, `passed` only when every one passed.
 */
export async function mergedResult(
  ctx: ToolContext,
  args: LintArgs,
  runs: RanLint[],
  pickNotes: string[],
  failed: readonly FailedLint[] = [],
) {
  const display = displayPaths(args.path, ctx.allowlist.roots.effective);
  // The call covers a project below its path (or one that failed): notes say whose they are.
  const several = failed.length > 0 || runs.some((r) => r.path !== args.path);
  const offenses = withOffenses(args);
  const runOf = new Map<Finding, RanLint>();
  const unreported: Record<string, number> = {};
  const kept: Finding[] = [];
  const perLinter = [];
  let beyond: FindingTally | undefined;
  for (const run of runs) {
    const scoped = scopeFindings(run.outcome.findings, run.options);
    const { capped, beyond: more } = capWithBeyond(scoped, run.outcome, run.options);
    for (const f of capped.kept) runOf.set(f, run);
    kept.push(...capped.kept);
    for (const [rule, n] of Object.entries(capped.unreported)) unreported[rule] = (unreported[rule] ?? 0) + n;
    if (more) beyond = addTallies(beyond, more);
    const count =
      capped.kept.length + Object.values(capped.unreported).reduce((a, b) => a + b, 0) + (more?.count ?? 0);
    perLinter.push({
      linter: run.linter.name,
      ...(run.path !== args.path && { path: display.show(run.path) || "." }),
      command: run.outcome.command,
      returncode: run.outcome.returncode,
      issue_count: count,
      passed: (run.outcome.returncode ?? 0) === 0 && count === 0,
      ...cacheFields(run.outcome.cache),
    });
  }
  const listing = listingOf(ctx, args, {
    cost: (f: Finding) => estimateTokens(issueString(f)) + (offenses ? estimateTokens(offenseOf(f)) : 0),
  });
  const view = findingsView(kept, { display, fingerprints: args.output === "sarif", listing, beyond });
  const total = view.count + Object.values(unreported).reduce((a, b) => a + b, 0);
  const issueOf = (f: Finding) => {
    const text = runOf.get(f)?.outcome.issueText;
    return text ? text(f, f.path ?? f.file) : issueString(f);
  };
  const returncodes = [...runs, ...failed].map((r) =>
    "outcome" in r ? (r.outcome.returncode ?? 0) : (r.returncode ?? 1),
  );
  return {
    success: true,
    // A linter that failed is listed with its error beside the others' results; the call does not pass.
    passed: perLinter.every((l) => l.passed) && failed.length === 0,
    linters: [...perLinter, ...failed],
    command: runs.map((r) => r.outcome.command).join(" && "),
    issues: view.listed.map(issueOf),
    issue_count: total,
    ...(offenses && { offenses: view.listed.map(offenseOf) }),
    summary: { offense_count: total, unreported_offenses: unreported },
    returncode: Math.max(...returncodes),
    output:
      runs
        .map((r) => r.outcome.output)
        .filter(Boolean)
        .join("\n") || undefined,
    truncated: runs.some((r) => r.outcome.truncated) || failed.some((f) => f.truncated) || view.capped,
    ...withFailedProjects(
      listingFields("lint", view, {
        lists: ["issues", ...(offenses ? ["offenses"] : []), ...(args.context_lines ? ["findings"] : [])],
      }),
      failed,
    ),
    ...snippetFindings(view, args),
    notes: [
      ...pickNotes,
      ...failed.map((f) => failureNote(f.linter, f)),
      // Over several projects, each run's notes name its project.
      ...runs.flatMap((r) => {
        const notes = [
          ...r.notes,
          ...r.outcome.notes,
          ...capabilityNotes(r.linter.name, r.linter.capabilities, r.options),
        ];
        return several ? projectNotes(display.show(r.path) || ".", notes) : notes;
      }),
    ],
    ...(await sarifField(
      ctx,
      args.output,
      display,
      runs.map((r) => ({
        ...r.outcome,
        findings: view.all.filter((f) => runOf.get(f) === r),
        notes: r.outcome.notes,
      })),
    )),
  };
}

/**
 * The per-rule cap over the kept findings; findings the adapter counted but did not keep (`beyond`) go to the
 * view's counts, or with a per-rule cap to the rules' unreported counts (they come after every kept one).
 */
function capWithBeyond(scoped: Finding[], outcome: LintOutcome, options: LintOptions) {
  const capped = capPerRule(scoped, options.maxPerRule);
  const beyond = outcome.beyond;
  if (!beyond || options.maxPerRule === undefined) return { capped, beyond };
  for (const [rule, n] of beyond.byRule) capped.unreported[rule] = (capped.unreported[rule] ?? 0) + n;
  return { capped, beyond: undefined };
}

/** What the linter did not do itself of what was asked (the tool layer then did it over its findings). */
export function capabilityNotes(
  name: string,
  caps: LinterCapabilities | undefined,
  options: LintOptions,
): string[] {
  const notes: string[] = [];
  if (!options.source && !options.rules && !options.changedFiles && options.maxPerRule === undefined)
    return notes;
  if (options.rules && !caps?.ruleScope)
    notes.push(`${name} ran all its rules; only/except were applied to its findings`);
  if (!caps?.corrections) notes.push(`${name} does not report correction edits`);
  return notes;
}

/**
 * A lint call that linted nothing: no pass, the notes saying why (`linters`: those that checked nothing,
 * one is named; undefined when none was chosen), and asked for SARIF, a run with no results and the note.
 */
export async function nothingLinted(
  ctx: ToolContext,
  args: LintArgs,
  where: string,
  notes: string[],
  linters: string[] | undefined,
) {
  const only = linters?.length === 1 ? linters[0] : undefined;
  return nothingChecked(
    {
      ...(only && { linter: only }),
      issues: [] as string[],
      issue_count: 0,
      ...(await sarifField(
        ctx,
        args.output,
        displayPaths(where, ctx.allowlist.roots.effective),
        (linters ?? ["lint"]).map((tool) => ({ tool, findings: [], notes })),
      )),
    },
    notes,
  );
}
