import path from "node:path";
import { z } from "zod";
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
import { displayPaths } from "../../findings/display-path.js";
import { countBySeverity } from "../../findings/model.js";
import { findingsView } from "../../findings/views.js";
import { runTransaction, type TransactionReport, type Verification } from "../../fix/transaction.js";
import { fixArguments, fixRequestOf, leftoverSarif, lintFixFields, requireFixer } from "./lint-fix.js";

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
  const ordered = [
    ...forLanguage.filter((c) => c.claims?.(target)),
    ...forLanguage.filter((c) => !c.claims?.(target)),
  ];
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
    description:
      "Apply lint fixes, then format, then type-check, as one transaction (project lock, snapshot, audit). " +
      "When the type check fails and auto_rollback is on (default), every written file is restored byte for " +
      "byte before the lock is released, and the result says which check failed and what was restored. " +
      "`dry_run: true` writes nothing and takes no lock.",
    input: z.strictObject({
      ...fixArguments(names),
      formatter: z.string().optional().describe("Formatter (default: the language's default)"),
      checker: z.string().optional().describe("Type checker used to verify (default: the language's)"),
      skip_typecheck: z.boolean().default(false).describe("Do not verify with a type check"),
      auto_rollback: z.boolean().default(true).describe("Restore every written file when verification fails"),
    }),
    annotations: { title: "Fix, format and verify", ...WRITES_FILES },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const fixer = requireFixer(args.linter);
      const language = fixer.languages[0] as string;
      const formatter = findFormatter(language, args.formatter);
      if (args.formatter && !formatter)
        throw new ToolError("invalid_input", `formatter ${args.formatter} does not format ${language}`);
      const picked = args.skip_typecheck
        ? { checker: undefined }
        : typeCheckerFor(ctx, language, args.path, args.checker);
      const checker = picked.checker;
      if (args.checker && !checker) throw new ToolError("invalid_input", `unknown checker ${args.checker}`);
      const notes: string[] = picked.note ? [picked.note] : [];
      if (!formatter) notes.push(`no formatter is registered for ${language}: formatting skipped`);
      if (args.skip_typecheck) notes.push("type check skipped (skip_typecheck): the fix was not verified");
      else if (!checker)
        notes.push(
          `no type checker is registered for ${language}: type check skipped, the fix was not verified`,
        );

      const started = performance.now();
      const request = fixRequestOf(args);
      const run = await runFixAll(ctx, {
        fixer,
        formatter,
        checker,
        request,
        autoRollback: args.auto_rollback,
      });
      const { lint, format, typeCheck, transaction } = run;
      if (!transaction) {
        notes.push("dry run: nothing was written; the format diff is of the files before the lint fixes");
        return {
          success: true,
          dry_run: true,
          ...lintFixFields(ctx, lint, request, started),
          format,
          notes: [...new Set([...lint.notes, ...(format?.notes ?? []), ...notes])],
          ...(await leftoverSarif(ctx, args.output, fixer.name, lint, request.target)),
        };
      }
      const rolledBack = transaction.result === "rollback";
      if (rolledBack)
        notes.push(
          `${transaction.rollback_reason}: every written file was restored (${transaction.restored_files?.length ?? 0}); ` +
            "the statuses above describe the fixes that were undone",
        );
      const fields = lintFixFields(ctx, lint, request, started);
      return {
        success: true,
        dry_run: false,
        ...fields,
        passed: !rolledBack && fields.passed && (typeCheck?.passed ?? true),
        format,
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

export interface FixAllSteps {
  fixer: FixerAdapter;
  /** Omitted: no format step (the eslint-typescript drop-in: lint_fix then typecheck). */
  formatter?: FormatterAdapter;
  /** Omitted: no verification. */
  checker?: TypeCheckerAdapter;
  request: FixRequest;
  autoRollback: boolean;
  /** The transaction's tool name in the audit. */
  tool?: string;
}

export interface FixAllRun {
  lint: FixOutcome;
  format?: Awaited<ReturnType<typeof runFormatter>>;
  /** The verifying type check (not run in a dry run). */
  typeCheck?: ReturnType<typeof typeCheckFields>;
  typeCheckOutcome?: TypeCheckOutcome;
  transaction?: TransactionReport;
  txNotes?: string[];
}

/**
 * fix_all's pipeline: lint fixes, then formatting, then the type check, in one transaction that rolls
 * back when the check fails and autoRollback is on. A dry run runs the fix steps without writing or
 * locking and skips the check. Shared by the core `fix_all` and the eslint-typescript drop-in.
 */
export async function runFixAll(ctx: ToolContext, spec: FixAllSteps): Promise<FixAllRun> {
  const { fixer, formatter, checker, request } = spec;
  const formatTargets = async () => (request.files ? await fixer.candidates(ctx, request) : [request.target]);
  const steps = async (afterWriteStep: () => Promise<void>) => {
    const lint = await fixer.fix(ctx, request);
    await afterWriteStep();
    const format = formatter
      ? await runFormatter(ctx, formatter, await formatTargets(), request.dryRun)
      : undefined;
    if (format) await afterWriteStep();
    return { lint, format };
  };
  if (request.dryRun) return steps(async () => {});

  let typeCheck: ReturnType<typeof typeCheckFields> | undefined;
  let typeCheckOutcome: TypeCheckOutcome | undefined;
  const tx = await runTransaction(ctx, {
    tool: spec.tool ?? "fix_all",
    target: request.target,
    autoRollback: spec.autoRollback,
    candidates: async () => {
      const files = new Set(await fixer.candidates(ctx, request));
      if (formatter)
        for (const target of await formatTargets()) {
          const check = await formatter.check(ctx, { target, diff: false });
          for (const f of check.unformatted_files) files.add(path.resolve(ctx.config.cwd, f));
        }
      return [...files];
    },
    work: (handle) => steps(() => handle.afterWriteStep()),
    verify: checker
      ? async (): Promise<Verification> => {
          typeCheckOutcome = await checker.check(ctx, { target: request.target, strict: false, args: {} });
          typeCheck = typeCheckFields(ctx, checker, typeCheckOutcome, request.target);
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
  return { ...tx.value, typeCheck, typeCheckOutcome, transaction: tx.transaction, txNotes: tx.notes };
}

async function runFormatter(
  ctx: ToolContext,
  formatter: FormatterAdapter,
  targets: string[],
  dryRun: boolean,
) {
  const changed: string[] = [];
  const diffs: string[] = [];
  const notes = new Set<string>();
  let command = "";
  for (const target of targets) {
    const out = await formatter.write(ctx, { target, diff: dryRun, dryRun });
    changed.push(...out.changed_files.map((f) => path.resolve(ctx.config.cwd, f)));
    if (out.diff) diffs.push(out.diff);
    for (const n of out.notes) notes.add(n);
    command ||= out.command;
  }
  return {
    formatter: formatter.formatter,
    command,
    changed_files: [...new Set(changed)],
    diff: dryRun ? diffs.join("") : undefined,
    notes: [...notes],
  };
}
