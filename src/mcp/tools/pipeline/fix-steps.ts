/** fix_all's write steps (the lint fix, then formatting) and the transaction that runs and verifies them. */
import path from "node:path";
import { type ToolContext } from "../../../engine/tool.js";
import { type FixerAdapter, type FixOutcome, type FixRequest } from "../../../adapters/fixers.js";
import { findFormatter, type FormatterAdapter } from "../../../adapters/formatters.js";
import { type TypeCheckerAdapter, type TypeCheckOutcome } from "../../../adapters/type-checkers.js";
import { displayPaths, rebaseDiff } from "../../../findings/display-path.js";
import { hasFilesOf, type ProjectLanguage } from "../../../adapters/project-languages.js";
import { formatterFor } from "../../../adapters/tool-choice.js";
import {
  runTransaction,
  type TransactionReport,
  type TxHandle,
  type Verification,
} from "../../../fix/transaction.js";
import { fileFilter } from "../file-filter.js";
import { matchedFiles } from "../files-matched.js";
import { baselineNoteOf, typeCheckFields, verifyCheck, verifyingCheck } from "./verify.js";

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
  format?: FormatOutcome;
  /** The verifying type check (not run in a dry run). */
  typeCheck?: ReturnType<typeof typeCheckFields>;
  typeCheckOutcome?: TypeCheckOutcome;
  transaction?: TransactionReport;
  txNotes?: string[];
  /** What the baseline found before the fix (errors that were already there), as a note. */
  baselineNote?: string;
}

/** fix_all's write steps (the lint fix, then formatting) for a request, and what the formatters cover. */
export function fixSteps(ctx: ToolContext, spec: FixAllSteps) {
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
    let format: FormatOutcome | undefined;
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

export const NO_STEP_HOOKS = { afterWriteStep: async () => {}, beforeWriteStep: async () => {} };

/**
 * fix_all's pipeline: lint fixes, then formatting, then the type check, in one transaction that rolls
 * back when the check fails and autoRollback is on. A dry run runs the fix steps without writing or
 * locking and skips the check. Shared by the core `fix_all` and the eslint-typescript drop-in.
 */
export async function runFixAll(ctx: ToolContext, spec: FixAllSteps): Promise<FixAllRun> {
  const { fixer, checker, request } = spec;
  const { formatters, formatTargets, steps } = fixSteps(ctx, spec);
  if (request.dryRun) return steps(NO_STEP_HOOKS);

  let typeCheck: ReturnType<typeof typeCheckFields> | undefined;
  let typeCheckOutcome: TypeCheckOutcome | undefined;
  let before: TypeCheckOutcome | undefined;
  const check = () => verifyingCheck(ctx, checker as TypeCheckerAdapter, request.target);
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

/** What the format step did. */
export type FormatOutcome = Awaited<ReturnType<typeof runFormatters>>;
