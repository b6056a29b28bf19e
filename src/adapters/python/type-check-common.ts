/** Shared pieces of the Python type-checker adapters: where a check runs and which projects are Python. */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { failedRunMessage, runFailed } from "../../engine/result.js";
import type { RunResult } from "../../exec/runner.js";
import { FindingCollector, keptFor } from "../../findings/collector.js";
import type { TypeCheckOutcome } from "../type-checkers.js";
import { isWithin } from "../../paths/allowlist.js";
import type { ToolContext } from "../../engine/tool.js";
import { inOwnRoot, ownTypeCheckRoots, relativeDirs } from "../type-check-units.js";

/** The directory a checker runs in: the config file's directory, else the target (or its directory). */
export function checkDirectory(target: string, config?: string): string {
  if (config) return path.dirname(config);
  return fs.statSync(target).isDirectory() ? target : path.dirname(target);
}

const PYTHON_PROJECT_MARKERS = ["pyproject.toml", "setup.py", "setup.cfg", "ty.toml", "requirements.txt"];

/**
 * True for a .py/.pyi file or a directory that looks like a Python project: a marker file, or top-level
 * .py files in a directory that is not a TypeScript project (a tsconfig.json leaves it to tsc).
 */
export function isPythonTarget(target: string): boolean {
  try {
    if (!fs.statSync(target).isDirectory()) return /\.pyi?$/.test(target);
    const entries = fs.readdirSync(target);
    if (entries.some((e) => PYTHON_PROJECT_MARKERS.includes(e))) return true;
    return !entries.includes("tsconfig.json") && entries.some((e) => e.endsWith(".py"));
  } catch {
    return false;
  }
}

/** A checker that failed without diagnostics (bad config, crash): a tool_error carrying the raw output. */
export function checkerFailed(
  name: string,
  command: string,
  run: Pick<RunResult, "returncode" | "stdout" | "stderr" | "truncated">,
  why: string,
): ToolError {
  return runFailed(`${failedRunMessage(name, why, run.returncode)}; see output`, command, run);
}

/**
 * The collector of a checker's stream: the diagnostics a call shows (its `files`, and `within` when the checker
 * ran on more than the target), the first of them kept, every one counted (collector.ts).
 */
export function diagnosticsCollector(
  req: { shown?: (file: string) => boolean; args: Record<string, unknown> },
  within?: string,
  /** Nested projects checked at their own root (nestedOwnRoots): their diagnostics are not this run's. */
  leftOut: readonly string[] = [],
): FindingCollector {
  const inside = (file: string) => !within || file === within || isWithin(within, file);
  return new FindingCollector(
    keptFor(req.args),
    (f) => inside(f.file) && (!req.shown || req.shown(f.file)),
    leftOut.length ? (f) => inOwnRoot(leftOut, f.file) : undefined,
  );
}

/**
 * The nested projects below a run's target that are type-checked at their own root with their own
 * configuration (type-check-units.ts): the run leaves them out, and reports nothing in them.
 */
export function nestedOwnRoots(ctx: Pick<ToolContext, "allowlist">, target: string): string[] {
  return ownTypeCheckRoots(target, ctx.allowlist.rootOf(target) ?? target);
}

/** A note naming the nested projects a run left to their own runs. */
export function leftOutNote(base: string, dirs: readonly string[]): string[] {
  if (!dirs.length) return [];
  const shown = relativeDirs(base, dirs);
  return [
    `nested projects with their own type-checker configuration, checked at their own root: ${shown.join(", ")}`,
  ];
}

/**
 * The outcome of a checker whose diagnostics were read through a collector (diagnosticsCollector): the
 * diagnostics kept, the tally of those past them, how many the checker reported in all, and its run as is
 * (stdout then stderr, uncut by the server). Passed means exit 0, as mypy's and ty's exit codes say.
 */
export function collectedOutcome(
  found: FindingCollector,
  command: string,
  run: Pick<RunResult, "returncode" | "stdout" | "stderr" | "truncated">,
  notes: string[],
): TypeCheckOutcome {
  const beyond = found.overflow();
  return {
    findings: found.kept,
    ...(beyond && { beyond }),
    totalInProject: found.seen,
    command,
    returncode: run.returncode,
    output: run.stdout + run.stderr,
    truncated: run.truncated,
    notes,
    // A run whose only errors were a nested project's (reached through an import) is judged by the rest.
    passed: run.returncode === 0 || (found.ignored > 0 && found.seenErrors === 0),
  };
}
