import path from "node:path";
import { z } from "zod";
import { BY_LANGUAGE_DOC } from "./arg-docs.js";
import { ToolError } from "../../errors.js";
import { defineTool, type ToolContext, WRITES_FILES, PATH_AND_CONFIG } from "../../engine/tool.js";
import { fixerNames, type FixerAdapter, type FixOutcome, type FixRequest } from "../../adapters/fixers.js";
import { findFormatter, type FormatterAdapter } from "../../adapters/formatters.js";
import {
  findTypeChecker,
  typeCheckerNames,
  type TypeCheckerAdapter,
  type TypeCheckOutcome,
} from "../../adapters/type-checkers.js";
import { displayPaths, rebaseDiff } from "../../findings/display-path.js";
import { countBySeverity, findingToIssue, type Finding } from "../../findings/model.js";
import { findingsView } from "../../findings/views.js";
import { hasFilesOf, projectLanguages, type ProjectLanguage } from "../../adapters/project-languages.js";
import { formatterFor, typeCheckersFor } from "../../adapters/tool-choice.js";
import {
  runTransaction,
  type TransactionReport,
  type TxHandle,
  type Verification,
} from "../../fix/transaction.js";
import {
  fixArguments,
  fixerOfCall,
  fixRequestOf,
  leftoverSarif,
  lintFixFields,
  nothingToFix,
} from "./lint-fix.js";
import { listingOf, type ListingArgs } from "./listing.js";
import { listWithin } from "../../findings/budget.js";

/**
 * The checker that verifies a fix: the one named, else the language's default (the first that claims the
 * target) when it is installed, else the next one that is — a verification that cannot start is no use.
 */
export function typeCheckerFor(
  ctx: ToolContext,
  language: string,
  target: string,
  name: string | undefined,
): { checker: TypeCheckerAdapter | undefined; note?: string } {
  if (name) return { checker: findTypeChecker(name) };
  const forLanguage = typeCheckerNames()
    .map((n) => findTypeChecker(n) as TypeCheckerAdapter)
    .filter((c) => c.languages.includes(language));
  // The project's own checkers first (tool-choice.ts), then the others of its language.
  const own = typeCheckersFor(language as ProjectLanguage, target, ctx.allowlist.rootOf(target)).map(
    (n) => findTypeChecker(n) as TypeCheckerAdapter,
  );
  const ordered = [...own, ...forLanguage.filter((c) => !own.includes(c))];
  const preferred = ordered[0];
  const available = ordered.find((c) => c.isAvailable?.(ctx, target) ?? true);
  if (!preferred || !available || available === preferred) return { checker: preferred };
  return {
    checker: available,
    note: `${preferred.name} is not installed: the fix was verified with ${available.name}`,
  };
}

function typeCheckFields(
  ctx: ToolContext,
  checker: TypeCheckerAdapter,
  outcome: TypeCheckOutcome,
  target: string,
) {
  const counts = countBySeverity(outcome.findings);
  const issues = findingsView(
    outcome.findings.filter((f) => f.severity !== "info"),
    { display: displayPaths(target, ctx.allowlist.roots.effective) },
  );
  return {
    checker: checker.name,
    passed: outcome.passed && counts.error === 0,
    command: outcome.command,
    issues: issues.issues,
    issue_count: counts.error + counts.warning,
    summary: { errors: counts.error, warnings: counts.warning, info: counts.info },
    returncode: outcome.returncode,
    output: outcome.findings.length === 0 && !outcome.passed ? outcome.output : undefined,
    notes: outcome.notes,
  };
}

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
      const chosen = fixerOfCall(args.path, args.linter);
      if (!chosen.fixer) return nothingToFix(args.dry_run, chosen.notes, chosen.nothing);
      const fixer = chosen.fixer;
      if (!fixer.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage)))
        return nothingToFix(
          args.dry_run,
          chosen.notes,
          `${fixer.name} fixes ${fixer.languages.join(", ")} and there are no such files under ${args.path}`,
        );
      // The language whose checker verifies: the project's weightiest one among the fixer's.
      const language =
        projectLanguages(args.path).find((l) => fixer.languages.includes(l)) ??
        (fixer.languages[0] as string);
      const scope = formattersInScope(
        fixer.languages,
        args.path,
        args.formatter,
        ctx.allowlist.rootOf(args.path),
      );
      const formatters = scope.formatters;
      if (args.formatter && formatters.length === 0)
        throw new ToolError(
          "invalid_input",
          `formatter ${args.formatter} does not format ${fixer.languages.join("/")}`,
        );
      const picked = args.skip_typecheck
        ? { checker: undefined }
        : typeCheckerFor(ctx, language, args.path, args.checker);
      const checker = picked.checker;
      if (args.checker && !checker) throw new ToolError("invalid_input", `unknown checker ${args.checker}`);
      const notes: string[] = [...chosen.notes];
      for (const reason of scope.skipped) notes.push(`formatting skipped for ${reason}`);
      if (formatters.length === 0 && scope.skipped.length === 0)
        notes.push(`no formatter is registered for ${language}: formatting skipped`);
      if (args.skip_typecheck) notes.push("type check skipped (skip_typecheck): the fix was not verified");
      else if (!checker)
        notes.push(
          `no type checker is registered for ${language}: type check skipped, the fix was not verified`,
        );

      const started = performance.now();
      const request = fixRequestOf(args);
      const run = await runFixAll(ctx, {
        fixer,
        formatters,
        checker,
        request,
        autoRollback: args.auto_rollback,
        baseline: true,
      });
      const { lint, format, typeCheck, transaction } = run;
      if (!transaction) {
        notes.push("dry run: nothing was written; the format diff is of the files before the lint fixes");
        if (checker) notes.push(`dry run: the type check (${checker.name}) was not run`);
        // The lint fix's and the formatter's diffs page together, within the budget.
        const { other_diffs, ...fields } = lintFixFields(ctx, lint, request, started, undefined, [
          format?.diff,
        ]);
        return {
          success: true,
          dry_run: true,
          ...fields,
          format: format && formatFields(ctx, args, format, other_diffs[0] || undefined),
          notes: [...new Set([...lint.notes, ...(format?.notes ?? []), ...notes])],
          ...(await leftoverSarif(ctx, args.output, fixer.name, lint, request.target)),
        };
      }
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
        ...(await leftoverSarif(ctx, args.output, fixer.name, lint, request.target)),
      };
    },
  });
};

