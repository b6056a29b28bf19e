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

/** What the bundled default config leaves out of a project's reports (see withoutForeignDirectives). */
export interface ForeignDirectives {
  /** Unused eslint-disable / eslint-enable directives (ESLint's, rule id null). */
  unused: number;
  /** "Definition for rule '…' was not found.": a disable comment naming a rule the config does not load. */
  unknown: number;
}

const UNUSED_DIRECTIVE = /^Unused eslint-(?:disable|enable) directive\b/;

/** ESLint's problem about a comment, not the code: an unused directive, or a rule the config does not have. */
function foreignKind(m: WireMessage): keyof ForeignDirectives | undefined {
  if (m.rule_id === null && UNUSED_DIRECTIVE.test(m.message)) return "unused";
  if (m.rule_id && m.message === `Definition for rule '${m.rule_id}' was not found.`) return "unknown";
  return undefined;
}

/**
 * The reports without ESLint's problems about the project's disable comments, for the bundled default config:
 * the comments were written for the project's own config (sindresorhus/got's, for xo: 71 directives "unused"
 * and 10 rules "not found" of 297 findings), so these say nothing about its code. A project's own config keeps them.
 */
export function withoutForeignDirectives(reports: readonly WireFileReport[]): {
  reports: WireFileReport[];
  left: ForeignDirectives;
} {
  const left: ForeignDirectives = { unused: 0, unknown: 0 };
  const out = reports.map((r) => {
    const kinds = r.messages.map(foreignKind);
    if (!kinds.some(Boolean)) return r;
    const kept: WireFileReport = { ...r, messages: r.messages.filter((_, i) => !kinds[i]) };
    for (const [i, m] of r.messages.entries()) {
      const kind = kinds[i];
      if (!kind) continue;
      left[kind]++;
      if (m.severity === "error") kept.errorCount--;
      else kept.warningCount--;
    }
    if (r.corrections) kept.corrections = r.corrections.filter((_, i) => !kinds[i]);
    return kept;
  });
  return { reports: out, left };
}

/** The note saying what withoutForeignDirectives left out, and why; undefined when nothing. */
export function foreignDirectivesNote(left: ForeignDirectives): string | undefined {
  const parts = [
    ...(left.unused ? [`${left.unused} unused eslint-disable directive${left.unused === 1 ? "" : "s"}`] : []),
    ...(left.unknown
      ? [`${left.unknown} "Definition for rule … was not found" error${left.unknown === 1 ? "" : "s"}`]
      : []),
  ];
  if (!parts.length) return undefined;
  return (
    `left out ${parts.join(" and ")}: the project's disable comments were written for its own config, ` +
    "not the bundled default one (with its own config they are reported)"
  );
}
