/** How a fix is verified: the type checker that verifies it, the check before and after, a dry run's check on a scratch copy. */
import { type ToolContext } from "../../../engine/tool.js";
import {
  findTypeChecker,
  typeCheckerNames,
  type TypeCheckerAdapter,
  type TypeCheckOutcome,
} from "../../../adapters/type-checkers.js";
import { displayPaths } from "../../../findings/display-path.js";
import { countBySeverity, findingToIssue, type Finding } from "../../../findings/model.js";
import { findingsView } from "../../../findings/views.js";
import { type ProjectLanguage } from "../../../adapters/project-languages.js";
import { typeCheckersFor } from "../../../adapters/tool-choice.js";
import { type Verification } from "../../../fix/transaction.js";
import { ownTypeCheckRoots, relativeDirs } from "../../../adapters/type-check-units.js";
import { mergeTscOutcomes } from "../../../adapters/js/tsc-merge.js";

/**
 * The type check that verifies a fix at `target`: the checker's run there and, for a Python checker, its run
 * at each nested project that configures a type checker itself (type-check-units.ts), which the run around it
 * leaves out: as `type_check` with the checker named, so a fix that breaks a nested project is rolled back.
 */
export async function verifyingCheck(
  ctx: ToolContext,
  checker: TypeCheckerAdapter,
  target: string,
): Promise<TypeCheckOutcome> {
  const run = (at: string) => checker.check(ctx, { target: at, strict: false, args: {} });
  const outer = await run(target);
  if (!checker.languages.includes("python")) return outer;
  const nested = ownTypeCheckRoots(target, ctx.allowlist.rootOf(target) ?? target);
  if (!nested.length) return outer;
  const runs = [outer];
  for (const dir of nested) runs.push(await run(dir));
  return mergeTscOutcomes(
    runs,
    `${checker.name} ran at ${[".", ...relativeDirs(target, nested)].join(", ")} (each nested project with its own configuration)`,
  );
}

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

export function typeCheckFields(
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

/**
 * The verification of a fix: the type check after it, failing on errors the check `before` it did not
 * report (by file, rule and message) when there is a baseline, else on any error (seed 001's rule).
 */
export function verifyCheck(
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
export function baselineNoteOf(
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
