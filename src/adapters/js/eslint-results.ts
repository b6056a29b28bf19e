/** Pure shaping of ESLint reports into seed 001's per-file view and seed 000's issue strings. */
import path from "node:path";
import type { FixStatus } from "../fixers.js";
import type { WireFileReport, WireMessage } from "./eslint-wire.js";

export type LintStatus = "clean" | "fixable" | "unfixable" | "error";

export interface FileView {
  file: string;
  status: FixStatus;
  errorCount: number;
  warningCount: number;
  messages: WireMessage[];
}

/** A linted file: error (could not be parsed), clean, fixable (lint_fix can fix some), or unfixable. */
export function lintStatus(r: WireFileReport): LintStatus {
  if (r.fatal) return "error";
  if (r.messages.length === 0) return "clean";
  return r.messages.some((m) => m.fixable) ? "fixable" : "unfixable";
}

/**
 * seed 001's lint_fix statuses: error (engine failure on the file), would-fix (dry run with fixes),
 * fixed (changed and now clean), fixable (changed, problems left for manual edits), unfixable
 * (problems, none fixed), clean (nothing to do).
 */
export function fixStatus(r: WireFileReport, dryRun: boolean): FixStatus {
  if (r.fatal) return "error";
  if (r.output !== undefined) {
    if (dryRun) return "would-fix";
    return r.messages.length === 0 ? "fixed" : "fixable";
  }
  return r.messages.length === 0 ? "clean" : "unfixable";
}

export function fileView(r: WireFileReport, status: FixStatus): FileView {
  return {
    file: r.file,
    status,
    errorCount: r.errorCount,
    warningCount: r.warningCount,
    messages: r.messages,
  };
}

/** compact leaves out files with nothing to report; full keeps every file in scope. */
export function selectFiles(views: FileView[], format: "compact" | "full"): FileView[] {
  return format === "full" ? views : views.filter((v) => v.messages.length > 0 || v.status !== "clean");
}

/** seed 000's `file:line:col: rule message`, the file relative to `cwd`. */
export function issueStrings(reports: readonly WireFileReport[], cwd: string): string[] {
  return reports.flatMap((r) =>
    r.messages.map(
      (m) =>
        `${path.relative(cwd, r.file) || r.file}:${m.line}:${m.column}: ${m.rule_id ? `${m.rule_id} ` : ""}${m.message}`,
    ),
  );
}

export function totals(reports: readonly WireFileReport[]): { errors: number; warnings: number } {
  return {
    errors: reports.reduce((n, r) => n + r.errorCount, 0),
    warnings: reports.reduce((n, r) => n + r.warningCount, 0),
  };
}
