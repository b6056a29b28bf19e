/**
 * A file a formatter would change, as a finding at its first changed line (rule `format`), read from
 * the formatter's diff, whichever formatter's dialect it is.
 */
import path from "node:path";
import type { Finding } from "./model.js";

/**
 * The first changed line (old side) of each file in a formatter's diff, by the name the diff gives it, read
 * a line at a time (a formatter's whole-project diff need not be held). One reader for every formatter's
 * dialect:
 * - unified diffs (ruff format, Prettier, RuboCop, gofmt -d): `--- old` / `+++ new` headers, then hunks; the
 *   file is the `+++` name (gofmt's `--- x.go.orig` names a file that does not exist), `a/` `b/` dropped;
 * - rustfmt's check output: `Diff in FILE:LINE:` (older: `Diff in FILE at line LINE:`), then context lines
 *   (` `) before the first `-`/`+` line.
 */
export class FirstChangedLines {
  readonly lines = new Map<string, number>();
  private file: string | undefined;
  private line = 0;
  private seeking = false;
  /** A `--- ` line, a header if the next line is `+++ `. */
  private pendingOld: string | undefined;

  private start(name: string, at: number, seeking: boolean): void {
    this.file = name;
    this.line = at;
    this.seeking = seeking && !this.lines.has(name);
  }

  push(l: string): void {
    const old = this.pendingOld;
    this.pendingOld = undefined;
    if (old !== undefined) {
      if (l.startsWith("+++ ")) {
        const name = (/^\+\+\+ (.+?)(?:\t.*)?$/.exec(l)?.[1] ?? "").replace(/^b\//, "");
        const was = (/^--- (.+?)(?:\t.*)?$/.exec(old)?.[1] ?? "").replace(/^a\//, "");
        // Not seeking until a hunk says where.
        this.start(name === "/dev/null" ? was : name, 0, false);
        return;
      }
      this.body(old);
    }
    if (l.startsWith("--- ")) {
      this.pendingOld = l;
      return;
    }
    this.body(l);
  }

  private body(l: string): void {
    const rustfmt = /^Diff in (.+?)(?::(\d+)| at line (\d+)):$/.exec(l);
    if (rustfmt) {
      this.start(rustfmt[1] as string, Number(rustfmt[2] ?? rustfmt[3]), true);
      return;
    }
    const hunk = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(l);
    if (hunk && this.file !== undefined) {
      this.line = Math.max(1, Number(hunk[1]));
      this.seeking = !this.lines.has(this.file);
      return;
    }
    if (!this.seeking || this.file === undefined) return;
    if (l.startsWith("-") || l.startsWith("+")) {
      this.lines.set(this.file, this.line);
      this.seeking = false;
    } else if (l.startsWith(" ")) this.line++;
  }

  /** The lines found so far (a `--- ` line still waiting for its next line is read as a body line). */
  result(): Map<string, number> {
    if (this.pendingOld !== undefined) {
      const old = this.pendingOld;
      this.pendingOld = undefined;
      this.body(old);
    }
    return this.lines;
  }
}

/** The first changed line of each file in a whole diff (see FirstChangedLines). */
export function firstChangedLines(diff: string): Map<string, number> {
  const reader = new FirstChangedLines();
  for (const l of diff.split("\n")) reader.push(l);
  return reader.result();
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
