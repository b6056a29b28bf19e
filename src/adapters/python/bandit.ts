/** bandit: argv builder (both flag styles), JSON report parser and mapping into the findings model. */
import type { Finding, Severity } from "../../findings/model.js";
import { registerExternalTool } from "../registry.js";

registerExternalTool({ name: "bandit", program: "bandit", versionArgs: ["--version"] });

export type BanditLevel = "low" | "medium" | "high";

/** True for bandit 1.7.5+, which has `--severity-level` / `--confidence-level`. */
export function hasLevelFlags(version: string | undefined): boolean {
  const [major = 0, minor = 0, patch = 0] = (version ?? "")
    .split(".")
    .map((n) => Number.parseInt(n, 10) || 0);
  return major > 1 || (major === 1 && (minor > 7 || (minor === 7 && patch >= 5)));
}

const REPEAT: Record<BanditLevel, number> = { low: 1, medium: 2, high: 3 };

/** bandit's own default excludes, which a `-x` replaces (so they are repeated with the server's). */
export const BANDIT_DEFAULT_EXCLUDES = [
  ".svn",
  "CVS",
  ".bzr",
  ".hg",
  ".git",
  "__pycache__",
  ".tox",
  ".eggs",
  "*.egg",
];

/**
 * `bandit -r <path> --severity-level S --confidence-level C -f json -q [-x ...]`; older bandit (before
 * 1.7.5) spells the same filters `-l`/`-ll`/`-lll` and `-i`/`-ii`/`-iii`. `excludeDirs` (absolute
 * folders) are added to bandit's defaults as `<dir>/`: bandit excludes a file whose path contains an
 * entry, so the trailing slash keeps `/p/.venv` from also matching `/p/.venvs`. Paths holding a comma
 * (bandit's separator) cannot be passed and are left out.
 */
export function banditArgs(
  target: string,
  severity: BanditLevel,
  confidence: BanditLevel,
  levelFlags: boolean,
  excludeDirs: readonly string[] = [],
): string[] {
  const levels = levelFlags
    ? ["--severity-level", severity, "--confidence-level", confidence]
    : [`-${"l".repeat(REPEAT[severity])}`, `-${"i".repeat(REPEAT[confidence])}`];
  const extra = excludeDirs.filter((d) => !d.includes(",")).map((d) => `${d}/`);
  return [
    "-r",
    target,
    ...levels,
    "-f",
    "json",
    "-q",
    ...(extra.length ? ["-x", [...BANDIT_DEFAULT_EXCLUDES, ...extra].join(",")] : []),
  ];
}

/** One bandit result object, as its JSON report has it. */
export interface BanditResult {
  filename: string;
  test_id: string;
  test_name?: string;
  issue_severity: string;
  issue_confidence: string;
  issue_text: string;
  line_number: number;
  line_range?: number[];
  col_offset?: number;
  more_info?: string;
  code?: string;
  issue_cwe?: { id: number; link: string };
}

export interface BanditReport {
  results: BanditResult[];
  /** Files bandit could not scan (e.g. syntax errors). */
  errors: { filename: string; reason: string }[];
}

/** Parses bandit's `-f json` report; undefined when the output is not one. */
export function parseBanditJson(output: string): BanditReport | undefined {
  const start = output.indexOf("{");
  if (start === -1) return undefined;
  try {
    const report = JSON.parse(output.slice(start)) as Partial<BanditReport>;
    if (!Array.isArray(report.results)) return undefined;
    return { results: report.results, errors: Array.isArray(report.errors) ? report.errors : [] };
  } catch {
    return undefined;
  }
}

const SEVERITY: Record<string, Severity> = { HIGH: "error", MEDIUM: "warning", LOW: "info" };

/** A bandit result in the common findings model: rule = test id (B602), HIGH → error, MEDIUM → warning. */
export function banditToFinding(r: BanditResult): Finding {
  const lastLine = r.line_range?.at(-1);
  return {
    tool: "bandit",
    file: r.filename,
    line: r.line_number,
    column: r.col_offset !== undefined ? r.col_offset + 1 : 0,
    end_line: lastLine !== undefined && lastLine !== r.line_number ? lastLine : undefined,
    rule_id: r.test_id,
    severity: SEVERITY[r.issue_severity.toUpperCase()] ?? "warning",
    message: `${r.issue_text} (severity ${r.issue_severity}, confidence ${r.issue_confidence})`,
    docs_url: r.more_info,
  };
}

/** `{high, medium, low, errors}`: results by severity, plus files that could not be scanned. */
export function banditSummary(report: BanditReport): {
  high: number;
  medium: number;
  low: number;
  errors: number;
} {
  const count = (s: string) => report.results.filter((r) => r.issue_severity.toUpperCase() === s).length;
  return { high: count("HIGH"), medium: count("MEDIUM"), low: count("LOW"), errors: report.errors.length };
}
