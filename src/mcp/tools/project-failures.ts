/**
 * A call over several projects (lint, type_check, run_tests) where some fail: each failure is reported beside
 * the others' results with what the tool printed, and a call where every one failed is a failure naming each.
 */
import { ToolError, type ErrorType } from "../../errors.js";

/** One project's failure, as its entry in the result's list (`linters[]`, `checkers[]`, `projects[]`). */
export interface ProjectFailure {
  /** The project, as the result shows it. */
  path: string;
  error: string;
  error_type: ErrorType;
  command?: string;
  returncode?: number | null;
  /** The tool's own words: the error's "see output" points here (go's `go mod tidy`, cargo's package list). */
  output?: string;
  truncated?: boolean;
}

/** The entry of a project whose run threw `err`: its error and the run the error carries. */
export function projectFailure(err: ToolError, shownPath: string): ProjectFailure {
  const { command, returncode, output, truncated } = err.extra;
  return {
    path: shownPath,
    error: err.message,
    error_type: err.errorType,
    ...(typeof command === "string" && { command }),
    ...((typeof returncode === "number" || returncode === null) && { returncode }),
    ...(typeof output === "string" && output !== "" && { output }),
    ...(truncated === true && { truncated }),
  };
}

/**
 * Every project failed: no pass and no "nothing checked", but the call's failure, its message naming each
 * project's error and `list` (the result's field for the projects) holding their entries.
 */
export function everyProjectFailed(
  failures: readonly ProjectFailure[],
  list: string,
  entries: readonly object[] = failures,
): ToolError {
  const types = new Set(failures.map((f) => f.error_type));
  const only = types.size === 1 ? [...types][0] : undefined;
  return new ToolError(
    only ?? "tool_error",
    `every project failed: ${failures.map((f) => `${f.path}: ${f.error}`).join("; ")}`,
    { [list]: entries },
  );
}

/** The note saying a project failed (the result's `notes`, as a CLI reader sees it). */
export function failureNote(tool: string, f: ProjectFailure): string {
  return `${tool} failed at ${f.path} (${f.error_type}): ${f.error}`;
}

/**
 * A project's notes in a call over several projects: each names it (`tests/crate: the crate has no Cargo.lock:
 * ...`, dtolnay/anyhow's nested crate, read as the root's), unless it already starts with it.
 */
export function projectNotes(shownPath: string, notes: readonly string[]): string[] {
  return notes.map((n) => (n.startsWith(`${shownPath}: `) ? n : `${shownPath}: ${n}`));
}

/** A summary line, and the projects that failed after it (`type_check: no findings; 1 project failed: remote`). */
export function summaryWithFailures(
  summary: string,
  failures: readonly Pick<ProjectFailure, "path">[],
): string {
  if (failures.length === 0) return summary;
  const n = failures.length;
  return `${summary}; ${n} project${n === 1 ? "" : "s"} failed: ${failures.map((f) => f.path).join(", ")}`;
}

/** Listing fields whose `summary_text` names the projects that failed too. */
export function withFailedProjects<T extends { summary_text: string }>(
  fields: T,
  failures: readonly Pick<ProjectFailure, "path">[],
): T {
  return { ...fields, summary_text: summaryWithFailures(fields.summary_text, failures) };
}
