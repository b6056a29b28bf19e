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
