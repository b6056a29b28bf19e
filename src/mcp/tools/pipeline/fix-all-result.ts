/** fix_all's choice of steps and its answers: a dry run's (verified on a scratch copy) and a real run's. */
import path from "node:path";
import { ToolError } from "../../../errors.js";
import { type ToolContext } from "../../../engine/tool.js";
import { hasFilesOf, projectLanguages, type ProjectLanguage } from "../../../adapters/project-languages.js";
import { fixerOfCall } from "./choose.js";
import { fixRequestOf } from "./run-fix.js";
import { leftoverSarif, lintFixFields } from "./fix-result.js";
import { nothingToFix } from "./nothing-checked.js";
import { listingOf, type ListingArgs } from "../listing.js";
import { listWithin } from "../../../findings/budget.js";
import { typeCheckerFor } from "./verify.js";
import { formattersInScope, type FixAllRun, type FixAllSteps, type FormatOutcome } from "./fix-steps.js";
import type { LintFixArgs } from "./run-fix.js";
import type { FixRequest } from "../../../adapters/fixers.js";
import type { TransactionReport } from "../../../fix/transaction.js";
import { verifyDryRun } from "./dry-run-verify.js";

/** fix_all's validated arguments (what its steps read of them). */
export type FixAllArgs = LintFixArgs & {
  linter?: string;
  formatter?: string;
  checker?: string;
  skip_typecheck: boolean;
  auto_rollback: boolean;
};

/** What fix_all will do: its steps, and the notes on what it skips. */
export interface FixAllPlan {
  steps: FixAllSteps & { request: FixRequest };
  notes: string[];
  /** Which checker verifies when the preferred one is not installed. */
  checkerNote?: string;
}

/**
 * fix_all's choice: the project's lint fixer (or none: format and verify only), its formatters and the
 * checker that verifies, with the notes saying what is skipped and why; or the answer when there is
 * nothing to fix.
 */
export function planFixAll(
  ctx: ToolContext,
  args: FixAllArgs,
): FixAllPlan | { nothing: ReturnType<typeof nothingToFix> } {
  const nothingPlan = (...a: Parameters<typeof nothingToFix>) => ({ nothing: nothingToFix(...a) });
  const root = ctx.allowlist.rootOf(args.path);
  const chosen = fixerOfCall(args.path, args.linter, false, root);
  // One transaction verified by one type check: a path holding several projects is fixed per project.
  if (chosen.placements)
    return nothingPlan(
      args.dry_run,
      chosen.notes,
      `${args.path} holds several projects (${chosen.placements.map((p) => path.relative(args.path, p.target) || ".").join(", ")}): fix_all fixes, formats and verifies one; call it with each project's path`,
    );
  const fixer = chosen.fixer;
  if (fixer && !fixer.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage)))
    return nothingPlan(
      args.dry_run,
      chosen.notes,
      `${fixer.name} fixes ${fixer.languages.join(", ")} and there are no such files under ${args.path}`,
    );
  // Without a lint fixer of the project's own (flake8, go vet), fix_all still formats with the project's
  // formatter and verifies: never another tool's fixes.
  const own = fixer ? fixer.languages : projectLanguages(args.path).slice(0, 1);
  // The language whose checker verifies: the project's weightiest one among the fixer's.
  const language = projectLanguages(args.path).find((l) => own.includes(l)) ?? (own[0] as string | undefined);
  if (!language) return nothingPlan(args.dry_run, chosen.notes, chosen.nothing);
  const scope = formattersInScope(own, args.path, args.formatter, root);
  const formatters = scope.formatters;
  if (args.formatter && formatters.length === 0)
    throw new ToolError("invalid_input", `formatter ${args.formatter} does not format ${own.join("/")}`);
  if (!fixer && formatters.length === 0)
    return nothingPlan(args.dry_run, [...chosen.notes, ...scope.skipped], chosen.nothing);
  const picked = args.skip_typecheck
    ? { checker: undefined }
    : typeCheckerFor(ctx, language, args.path, args.checker);
  const checker = picked.checker;
  if (args.checker && !checker) throw new ToolError("invalid_input", `unknown checker ${args.checker}`);
  const notes: string[] = [
    ...chosen.notes,
    ...(fixer ? [] : [`no lint fix: ${chosen.nothing ?? "no lint fixer"}; formatting and verifying only`]),
  ];
  for (const reason of scope.skipped) notes.push(`formatting skipped for ${reason}`);
  if (formatters.length === 0 && scope.skipped.length === 0)
    notes.push(`no formatter is registered for ${language}: formatting skipped`);
  if (args.skip_typecheck) notes.push("type check skipped (skip_typecheck): the fix was not verified");
  else if (!checker)
    notes.push(`no type checker is registered for ${language}: type check skipped, the fix was not verified`);
  return {
    steps: {
      fixer,
      formatters,
      checker,
      request: fixRequestOf(args),
      autoRollback: args.auto_rollback,
      baseline: true,
    },
    notes,
    checkerNote: picked.note,
  };
}

