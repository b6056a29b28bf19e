/**
 * A file a formatter would change, as a finding at its first changed line (rule `format`), read from
 * the formatter's unified diff; line 1 when the diff does not cover the file (e.g. it was cut).
 */
import path from "node:path";
import type { Finding } from "./model.js";

/** First changed line of the old side of each file in a unified diff, by the name in its `--- ` header. */
export function firstChangedLines(diff: string): Map<string, number> {
  const out = new Map<string, number>();
  const lines = diff.split("\n");
  let file: string | undefined;
  let line = 0;
  let seeking = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const header = /^--- (.+?)(?:\t.*)?$/.exec(l);
    if (header && (lines[i + 1] ?? "").startsWith("+++ ")) {
      file = (header[1] as string).replace(/^a\//, "");
      seeking = !out.has(file);
      i++;
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(l);
    if (hunk) {
      line = Math.max(1, Number(hunk[1]));
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

export function formatFindings(
  tool: string,
  files: readonly string[],
  diff: string | undefined,
  base: string,
): Finding[] {
  const first = new Map<string, number>();
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
