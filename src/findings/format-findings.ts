/**
 * A file a formatter would change, as a finding at its first changed line (rule `format`), read from
 * the formatter's diff, whichever formatter's dialect it is.
 */
import path from "node:path";
import type { Finding } from "./model.js";

/**
 * The first changed line (old side) of each file in a formatter's diff, by the name the diff gives it. One
 * reader for every formatter's dialect:
 * - unified diffs (ruff format, Prettier, RuboCop, gofmt -d): `--- old` / `+++ new` headers, then hunks; the
 *   file is the `+++` name (gofmt's `--- x.go.orig` names a file that does not exist), `a/` `b/` dropped;
 * - rustfmt's check output: `Diff in FILE:LINE:` (older: `Diff in FILE at line LINE:`), then context lines
 *   (` `) before the first `-`/`+` line.
 */
export function firstChangedLines(diff: string): Map<string, number> {
  const out = new Map<string, number>();
  const lines = diff.split("\n");
  let file: string | undefined;
  let line = 0;
  let seeking = false;
  const start = (name: string, at: number) => {
    file = name;
    line = at;
    seeking = !out.has(name);
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const next = lines[i + 1] ?? "";
    if (/^--- /.test(l) && next.startsWith("+++ ")) {
      const name = (/^\+\+\+ (.+?)(?:\t.*)?$/.exec(next)?.[1] ?? "").replace(/^b\//, "");
      const old = (/^--- (.+?)(?:\t.*)?$/.exec(l)?.[1] ?? "").replace(/^a\//, "");
      start(name === "/dev/null" ? old : name, 0);
      seeking = false; // until a hunk says where
      i++;
      continue;
    }
    const rustfmt = /^Diff in (.+?)(?::(\d+)| at line (\d+)):$/.exec(l);
    if (rustfmt) {
      start(rustfmt[1] as string, Number(rustfmt[2] ?? rustfmt[3]));
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(l);
    if (hunk && file !== undefined) {
      line = Math.max(1, Number(hunk[1]));
      seeking = !out.has(file);
      continue;
    }
    if (!seeking || file === undefined) continue;
    if (l.startsWith("-") || l.startsWith("+")) {
      out.set(file, line);
      seeking = false;
    } else if (l.startsWith(" ")) line++;
  }
  return out;
}

/**
 * The first changed line (old side) between a file and its formatted text: what a unified diff's first
 * `-`/`+` line says, without the diff (lines compared with their terminators, so a missing final newline
 * counts at its line). Undefined when nothing changed.
 */
export function firstChangedLine(before: string, after: string): number | undefined {
  if (before === after) return undefined;
  let line = 1;
  let at = 0;
  for (;;) {
    const endBefore = before.indexOf("\n", at);
    const endAfter = after.indexOf("\n", at);
    const a = endBefore === -1 ? before.slice(at) : before.slice(at, endBefore + 1);
    const b = endAfter === -1 ? after.slice(at) : after.slice(at, endAfter + 1);
    if (a !== b || endBefore === -1) return line;
    at = endBefore + 1;
    line++;
  }
}

/**
 * One finding per file a formatter would change, at the first changed line its diff shows (line 1 when the
 * diff does not cover the file, e.g. it was cut): format_check's SARIF, `check`, every formatter alike.
 */
export function formatFindings(
  tool: string,
  files: readonly string[],
  diff: string | undefined,
  base: string,
  known?: ReadonlyMap<string, number>,
): Finding[] {
  const first = new Map<string, number>(known);
  for (const [name, line] of firstChangedLines(diff ?? "")) first.set(path.resolve(base, name), line);
  return files.map((f) => {
    const file = path.resolve(base, f);
    return {
      tool,
      file,
      line: first.get(file) ?? 1,
      column: 1,
      rule_id: "format",
      severity: "warning",
      message: `${tool} would reformat this file`,
      correctable: true,
    };
  });
}
