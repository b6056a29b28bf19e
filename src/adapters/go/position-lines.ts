/**
 * The plain-text reports Go tools print, one problem a line as `file:line:col: message`: the compiler's
 * diagnostics (go build, and staticcheck's `compile` problem quoting them) and golint's report.
 */
import path from "node:path";
import type { Finding, Severity } from "../../findings/model.js";

/** A compiler diagnostic line: the file is a .go file (other lines, `# pkg` headers say, are skipped). */
export const COMPILER_LINE = /^(.+?\.go):(\d+):(\d+): (.*)$/;
/** Any `file:line:col: message` line (golint names no rule and no .go suffix is required). */
export const ANY_POSITION_LINE = /^(.+?):(\d+):(\d+): (.*)$/;

/**
 * One finding per line of `text` that `pattern` matches (its groups: file, line, column, message), all of
 * one tool, rule and severity; relative files resolve against `cwd`, where the tool ran. Line ends are
 * trimmed first (a message never ends in white space). One parser, so the three reports read alike.
 */
export function positionLineFindings(
  text: string,
  cwd: string,
  pattern: RegExp,
  as: { tool: string; rule_id: string; severity: Severity },
): Finding[] {
  const findings: Finding[] = [];
  for (const line of text.split("\n")) {
    const m = pattern.exec(line.trimEnd());
    if (!m) continue;
    findings.push({
      tool: as.tool,
      file: path.resolve(cwd, m[1] as string),
      line: Number(m[2]),
      column: Number(m[3]),
      rule_id: as.rule_id,
      severity: as.severity,
      message: m[4] as string,
    });
  }
  return findings;
}
