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
import { fileFilter } from "./file-filter.js";
import { matchedFiles } from "./files-matched.js";
import { Allowlist, isWithin } from "../../paths/allowlist.js";
import { projectRootOf } from "../../paths/project-root.js";
import { scratchProject, type ScratchProject } from "../../fix/scratch-project.js";
import { workerPool } from "../../adapters/js/warm.js";

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
      const root = ctx.allowlist.rootOf(args.path);
      const chosen = fixerOfCall(args.path, args.linter, false, root);
      // One transaction verified by one type check: a path holding several projects is fixed per project.
      if (chosen.placements)
        return nothingToFix(
          args.dry_run,
          chosen.notes,
          `${args.path} holds several projects (${chosen.placements.map((p) => path.relative(args.path, p.target) || ".").join(", ")}): fix_all fixes, formats and verifies one; call it with each project's path`,
        );
      const fixer = chosen.fixer;
      if (fixer && !fixer.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage)))
        return nothingToFix(
          args.dry_run,
          chosen.notes,
          `${fixer.name} fixes ${fixer.languages.join(", ")} and there are no such files under ${args.path}`,
        );
      // Without a lint fixer of the project's own (flake8, go vet), fix_all still formats with the project's
      // formatter and verifies: never another tool's fixes.
      const own = fixer ? fixer.languages : projectLanguages(args.path).slice(0, 1);
      // The language whose checker verifies: the project's weightiest one among the fixer's.
      const language =
        projectLanguages(args.path).find((l) => own.includes(l)) ?? (own[0] as string | undefined);
      if (!language) return nothingToFix(args.dry_run, chosen.notes, chosen.nothing);
      const scope = formattersInScope(own, args.path, args.formatter, root);
      const formatters = scope.formatters;
      if (args.formatter && formatters.length === 0)
        throw new ToolError("invalid_input", `formatter ${args.formatter} does not format ${own.join("/")}`);
      if (!fixer && formatters.length === 0)
        return nothingToFix(args.dry_run, [...chosen.notes, ...scope.skipped], chosen.nothing);
      const picked = args.skip_typecheck
        ? { checker: undefined }
        : typeCheckerFor(ctx, language, args.path, args.checker);
      const checker = picked.checker;
      if (args.checker && !checker) throw new ToolError("invalid_input", `unknown checker ${args.checker}`);
      const notes: string[] = [
        ...chosen.notes,
        ...(fixer
          ? []
          : [`no lint fix: ${chosen.nothing ?? "no lint fixer"}; formatting and verifying only`]),
      ];
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
        // The verification the real run makes, made on a scratch copy with the fixes and formatting applied.
        const dry = checker
          ? await verifyDryRun(ctx, {
              fixer,
              formatters,
              checker,
              request,
              autoRollback: args.auto_rollback,
              baseline: true,
            })
          : undefined;
        if (checker && dry && "unverified" in dry)
          notes.push(
            `dry run: the type check (${checker.name}) could not be run on a copy: ${dry.unverified}`,
          );
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
        const { other_diffs, ...fields } = lintFixFields(ctx, lint, request, started, undefined, [
          format?.diff,
        ]);
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
  /** Omitted: no lint fix step (the project's linter has no fixer); formatting and verification only. */
  fixer?: FixerAdapter;
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
/** fix_all's write steps (the lint fix, then formatting) for a request, and what the formatters cover. */
function fixSteps(ctx: ToolContext, spec: FixAllSteps) {
  const { fixer, request } = spec;
  const formatters = spec.formatters ?? [];
  // With `files`, the formatter covers every file in that scope, not only the ones the lint fix changes.
  const formatTargets = async () =>
    request.files
      ? fixer
        ? ((await fixer.scope?.(ctx, request)) ?? (await fixer.candidates(ctx, request)))
        : filesOfRequest(ctx, request)
      : [request.target];
  const steps = async (step: Pick<TxHandle, "afterWriteStep" | "beforeWriteStep">) => {
    const lint = fixer ? await fixer.fix(ctx, request) : noLintFix();
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
  return { formatters, formatTargets, steps };
}

const NO_STEP_HOOKS = { afterWriteStep: async () => {}, beforeWriteStep: async () => {} };

/**
 * The verification of a fix: the type check after it, failing on errors the check `before` it did not
 * report (by file, rule and message) when there is a baseline, else on any error (seed 001's rule).
 */
function verifyCheck(
  ctx: ToolContext,
  checker: TypeCheckerAdapter,
  target: string,
  after: TypeCheckOutcome,
  before: TypeCheckOutcome | undefined,
): { typeCheck: ReturnType<typeof typeCheckFields>; verification: Verification } {
  const typeCheck = typeCheckFields(ctx, checker, after, target);
  const check = `type check (${checker.name})`;
  if (before) {
    const introduced = newDiagnostics(before.findings, after.findings);
    const first = introduced[0];
    const display = displayPaths(target, ctx.allowlist.roots.effective);
    return {
      typeCheck,
      verification: {
        passed: introduced.length === 0,
        check,
        reason: first
          ? `${introduced.length} new error(s), first: ${findingToIssue(first, display.show(first.file))}`
          : undefined,
      },
    };
  }
  return {
    typeCheck,
    verification: {
      passed: typeCheck.passed,
      check,
      reason: typeCheck.passed
        ? undefined
        : `${typeCheck.summary.errors} error(s)${typeCheck.issues[0] ? `, first: ${typeCheck.issues[0]}` : ""}`,
    },
  };
}

/** The note on the type errors a baseline found before the fix. */
function baselineNoteOf(
  ctx: ToolContext,
  checker: TypeCheckerAdapter | undefined,
  target: string,
  before: TypeCheckOutcome | undefined,
): string | undefined {
  const existing = before?.findings.filter((f) => f.severity === "error") ?? [];
  if (!before || !existing.length) return undefined;
  const display = displayPaths(target, ctx.allowlist.roots.effective);
  return (
    `${existing.length} type error(s) were there before the fix and do not count against it (${checker?.name}): ` +
    existing
      .slice(0, 5)
      .map((f) => findingToIssue(f, display.show(f.file)))
      .join("; ") +
    (existing.length > 5 ? "; ..." : "")
  );
}

/** What a dry run's verification found: the real run's type check and verdict, or why it could not run. */
export type DryRunVerification =
  | {
      typeCheck: ReturnType<typeof typeCheckFields>;
      verification: Verification;
      baselineNote?: string;
    }
  | { unverified: string };

/**
 * A dry run's verification, as the real run makes it: in a scratch copy of the project (scratch-project.ts)
 * the baseline check, the fixes and formatting written, then the type check; its findings, command and
 * notes put back in the project's paths. Nothing is written in the project; checkers run cold (no daemon
 * is left for the copy) and the warm workers the copy started are retired with it.
 */
export async function verifyDryRun(ctx: ToolContext, spec: FixAllSteps): Promise<DryRunVerification> {
  const checker = spec.checker as TypeCheckerAdapter;
  const { request } = spec;
  const root = ctx.allowlist.rootOf(request.target) ?? request.target;
  const project = projectRootOf(request.target, root);
  let copy: ScratchProject;
  try {
    copy = scratchProject(project);
  } catch (err) {
    return { unverified: err instanceof Error ? err.message : String(err) };
  }
  try {
    const sctx: ToolContext = {
      ...ctx,
      allowlist: new Allowlist([...ctx.allowlist.roots.effective, copy.root], ctx.allowlist.cwd),
      config: { ...ctx.config, warmCheckers: false },
    };
    const inCopy = (p: string | undefined) => (p && isWithin(project, p) ? copy.toScratch(p) : p);
    const target = copy.toScratch(request.target);
    const srequest: FixRequest = {
      ...request,
      target,
      files: request.files?.map((f) => (path.isAbsolute(f) ? (inCopy(f) as string) : f)),
      config: inCopy(request.config),
      dryRun: false,
      args: {
        ...request.args,
        path: target,
        ...(request.config && { config: inCopy(request.config) }),
        dry_run: false,
      },
    };
    const check = () => checker.check(sctx, { target, strict: false, args: {} });
    const before = spec.baseline ? await check().catch(() => undefined) : undefined;
    await fixSteps(sctx, { ...spec, request: srequest }).steps(NO_STEP_HOOKS);
    const after = await check();
    const back = (o: TypeCheckOutcome | undefined): TypeCheckOutcome | undefined =>
      o && (JSON.parse(copy.realText(JSON.stringify(o))) as TypeCheckOutcome);
    const real = back(after) as TypeCheckOutcome;
    const baseline = back(before);
    return {
      ...verifyCheck(ctx, checker, request.target, real, baseline),
      baselineNote: baselineNoteOf(ctx, checker, request.target, baseline),
    };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return { unverified: copy.realText(err.message) };
  } finally {
    workerPool(ctx).retireUnder(copy.root);
    copy.remove();
  }
}

export async function runFixAll(ctx: ToolContext, spec: FixAllSteps): Promise<FixAllRun> {
  const { fixer, checker, request } = spec;
  const { formatters, formatTargets, steps } = fixSteps(ctx, spec);
  if (request.dryRun) return steps(NO_STEP_HOOKS);

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
      const files = new Set(fixer ? await fixer.candidates(ctx, request) : []);
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
          const verified = verifyCheck(ctx, checker, request.target, typeCheckOutcome, before);
          typeCheck = verified.typeCheck;
          return verified.verification;
        }
      : undefined,
  });
  const baselineNote = baselineNoteOf(ctx, checker, request.target, before);
  return {
    ...tx.value,
    typeCheck,
    typeCheckOutcome,
    transaction: tx.transaction,
    txNotes: tx.notes,
    baselineNote,
  };
}

/** The lint step of a fix_all without a lint fixer: nothing fixed, nothing left to report. */
function noLintFix(): FixOutcome {
  return { files: [], changed_files: [], command: "", notes: [] };
}

/** The files a request's `files` names (plain paths or globs under its target), for the format step. */
function filesOfRequest(ctx: ToolContext, request: FixRequest): string[] {
  const filter = fileFilter(ctx, request.target, request.files) as (file: string) => boolean;
  return matchedFiles(request.target, filter, request.files ?? [], "fix_all");
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
