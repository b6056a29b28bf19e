/** Pure shaping of ESLint reports into seed 001's per-file view and into findings. */
import type { Correction, Finding } from "../../findings/model.js";
import type { FixStatus } from "../fixers.js";
import type { WireCorrections, WireFileReport, WireMessage } from "./eslint-wire.js";

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

/** A fix's per-file view; each problem left carries the correction ESLint still offers (fix or suggestion). */
export function fileView(r: WireFileReport, status: FixStatus): FileView {
  return {
    file: r.file,
    status,
    errorCount: r.errorCount,
    warningCount: r.warningCount,
    messages: r.messages.map((m, i) => {
      const correction = correctionOf(r.corrections?.[i]);
      const docs =
        m.rule_id && !m.rule_id.includes("/")
          ? `https://eslint.org/docs/latest/rules/${m.rule_id}`
          : undefined;
      return { ...m, ...(correction && { correction }), ...(docs && { docs_url: docs }) };
    }),
    ...(r.errors?.length ? { errors: r.errors } : {}),
  };
}

/** compact leaves out files with nothing to report; full keeps every file in scope. */
export function selectFiles(views: FileView[], format: "compact" | "full"): FileView[] {
  return format === "full" ? views : views.filter((v) => v.messages.length > 0 || v.status !== "clean");
}

/** A message's correction: its fix (safe, ESLint applies it with --fix), else its first suggestion (unsafe). */
function correctionOf(c: WireCorrections | undefined): Correction | undefined {
  if (c?.fix) return { safe: true, edits: [c.fix] };
  const first = c?.suggestions?.[0];
  return first ? { safe: false, description: first.desc, edits: [first.edit] } : undefined;
}

/** ESLint's messages as findings: severity 2 → error, 1 → warning; core rules link to eslint.org. */
export function eslintFindings(reports: readonly WireFileReport[]): Finding[] {
  return reports.flatMap((r) =>
    r.messages.map((m, i) => {
      const f: Finding = {
        tool: "eslint",
        file: r.file,
        line: m.line,
        column: m.column,
        end_line: m.end_line,
        end_column: m.end_column,
        rule_id: m.rule_id ?? "",
        category: m.rule_id?.includes("/") ? m.rule_id.slice(0, m.rule_id.lastIndexOf("/")) : undefined,
        severity: m.severity,
        level: m.severity === "error" ? "2" : "1",
        message: m.message,
        correctable: Boolean(m.fixable),
        docs_url:
          m.docs_url ??
          (m.rule_id && !m.rule_id.includes("/")
            ? `https://eslint.org/docs/latest/rules/${m.rule_id}`
            : undefined),
      };
      if (m.message_id !== undefined) f.message_id = m.message_id;
      if (m.suggestions) f.suggestions = m.suggestions;
      if (m.fatal) f.fatal = true;
      const correction = correctionOf(r.corrections?.[i]);
      if (correction) f.correction = correction;
      return f;
    }),
  );
}
