/** Shaping of result objects: seed 000's fields, empty ones omitted, lists capped with full counts. */
import type { RunResult } from "../exec/runner.js";
import { ToolError } from "../errors.js";
import type { ToolResult } from "./tool.js";

export const MAX_LIST_ENTRIES = 500;

/** Drops undefined/null fields, `truncated: false` and empty `notes`, so results stay small. */
export function compactResult(result: ToolResult): ToolResult {
  const out: ToolResult = { success: result.success };
  for (const [key, value] of Object.entries(result)) {
    if (value === undefined || value === null) continue;
    if (key === "truncated" && value === false) continue;
    if (
      (key === "notes" || key === "output") &&
      (value === "" || (Array.isArray(value) && value.length === 0))
    )
      continue;
    out[key] = value;
  }
  return out;
}

/** Caps a list at MAX_LIST_ENTRIES, returning what to show and whether anything was cut. */
export function capList<T>(items: readonly T[], max = MAX_LIST_ENTRIES): { items: T[]; capped: boolean } {
  return items.length > max
    ? { items: items.slice(0, max), capped: true }
    : { items: [...items], capped: false };
}

/** Quotes an argv for display only (it is never run through a shell). */
export function displayCommand(program: string, args: readonly string[]): string {
  return [program, ...args].map(quoteForDisplay).join(" ");
}

function quoteForDisplay(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Joins stdout and stderr the way a terminal would show them, for the `output` field. */
export function combinedOutput(stdout: string, stderr: string): string {
  return [stdout.trimEnd(), stderr.trimEnd()].filter(Boolean).join("\n");
}

/** The parts of a finished run that a result or an error reports. */
export type RunOutput = Pick<RunResult, "returncode" | "stdout" | "stderr" | "truncated">;

/**
 * What a result says of the run behind it: the command, its exit code, its output as a terminal shows it,
 * and whether any was cut. One shape, so a success and a failure of the same tool report their run alike.
 */
export function runReport(
  command: string,
  run: RunOutput,
): { command: string; returncode: number | null; output: string; truncated: boolean } {
  return {
    command,
    returncode: run.returncode,
    output: combinedOutput(run.stdout, run.stderr),
    truncated: run.truncated,
  };
}

/** A run that failed without a usable report: a tool_error carrying the run (runReport), so the raw output is seen. */
export function runFailed(message: string, command: string, run: RunOutput): ToolError {
  return new ToolError("tool_error", message, runReport(command, run));
}