/**
 * fix_all's `format` under the budget: its changed files as many as fit an eighth of it (`changed_count`
 * counts them all), its diff as paged with the lint fix's, its notes only once (in the result's `notes`).
 */
function formatFields(
  ctx: ToolContext,
  args: ListingArgs,
  format: Awaited<ReturnType<typeof runFormatters>>,
  diff: string | undefined,
) {
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

/**
 * The formatters of fix_all's format step: the one named, else each language's own (tool-choice.ts: Prettier
 * only where the project uses it), for every language the fixer covers that has files under the target
 * (ESLint's fixes: Prettier for .js and for .ts files). `skipped` says which languages get no format step.
 */
export function formattersInScope(
  languages: readonly string[],
  target: string,
  name: string | undefined,
  root?: string,
): { formatters: FormatterAdapter[]; skipped: string[] } {
  const inScope = languages.filter((l) => hasFilesOf(target, l as ProjectLanguage));
  const formatters: FormatterAdapter[] = [];
  const skipped: string[] = [];
  for (const l of inScope.length ? inScope : languages.slice(0, 1)) {
    if (name) {
      const f = findFormatter(l, name);
      if (f) formatters.push(f);
      continue;
    }
    const own = formatterFor(l as ProjectLanguage, target, root);
    const f = own.name ? findFormatter(l, own.name) : undefined;
    if (f) formatters.push(f);
    else if (own.reason) skipped.push(own.reason);
  }
  return { formatters, skipped };
}

export interface FixAllSteps {
  fixer: FixerAdapter;
  /** Empty or omitted: no format step (the eslint-typescript drop-in: lint_fix then typecheck). */
  formatters?: FormatterAdapter[];
  /** Omitted: no verification. */
  checker?: TypeCheckerAdapter;
  request: FixRequest;
  autoRollback: boolean;
  /** The transaction's tool name in the audit. */
  tool?: string;
  /**
   * Verify only what the fix changed: the checker also runs before the fix, and only diagnostics it did not
   * report then (by file, rule and message, whatever their line) fail the verification. Off: any failure
   * after the fix fails it (seed 001's rule).
   */
  baseline?: boolean;
}

export interface FixAllRun {
  lint: FixOutcome;
  format?: Awaited<ReturnType<typeof runFormatters>>;
  /** The verifying type check (not run in a dry run). */
  typeCheck?: ReturnType<typeof typeCheckFields>;
  typeCheckOutcome?: TypeCheckOutcome;
  transaction?: TransactionReport;
  txNotes?: string[];
  /** What the baseline found before the fix (errors that were already there), as a note. */
  baselineNote?: string;
}

/**
 * fix_all's pipeline: lint fixes, then formatting, then the type check, in one transaction that rolls
 * back when the check fails and autoRollback is on. A dry run runs the fix steps without writing or
 * locking and skips the check. Shared by the core `fix_all` and the eslint-typescript drop-in.
 */
export async function runFixAll(ctx: ToolContext, spec: FixAllSteps): Promise<FixAllRun> {
  const { fixer, checker, request } = spec;
  const formatters = spec.formatters ?? [];
  // With `files`, the formatter covers every file in that scope, not only the ones the lint fix changes.
  const formatTargets = async () =>
    request.files
      ? ((await fixer.scope?.(ctx, request)) ?? (await fixer.candidates(ctx, request)))
      : [request.target];
  const steps = async (step: Pick<TxHandle, "afterWriteStep" | "beforeWriteStep">) => {
    const lint = await fixer.fix(ctx, request);
    await step.afterWriteStep();
    let format: Awaited<ReturnType<typeof runFormatters>> | undefined;
    if (formatters.length) {
      const targets = await formatTargets();
      await step.beforeWriteStep();
      format = await runFormatters(ctx, formatters, targets, request.dryRun);
      await step.afterWriteStep();
    }
    return { lint, format };
  };
  const noop = async () => {};
  if (request.dryRun) return steps({ afterWriteStep: noop, beforeWriteStep: noop });

  let typeCheck: ReturnType<typeof typeCheckFields> | undefined;
  let typeCheckOutcome: TypeCheckOutcome | undefined;
  let before: TypeCheckOutcome | undefined;
  const check = () =>
    (checker as TypeCheckerAdapter).check(ctx, { target: request.target, strict: false, args: {} });
  const tx = await runTransaction(ctx, {
    tool: spec.tool ?? "fix_all",
    target: request.target,
    autoRollback: spec.autoRollback,
    candidates: async () => {
      const files = new Set(await fixer.candidates(ctx, request));
      for (const formatter of formatters)
        for (const target of await formatTargets()) {
          const check = await formatter.check(ctx, { target, diff: false });
          for (const f of check.unformatted_files) files.add(path.resolve(ctx.config.cwd, f));
        }
      return [...files];
    },
    work: async (handle) => {
      // A checker that cannot start fails after the fix, as without a baseline (the transaction restores).
      if (checker && spec.baseline) before = await check().catch(() => undefined);
      return steps(handle);
    },
    verify: checker
      ? async (): Promise<Verification> => {
          typeCheckOutcome = await check();
          typeCheck = typeCheckFields(ctx, checker, typeCheckOutcome, request.target);
          if (before) {
            const introduced = newDiagnostics(before.findings, typeCheckOutcome.findings);
            const first = introduced[0];
            const display = displayPaths(request.target, ctx.allowlist.roots.effective);
            return {
              passed: introduced.length === 0,
              check: `type check (${checker.name})`,
              reason: first
                ? `${introduced.length} new error(s), first: ${findingToIssue(first, display.show(first.file))}`
                : undefined,
            };
          }
          return {
            passed: typeCheck.passed,
            check: `type check (${checker.name})`,
            reason: typeCheck.passed
              ? undefined
              : `${typeCheck.summary.errors} error(s)${typeCheck.issues[0] ? `, first: ${typeCheck.issues[0]}` : ""}`,
          };
        }
      : undefined,
  });
  const existing = before?.findings.filter((f) => f.severity === "error") ?? [];
  const baselineNote =
    before && existing.length
      ? `${existing.length} type error(s) were there before the fix and do not count against it (${checker?.name}): ` +
        existing
          .slice(0, 5)
          .map((f) =>
            findingToIssue(f, displayPaths(request.target, ctx.allowlist.roots.effective).show(f.file)),
          )
          .join("; ") +
        (existing.length > 5 ? "; ..." : "")
      : undefined;
  return {
    ...tx.value,
    typeCheck,
    typeCheckOutcome,
    transaction: tx.transaction,
    txNotes: tx.notes,
    baselineNote,
  };
}

/** A diagnostic's identity across a fix: file, rule and message, not its line (fixes shift lines). */
function diagnosticKey(f: Finding): string {
  return `${f.file}\0${f.rule_id}\0${f.message}`;
}

/** The errors of `after` that `before` did not have (as many times as they were there). */
export function newDiagnostics(before: readonly Finding[], after: readonly Finding[]): Finding[] {
  const seen = new Map<string, number>();
  for (const f of before)
    if (f.severity === "error") seen.set(diagnosticKey(f), (seen.get(diagnosticKey(f)) ?? 0) + 1);
  return after.filter((f) => {
    if (f.severity !== "error") return false;
    const k = diagnosticKey(f);
    const n = seen.get(k) ?? 0;
    if (n > 0) {
      seen.set(k, n - 1);
      return false;
    }
    return true;
  });
}

async function runFormatters(
  ctx: ToolContext,
  formatters: readonly FormatterAdapter[],
  targets: string[],
  dryRun: boolean,
) {
  const changed: string[] = [];
  const diffs: string[] = [];
  const notes = new Set<string>();
  const commands: string[] = [];
  for (const formatter of formatters)
    for (const target of targets) {
      const out = await formatter.write(ctx, { target, diff: dryRun, dryRun });
      changed.push(...out.changed_files.map((f) => path.resolve(ctx.config.cwd, f)));
      if (out.diff)
        diffs.push(rebaseDiff(out.diff, ctx.config.cwd, displayPaths(target, ctx.allowlist.roots.effective)));
      for (const n of out.notes) notes.add(n);
      if (out.command && !commands.includes(out.command)) commands.push(out.command);
    }
  if (targets.length === 0) notes.add("nothing in scope to format");
  return {
    formatter: [...new Set(formatters.map((f) => f.formatter))].join(", "),
    command: commands.join(" && "),
    changed_files: [...new Set(changed)],
    diff: dryRun ? diffs.join("") : undefined,
    notes: [...notes],
  };
}
