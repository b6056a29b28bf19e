/**
 * Fingerprints that survive line shifts: a hash of tool, rule, display path and the finding's source
 * line with whitespace collapsed, plus its rank among identical ones in the same file (so twins on
 * different lines differ). Versioned: the SARIF key and the prefix are `mcq/v1`.
 */
import { createHash } from "node:crypto";
import type { Finding } from "./model.js";

export const FINGERPRINT_KEY = "mcq/v1";

/** The source line a finding points at, whitespace collapsed ("" when unknown). */
export function normalizedLine(lines: readonly string[] | undefined, line: number): string {
  if (!lines || line < 1) return "";
  return (lines[line - 1] ?? "").replace(/\s+/g, " ").trim();
}

function baseHash(f: Finding, shownPath: string, text: string): string {
  return createHash("sha256")
    .update(`${f.tool}\0${f.rule_id}\0${shownPath}\0${text}`)
    .digest("hex")
    .slice(0, 32);
}

/**
 * Sets `fingerprint` on every finding (in place). `linesOf` gives a file's lines, or undefined when
 * it cannot be read; ranks count identical (tool, rule, path, line text) findings in position order.
 */
export function assignFingerprints(
  findings: readonly Finding[],
  showPath: (file: string) => string,
  linesOf: (file: string) => readonly string[] | undefined,
): void {
  const order = [...findings].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column,
  );
  const seen = new Map<string, number>();
  for (const f of order) {
    const shown = showPath(f.file);
    const base = baseHash(f, shown, normalizedLine(linesOf(f.file), f.line));
    const rank = seen.get(base) ?? 0;
    seen.set(base, rank + 1);
    f.fingerprint = `${FINGERPRINT_KEY}:${base}:${rank}`;
  }
}
