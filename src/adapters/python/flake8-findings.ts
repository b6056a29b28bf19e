/** flake8's `path:line:col: CODE message` lines as findings (it has no machine-readable format of its own). */
import path from "node:path";
import type { Finding } from "../../findings/model.js";
import { parseLintLines } from "../lint-lines.js";

/** Syntax errors (E9) and pyflakes' F codes are errors; style (E, W, C, N...) warnings. */
function severityOf(code: string): Finding["severity"] {
  return /^(E9|F)/.test(code) ? "error" : "warning";
}

/** A finding from one line of flake8's default output, undefined for any other line. */
export function parseFlake8Line(text: string, cwd: string): Finding | undefined {
  const [l] = parseLintLines(text);
  if (!l) return undefined;
  const code = l.code ?? "";
  return {
    tool: "flake8",
    file: path.resolve(cwd, l.file),
    line: l.line,
    column: l.column,
    rule_id: code,
    severity: severityOf(code),
    message: l.message,
    correctable: false,
    docs_url: /^[EFWC]\d+$/.test(code) ? `https://www.flake8rules.com/rules/${code}.html` : undefined,
  };
}
