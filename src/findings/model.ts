/** The findings model every adapter maps its diagnostics into (see DESIGN.md). */
export type Severity = "error" | "warning" | "info";

export interface Finding {
  /** Producing tool, e.g. "ruff", "mypy", "tsc", "eslint", "bandit". */
  tool: string;
  /** Absolute path, or as the tool named it when it gave no path we could resolve. */
  file: string;
  /** 1-based; 0 when the finding is about the whole file. */
  line: number;
  column: number;
  end_line?: number;
  end_column?: number;
  /** Rule or diagnostic code: F401, TS2322, B602, reportAttributeAccessIssue. */
  rule_id: string;
  severity: Severity;
  message: string;
  correctable?: boolean;
  docs_url?: string;
}

/** The seed 000 `file:line:col: message` string of a finding. */
export function findingToIssue(f: Finding, displayFile: string = f.file): string {
  return `${displayFile}:${f.line}:${f.column}: ${f.rule_id ? `${f.rule_id} ` : ""}${f.message}`;
}

/** Counts by severity. */
export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const out: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) out[f.severity]++;
  return out;
}
