/**
 * sarif_remediation_advice's repair packet for one result: the normalized result, the policy layer's advice,
 * guardrails, and the call that re-checks the file after a fix. Pure: it reads no files and runs nothing.
 */
import path from "node:path";
import type { DiagnosticAdvice } from "../policy/advisor.js";
import type { NormalizedLog, NormalizedResult } from "./normalized.js";

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
  /** Linters lint_check runs (its `tool` values). */
  linters: readonly string[];
  /** Type checkers `type_check` runs (its `checker` values). */
  checkers: readonly string[];
  /** The call a retained trace records, when the SARIF came from one. */
  recorded?: RecordedCall;
  /** Where relative paths are, when the log does not say (the `path` argument). */
  projectRoot?: string;
}

/** Arguments of a recorded call that lint_check has too, or that only scope it to other files. */
const EXPRESSED_BY_LINT_CHECK = new Set([
  "path",
  "files",
  "output",
  "retain",
  "format",
  "changed",
  "source_code",
  "linter",
  "max_result_tokens",
  "offset",
  "limit",
]);

export interface Rerun {
  tool: string;
  arguments: Record<string, unknown>;
  /** The recorded call narrowed to the file, when it set what lint_check cannot (a config file). */
  exact?: { tool: string; arguments: Record<string, unknown> };
  note?: string;
}

/** Where to re-check: lint_check's `path` (a folder) and `files` under it. */
function scope(
  r: NormalizedResult,
  root: string | undefined,
): { path?: string; files: string[]; relative: boolean } {
  if (root && r.absolute_path)
    return { path: root, files: [path.relative(root, r.absolute_path)], relative: false };
  if (root && r.path !== undefined) return { path: root, files: [r.path], relative: false };
  if (r.absolute_path)
    return { path: path.dirname(r.absolute_path), files: [path.basename(r.absolute_path)], relative: false };
  return { files: r.path !== undefined ? [r.path] : [], relative: r.path !== undefined };
}

/**
 * The call that re-checks the result's file after a fix: seed 002's MCP `lint_check` request (`{tool,
 * files}`) for a linter this server runs, `type_check` for a type checker and `security_scan` for bandit
 * (lint_check runs neither). A policy layer's log is re-checked with the tool behind the result (source_tool).
 */
export function rerunFor(r: NormalizedResult, ctx: RerunContext): Rerun {
  const root = ctx.projectRoot;
  const where = scope(r, root);
  const file =
    r.absolute_path ?? (r.path !== undefined ? (root ? path.join(root, r.path) : r.path) : (root ?? "."));
  const relativeNote = where.relative
    ? `the log does not say where ${r.path} is: files are relative to the project root (pass path)`
    : undefined;
  const note = (extra?: string) => {
    const text = [relativeNote, extra].filter(Boolean).join("; ");
    return text ? { note: text } : {};
  };
  const tool = (r.source_tool ?? r.tool).toLowerCase();
  const lintCheck = (linter?: string) => ({
    tool: "lint_check",
    arguments: {
      ...(where.path ? { path: where.path } : {}),
      ...(linter ? { tool: linter } : {}),
      ...(where.files.length ? { files: where.files } : {}),
    },
  });
  if (ctx.linters.includes(tool)) {
    const recorded = ctx.recorded;
    const beyond = recorded
      ? Object.fromEntries(
          Object.entries(recorded.arguments).filter(([k]) => !EXPRESSED_BY_LINT_CHECK.has(k)),
        )
      : {};
    if (recorded && Object.keys(beyond).length) {
      const exact = {
        tool: recorded.tool,
        arguments: { path: file, ...(recorded.tool === "lint" ? { linter: tool } : {}), ...beyond },
      };
      return {
        ...lintCheck(tool),
        exact,
        ...note(
          `the recorded ${recorded.tool} call also set ${Object.keys(beyond).join(", ")}, which lint_check does not take: \`exact\` repeats it for this file`,
        ),
      };
    }
    return { ...lintCheck(tool), ...note() };
  }
  if (ctx.checkers.includes(tool))
    return {
      tool: "type_check",
      arguments: { path: file, checker: tool },
      ...note("lint_check runs linters, not type checkers"),
    };
  if (tool === "bandit")
    return {
      tool: "security_scan",
      arguments: { path: file },
      ...note("lint_check runs linters, not security scanners"),
    };
  return {
    ...lintCheck(),
    ...note(
      `${r.source_tool ?? r.tool} is not a tool this server runs: lint_check re-checks the file with the project's linters`,
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