/** A dry run's answer: what the real run would write and say, verified on a scratch copy. */
export async function dryRunResult(
  ctx: ToolContext,
  args: FixAllArgs,
  run: FixAllRun,
  plan: FixAllPlan,
  started: number,
) {
  const { lint, format } = run;
  const { fixer, checker, request } = plan.steps;
  const notes = [...plan.notes];
  const picked = { note: plan.checkerNote };
  notes.push("dry run: nothing was written; the format diff is of the files before the lint fixes");
  // The verification the real run makes, made on a scratch copy with the fixes and formatting applied.
  const dry = checker ? await verifyDryRun(ctx, plan.steps) : undefined;
  if (checker && dry && "unverified" in dry)
    notes.push(`dry run: the type check (${checker.name}) could not be run on a copy: ${dry.unverified}`);
  else if (checker && dry && !("unverified" in dry)) {
    notes.push(
      `dry run: the type check (${checker.name}) ran on a scratch copy of the project with the fixes and formatting applied, as the real run verifies`,
    );
    if (picked.note) notes.push(picked.note);
    if (dry.baselineNote) notes.push(dry.baselineNote);
    if (!dry.verification.passed)
      notes.push(
        `${dry.verification.check} failed: ${dry.verification.reason ?? "it did not pass"}; the real run would ` +
          (args.auto_rollback ? "roll the fix back" : "keep the fix (auto_rollback: false)"),
      );
  }
  // The lint fix's and the formatter's diffs page together, within the budget.
  const { other_diffs, ...fields } = lintFixFields(ctx, lint, request, started, undefined, [format?.diff]);
  const verified = dry && !("unverified" in dry) ? dry : undefined;
  const wouldRollBack = verified ? !verified.verification.passed && args.auto_rollback : undefined;
  // What the real run would say; never a pass that was not verified.
  const passed = verified
    ? !wouldRollBack && fields.passed && verified.typeCheck.passed
    : checker
      ? fields.passed
        ? undefined
        : false
      : fields.passed;
  return {
    success: true,
    dry_run: true,
    ...fields,
    passed,
    ...(verified && { type_check: verified.typeCheck, would_roll_back: wouldRollBack }),
    format: format && formatFields(ctx, args, format, other_diffs[0] || undefined),
    notes: [...new Set([...lint.notes, ...(format?.notes ?? []), ...notes])],
    ...(await leftoverSarif(ctx, args.output, fixer?.name ?? "fix_all", lint, request.target)),
  };
}

/** A real run's answer: what was written, the verification, and whether it was rolled back. */
export async function writtenResult(
  ctx: ToolContext,
  args: FixAllArgs,
  run: FixAllRun & { transaction: TransactionReport },
  plan: FixAllPlan,
  started: number,
) {
  const { lint, format, typeCheck, transaction } = run;
  const { fixer, request } = plan.steps;
  const notes = [...plan.notes];
  const picked = { note: plan.checkerNote };
  // Only now did the check run: say which checker verified the fix.
  if (picked.note && typeCheck) notes.push(picked.note);
  if (run.baselineNote) notes.push(run.baselineNote);
  const rolledBack = transaction.result === "rollback";
  if (rolledBack)
    notes.push(
      `${transaction.rollback_reason}: ${transaction.restored_files?.length ?? 0} written file(s) restored` +
        (transaction.conflicts?.length
          ? `, ${transaction.conflicts.length} changed since they were written left as they are (conflicts)`
          : "") +
        "; " +
        "the statuses above describe the fixes that were undone",
    );
  // [undefined]: the formatter's changed files share the budget too (no diff: nothing was dry).
  const { other_diffs: _none, ...fields } = lintFixFields(ctx, lint, request, started, undefined, [
    undefined,
  ]);
  return {
    success: true,
    dry_run: false,
    ...fields,
    passed: !rolledBack && fields.passed && (typeCheck?.passed ?? true),
    format: format && formatFields(ctx, args, format, undefined),
    type_check: typeCheck,
    rolled_back: rolledBack,
    rollback_reason: transaction.rollback_reason,
    restored_files: transaction.restored_files,
    transaction,
    notes: [...new Set([...lint.notes, ...(format?.notes ?? []), ...notes, ...(run.txNotes ?? [])])],
    ...(await leftoverSarif(ctx, args.output, fixer?.name ?? "fix_all", lint, request.target)),
  };
}

/**
 * fix_all's `format` under the budget: its changed files as many as fit an eighth of it (`changed_count`
 * counts them all), its diff as paged with the lint fix's, its notes only once (in the result's `notes`).
 */
function formatFields(ctx: ToolContext, args: ListingArgs, format: FormatOutcome, diff: string | undefined) {
  const { notes: _notes, ...rest } = format;
  // The same share lintFixFields keeps for it (fixShares).
  const changed = listWithin(format.changed_files, Math.floor(listingOf(ctx, args).maxTokens / 8));
  return {
    ...rest,
    changed_files: changed.items,
    ...(changed.capped && { changed_count: changed.count }),
    diff,
  };
}
