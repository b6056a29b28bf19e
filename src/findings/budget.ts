/**
 * Result budgets: what a result lists must fit the caller's context (MCP clients warn above 10,000
 * tokens of output). Tokens are estimated as characters / 4 of the JSON. A listing over its budget is
 * trimmed fairly: every file and every rule keep some of their findings, most severe first.
 */
import type { Finding, Severity } from "./model.js";

export const DEFAULT_MAX_RESULT_TOKENS = 8000;

/** What the rest of a result (command, notes, counts, summary) may take besides its lists. */
export const RESULT_OVERHEAD_TOKENS = 600;

/** Estimated tokens of a value's JSON. */
export function estimateTokens(value: unknown): number {
  return Math.ceil((JSON.stringify(value)?.length ?? 0) / 4);
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * The order in which findings earn a place in a trimmed listing: most severe first; within a
 * severity, the first finding of every (file, rule) before the second of any, so no file or rule
 * crowds out the others.
 */
export function fairOrder(findings: readonly Finding[]): Finding[] {
  const rankInGroup = new Map<Finding, number>();
  const seen = new Map<string, number>();
  for (const f of findings) {
    const key = `${f.severity}\0${f.file}\0${f.rule_id}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    rankInGroup.set(f, n);
  }
  const index = new Map(findings.map((f, i) => [f, i]));
  return [...findings].sort(
    (a, b) =>
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      (rankInGroup.get(a) as number) - (rankInGroup.get(b) as number) ||
      (index.get(a) as number) - (index.get(b) as number),
  );
}

/** How many of `items`, from the first, fit in `tokens` (at least one, so a page always moves on). */
export function prefixThatFits<T>(items: readonly T[], cost: (item: T) => number, tokens: number): number {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += cost(items[i] as T);
    if (used > tokens) return Math.max(1, i);
  }
  return items.length;
}

/** The findings a fair trim keeps within `tokens`, in their original order. */
export function fairTrim(
  findings: readonly Finding[],
  cost: (f: Finding) => number,
  tokens: number,
): Finding[] {
  const kept = new Set<Finding>();
  let used = 0;
  for (const f of fairOrder(findings)) {
    const c = cost(f);
    if (used + c > tokens) continue;
    used += c;
    kept.add(f);
  }
  return findings.filter((f) => kept.has(f));
}

/**
 * The end of a tool's text output within `tokens` (whole lines, where runners put their summaries),
 * with a first line that says how much was cut; the text itself when it fits.
 */
export function tailWithinTokens(text: string, tokens: number): { text: string; cut: boolean } {
  if (estimateTokens(text) <= tokens) return { text, cut: false };
  const lines = text.split("\n");
  let chars = 0;
  let from = lines.length;
  while (from > 0 && chars + (lines[from - 1] as string).length + 1 <= tokens * 4 - 80) {
    chars += (lines[from - 1] as string).length + 1;
    from--;
  }
  const note = `[... ${from} lines cut to keep the result within max_result_tokens ...]`;
  return { text: [note, ...lines.slice(from)].join("\n"), cut: true };
}
