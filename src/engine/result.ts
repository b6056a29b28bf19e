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
/**
 * A failed run's message: `<tool> <why> (exit N)`. A tool that exited 0 and still failed says so first
 * (`staticcheck exited 0 but loaded no package of ./...: go: ... go mod tidy`): a trailing "(exit 0)" read
 * as part of the tool's own words, and as no failure.
 */
export function failedRunMessage(tool: string, why: string, returncode: number | null): string {
  return returncode === 0 ? `${tool} exited 0 but ${why}` : `${tool} ${why} (exit ${returncode})`;
}

export function runFailed(message: string, command: string, run: RunOutput): ToolError {
  return new ToolError("tool_error", message, runReport(command, run));
}

/** How much of a complaint's continuation a message keeps (the rest is in `output`). */
const CONTINUATION_LINES = 4;
const CONTINUATION_CHARS = 300;

/**
 * A tool's complaint out of its output: the first line `isStart` picks, and when that line ends with ':'
 * the indented lines after it, which are its substance (go's `updates to go.mod needed; to update it:` then
 * `go mod tidy`; cargo's `not supported by the following packages:` then the list), bounded and deduplicated.
 */
export function complaintOf(text: string, isStart: (line: string) => boolean): string | undefined {
  const lines = text.split("\n");
  const at = lines.findIndex(isStart);
  if (at === -1) return undefined;
  const first = (lines[at] as string).trim();
  if (!first.endsWith(":")) return first;
  const more: string[] = [];
  let cut = false;
  for (const line of lines.slice(at + 1)) {
    if (!/^\s+\S/.test(line)) break;
    const item = line.trim();
    if (more.includes(item)) continue;
    if (more.length === CONTINUATION_LINES || [...more, item].join("; ").length > CONTINUATION_CHARS) {
      cut = true;
      break;
    }
    more.push(item);
  }
  return more.length ? `${first} ${more.join("; ")}${cut ? "; …" : ""}` : first;
}
