/** The findings model every adapter maps its diagnostics into (see DESIGN.md). */
export type Severity = "error" | "warning" | "info";

/** One replacement: the text between two 1-based positions (end exclusive) becomes `text`. */
export interface TextEdit {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  /** Replacement text ("" deletes). */
  text: string;
}

/** A fix the tool offers: `safe` when the tool would apply it without being asked for unsafe fixes. */
export interface Correction {
  safe: boolean;
  /** Shown to people (ruff's fix message, ESLint's suggestion description). */
  description?: string;
  /** In the finding's file, in the order the tool gave them. */
  edits: TextEdit[];
}

export interface Finding {
  /** Producing tool, e.g. "ruff", "mypy", "tsc", "eslint", "bandit". */
  tool: string;
  tool_version?: string;
  /** Absolute path, or as the tool named it when it gave no path we could resolve ("" for none). */
  file: string;
  /** Display path (see display-path.ts); set by the views, not by adapters. */
  path?: string;
  /** 1-based; 0 when the finding is about the whole file. */
  line: number;
  /** 1-based; 0 when the tool gave none (shown as 1, see linePosition; SARIF leaves it out). */
  column: number;
  end_line?: number;
  end_column?: number;
  /** Rule or diagnostic code: F401, TS2322, B602, reportAttributeAccessIssue. */
  rule_id: string;
  /** The tool's own grouping, where it has one (bandit's CWE, ESLint's plugin, a vulnerability kind). */
  category?: string;
  severity: Severity;
  /** The tool's own level word (ruff has none; ESLint 1/2; bandit HIGH/MEDIUM/LOW; mypy error/note). */
  level?: string;
  message: string;
  correctable?: boolean;
  correction?: Correction;
  docs_url?: string;
  /** ESLint's messageId, its suggestion count, and whether the file could not be linted (seed 001's files[]). */
  message_id?: string;
  suggestions?: number;
  fatal?: boolean;
  /** Source lines around the finding, only when a call asks for `context_lines` (capped per finding). */
  snippet?: string;
  /** `mcq/v1:<hex>` (see fingerprint.ts); set by the views. */
  fingerprint?: string;
}

/**
 * A finding's `line:column` as every text view prints it: a line without a column from its tool (mypy's
 * unused-ignore, 0) at column 1, as check's report and SARIF's default column read it, never `:0`; a
 * finding about the whole file (line 0) stays `0:0`.
 */
export function linePosition(f: { line: number; column: number }): string {
  return `${f.line}:${f.line > 0 && !(f.column > 0) ? 1 : f.column}`;
}

/** The seed 000 `file:line:col: message` string of a finding. */
export function findingToIssue(f: Finding, displayFile: string = f.path ?? f.file): string {
  return `${displayFile}:${linePosition(f)}: ${f.rule_id ? `${f.rule_id} ` : ""}${f.message}`;
}

/** Counts by severity. */
export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const out: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) out[f.severity]++;
  return out;
}

/** Findings in file, line, column order (the order tools print them in). */
export function byPosition(a: Finding, b: Finding): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;
}

/**
 * A finding a safe fix corrects: correctable, and its correction not marked unsafe (ruff's `--fix` leaves
 * its unsafe fixes out: "5 fixable with the --fix option (2 hidden fixes can be enabled with the
 * --unsafe-fixes option)", where the line said 7).
 */
export function fixesSafely(f: Finding): boolean {
  return Boolean(f.correctable) && f.correction?.safe !== false;
}
