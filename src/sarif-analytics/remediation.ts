/**
 * sarif_remediation_advice's repair packet for one result: the normalized result, the policy layer's advice,
 * guardrails, and the call that re-checks the file after a fix. Pure: it reads no files and runs nothing.
 */
import path from "node:path";
import type { DiagnosticAdvice } from "../policy/advisor.js";
import type { NormalizedLog, NormalizedResult } from "./normalize.js";

export const GUARDRAILS = [
  "Fix the code the result points at; do not weaken, disable or re-scope the rule in the project's lint, type-check or CI configuration.",
  "Do not add broad suppressions (`# noqa` or `# type: ignore` without a code, `eslint-disable` without a rule, `@ts-ignore`, `rubocop:disable all`); a suppression that is truly needed names the one rule and says why.",
  "Do not edit generated configuration, lock files or hash manifests to make the result go away.",
  "After the fix, make the `rerun` call and check that this fingerprint is gone and nothing new appeared.",
];

/** The call that produced a retained trace (its `lint` arguments, paths absolute). */
export interface RecordedCall {
  tool: string;
  arguments: Record<string, unknown>;
}

export interface RerunContext {
  /** Linters `lint` runs (its `linter` values). */
  linters: readonly string[];
  /** Type checkers `type_check` runs (its `checker` values). */
  checkers: readonly string[];
  /** The call a retained trace records, when the SARIF came from one. */
  recorded?: RecordedCall;
  /** Where relative paths are, when the log does not say (the `path` argument). */
  projectRoot?: string;
}

/** Arguments that scope a call to other files than the one re-checked. */
const SCOPE_ARGS = new Set(["path", "files", "output", "retain", "format", "changed", "source_code"]);

export interface Rerun {
  tool: string;
  arguments: Record<string, unknown>;
  note?: string;
}

/** The call that re-checks the result's file with the tool that reported it. */
export function rerunFor(r: NormalizedResult, ctx: RerunContext): Rerun {
  const root = ctx.projectRoot;
  const file =
    r.absolute_path ?? (r.path !== undefined ? (root ? path.join(root, r.path) : r.path) : (root ?? "."));
  const relativeNote =
    r.absolute_path === undefined && r.path !== undefined && !root
      ? `the log does not say where ${r.path} is: the path is relative to the project root`
      : undefined;
  const note = (extra?: string) => {
    const text = [relativeNote, extra].filter(Boolean).join("; ");
    return text ? { note: text } : {};
  };
  if (ctx.recorded) {
    const kept = Object.fromEntries(
      Object.entries(ctx.recorded.arguments).filter(([k]) => !SCOPE_ARGS.has(k)),
    );
    // `lint` named no linter: the one that reported the result is the one the default picked.
    if (ctx.recorded.tool === "lint" && kept.linter === undefined && ctx.linters.includes(r.tool))
      kept.linter = r.tool;
    return { tool: ctx.recorded.tool, arguments: { path: file, ...kept }, ...note() };
  }
  const tool = r.tool.toLowerCase();
  if (ctx.linters.includes(tool)) return { tool: "lint", arguments: { path: file, linter: tool }, ...note() };
  if (ctx.checkers.includes(tool))
    return { tool: "type_check", arguments: { path: file, checker: tool }, ...note() };
  if (tool === "bandit") return { tool: "security_scan", arguments: { path: file }, ...note() };
  return {
    tool: "lint",
    arguments: { path: file },
    ...note(
      `${r.tool} is not a tool this server runs: lint re-checks the file with the project's default linter`,
    ),
  };
}

/** The full normalized result, for the packet. */
function detailed(r: NormalizedResult) {
  const { fallback_key: _fallback, ...rest } = r;
  return rest;
}

export function remediationPacket(
  log: NormalizedLog,
  index: number,
  advice: DiagnosticAdvice,
  ctx: RerunContext,
) {
  const r = log.results[index]!;
  return {
    result_index: index,
    result_count: log.results.length,
    result: detailed(r),
    advice: { provider: "local" as const, ...advice },
    guardrails: GUARDRAILS,
    rerun: rerunFor(r, ctx),
  };
}
