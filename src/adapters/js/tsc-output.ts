/** Parsing of `tsc --noEmit --pretty false` output (used for the native TypeScript 7 compiler). */
import path from "node:path";
import type { TscDiagnostic } from "./tsc-wire.js";

const LOCATED = /^(.+?)\((\d+),(\d+)\): (error|warning|message) TS(\d+): (.*)$/;
const GLOBAL = /^(error|warning|message) TS(\d+): (.*)$/;

function category(word: string): TscDiagnostic["category"] {
  return word === "error" ? "error" : word === "warning" ? "warning" : "info";
}

/**
 * Every diagnostic in the output, files made absolute against `cwd`. Indented lines that follow a
 * diagnostic continue its message (tsc's message chains).
 */
export function parseTscOutput(output: string, cwd: string): TscDiagnostic[] {
  const out: TscDiagnostic[] = [];
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.trimEnd();
    let m = LOCATED.exec(line);
    if (m) {
      out.push({
        file: path.resolve(cwd, m[1] as string),
        line: Number(m[2]),
        column: Number(m[3]),
        code: Number(m[5]),
        category: category(m[4] as string),
        message: m[6] as string,
      });
      continue;
    }
    m = GLOBAL.exec(line);
    if (m) {
      out.push({
        file: null,
        line: 0,
        column: 0,
        code: Number(m[2]),
        category: category(m[1] as string),
        message: m[3] as string,
      });
      continue;
    }
    const last = out[out.length - 1];
    if (last && /^\s+\S/.test(line)) last.message += `\n${line.trim()}`;
  }
  return out;
}
