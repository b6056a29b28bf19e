/**
 * The Go compiler's error lines as findings, for the linters that pass them on in one message when a package
 * does not build (staticcheck's `compile` problem, golangci-lint's `typecheck` issue): `# pkg` then
 * `./main.go:4:6: message` lines (relative to the folder go ran in), each error one finding at its position,
 * as type_check lists them.
 */
import path from "node:path";
import type { Finding } from "../../findings/model.js";

const COMPILER_LINE = /^(.+?\.go):(\d+):(\d+): (.*)$/;

/** One error finding per compiler line of `text` (file names resolved against `cwd`), rule `ruleId`. */
export function compilerLineFindings(text: string, cwd: string, tool: string, ruleId: string): Finding[] {
  const out: Finding[] = [];
  for (const line of text.split("\n")) {
    const m = COMPILER_LINE.exec(line.trimEnd());
    if (!m) continue;
    out.push({
      tool,
      file: path.resolve(cwd, m[1] as string),
      line: Number(m[2]),
      column: Number(m[3]),
      rule_id: ruleId,
      severity: "error",
      message: m[4] as string,
    });
  }
  return out;
}

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
