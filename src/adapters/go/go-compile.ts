/**
 * The Go compiler's error lines as findings, for the linters that pass them on in one message when a package
 * does not build (staticcheck's `compile` problem, golangci-lint's `typecheck` issue): `# pkg` then
 * `./main.go:4:6: message` lines (relative to the folder go ran in), each error one finding at its position,
 * as type_check lists them.
 */
import type { Finding } from "../../findings/model.js";
import { COMPILER_LINE, positionLineFindings } from "./position-lines.js";

/** One error finding per compiler line of `text` (file names resolved against `cwd`), rule `ruleId`. */
export const compilerLineFindings = (text: string, cwd: string, tool: string, ruleId: string): Finding[] =>
  positionLineFindings(text, cwd, COMPILER_LINE, { tool, rule_id: ruleId, severity: "error" });

/**
 * Each finding once: a package and its test variant (`pkg [pkg.test]`) are checked separately, so a compile
 * error in a non-test file can come back once per variant, at the same place with the same words.
 */
export function uniqueFindings(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = JSON.stringify([f.file, f.line, f.column, f.rule_id, f.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
