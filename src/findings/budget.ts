/**
 * Result budgets: what a result lists must fit the caller's context (MCP clients warn above 10,000
 * tokens of output). Tokens are estimated as characters / 4 of the JSON. A listing over its budget is
 * trimmed fairly: every file and every rule keep some of their findings, most severe first.
 */
import type { Finding, Severity } from "./model.js";

export const DEFAULT_MAX_RESULT_TOKENS = 8000;

/** What the rest of a result (command, notes, counts, summary) may take besides its lists. */
export const RESULT_OVERHEAD_TOKENS = 600;

/** The part of a result's budget kept for what is not listed; small budgets keep most for their lists. */
export function reserveFor(maxTokens: number): number {
  return Math.min(RESULT_OVERHEAD_TOKENS, Math.floor(maxTokens * 0.4));
}

/**
 * Estimated tokens of a value's JSON: its UTF-8 bytes / 4 (as many as its characters / 4 for ASCII, more
 * for other text), so a budget in tokens is also a bound in bytes: `--max-result-bytes` / 4 tokens fit.
 */
export function estimateTokens(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : Math.ceil(Buffer.byteLength(json) / 4);
}

/** Bytes the hard cap keeps for its own report and note (engine/result-cap.ts). */
export const CAP_RESERVE_BYTES = 2048;

/**
 * The budget a listing really has: the one asked for (`max_result_tokens`, else --max-result-tokens), but
 * never more than the hard byte cap allows, so the cap never has to cut a listing the budget let through.
 */
export function effectiveTokens(requested: number, maxResultBytes: number): number {
  return Math.max(1, Math.min(requested, Math.floor((maxResultBytes - CAP_RESERVE_BYTES) / 4)));
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

/** The first of `items` that fit in `tokens` (their JSON), and how many there are in all. */
export function listWithin<T>(
  items: readonly T[],
  tokens: number,
): { items: T[]; count: number; capped: boolean } {
  const n = prefixThatFits(items, (i) => estimateTokens(i) + 1, tokens);
  const shown = items.length && estimateTokens(items[0]) + 1 > tokens ? 0 : n;
  return { items: items.slice(0, shown), count: items.length, capped: shown < items.length };
}

/**
 * A result's `notes` within `tokens`: each said once, in order; past the budget the rest are counted in a
 * last note (a note per file, such as Prettier's "could not format" ones, can run to hundreds).
 */
export function budgetNotes(notes: readonly unknown[], tokens: number): unknown[] {
  const unique = [...new Set(notes)];
  const kept: unknown[] = [];
  let used = 0;
  for (const note of unique) {
    const cost = estimateTokens(note) + 1;
    if (used + cost > tokens) break;
    kept.push(note);
    used += cost;
  }
  const left = unique.length - kept.length;
  if (left > 0) kept.push(`... ${left} more note(s) left out to keep the result within max_result_tokens`);
  return kept;
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

/** Where an entry of a tool's own list sits, for a fair trim (its file, rule and severity). */
export interface EntryKey {
  file: string;
  rule: string;
  severity: Severity;
}

/**
 * The entries of a tool's own list (a drop-in surface's offenses or messages, not findings) that a fair trim
 * keeps within `tokens`, in their original order: the same decision as for findings (fairOrder), so every
 * file and rule keep some, most severe first.
 */
export function fairTrimEntries<E>(
  entries: readonly E[],
  keyOf: (e: E) => EntryKey,
  cost: (e: E) => number,
  tokens: number,
): E[] {
  const entryOf = new Map<Finding, E>();
  const findings = entries.map((e) => {
    const k = keyOf(e);
    const f: Finding = {
      tool: "",
      file: k.file,
      rule_id: k.rule,
      severity: k.severity,
      message: "",
      line: 0,
      column: 0,
    };
    entryOf.set(f, e);
    return f;
  });
  return fairTrim(findings, (f) => cost(entryOf.get(f) as E), tokens).map((f) => entryOf.get(f) as E);
}
