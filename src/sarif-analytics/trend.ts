/**
 * sarif_trend_analysis: current against baseline (and earlier history runs), matched by group key, then
 * fingerprint, then the rule/file/message fallback, each stage taking only what the previous ones left.
 * Introduced, reopened (in a history run, gone from the baseline, back now) and worsening (level went up)
 * are the repair queue; persisting and fixed are context. Pure.
 */
import { levelRank, type NormalizedLog, type NormalizedResult } from "./normalize.js";
import { brief } from "./risk.js";
import { estimateTokens, prefixThatFits } from "../findings/budget.js";

export type MatchedBy = "group_key" | "fingerprint" | "fallback";
const STAGES: [MatchedBy, (r: NormalizedResult) => string][] = [
  ["group_key", (r) => r.group_key],
  ["fingerprint", (r) => r.fingerprint],
  ["fallback", (r) => r.fallback_key],
];

export interface Match {
  before: NormalizedResult;
  after: NormalizedResult;
  by: MatchedBy;
}

/**
 * A group key joins reports of one issue by several tools; within one tool its own fingerprints decide
 * (`import os` → `import sys` on line 1 is an F401 fixed and another introduced, not one persisting).
 */
function sameToolDisagrees(a: NormalizedResult, b: NormalizedResult): boolean {
  return (
    a.group_source === "computed" &&
    a.tool === b.tool &&
    a.fingerprint_source === b.fingerprint_source &&
    a.fingerprint !== b.fingerprint
  );
}

/** Pairs results of two logs; each result is paired at most once, earlier results first. */
export function matchResults(
  before: readonly NormalizedResult[],
  after: readonly NormalizedResult[],
): { matches: Match[]; unmatchedBefore: NormalizedResult[]; unmatchedAfter: NormalizedResult[] } {
  const takenBefore = new Set<number>();
  const takenAfter = new Set<number>();
  const matches: Match[] = [];
  for (const [by, key] of STAGES) {
    const queues = new Map<string, NormalizedResult[]>();
    for (const b of before) {
      if (takenBefore.has(b.index)) continue;
      const k = key(b);
      const q = queues.get(k);
      if (q) q.push(b);
      else queues.set(k, [b]);
    }
    for (const a of after) {
      if (takenAfter.has(a.index)) continue;
      const q = queues.get(key(a));
      const at = q ? q.findIndex((b) => by !== "group_key" || !sameToolDisagrees(a, b)) : -1;
      if (!q || at < 0) continue;
      const [b] = q.splice(at, 1) as [NormalizedResult];
      takenBefore.add(b.index);
      takenAfter.add(a.index);
      matches.push({ before: b, after: a, by });
    }
  }
  matches.sort((x, y) => x.after.index - y.after.index);
  return {
    matches,
    unmatchedBefore: before.filter((b) => !takenBefore.has(b.index)),
    unmatchedAfter: after.filter((a) => !takenAfter.has(a.index)),
  };
}

/** Most lines per list; counts stay full. */
export const MAX_TREND_ENTRIES = 200;

export function trendAnalysis(
  baseline: NormalizedLog,
  current: NormalizedLog,
  history: readonly NormalizedLog[],
) {
  const { matches, unmatchedBefore, unmatchedAfter } = matchResults(baseline.results, current.results);
  const introduced: ReturnType<typeof brief>[] = [];
  const reopened: (ReturnType<typeof brief> & { seen_in_history: number; matched_by: MatchedBy })[] = [];
  // Newest history run first: a finding is reopened from the latest run that had it.
  let left = unmatchedAfter;
  for (let h = history.length - 1; h >= 0 && left.length; h--) {
    const m = matchResults(history[h]!.results, left);
    for (const x of m.matches) reopened.push({ ...brief(x.after), seen_in_history: h, matched_by: x.by });
    left = m.unmatchedAfter;
  }
  for (const r of left) introduced.push(brief(r));
  reopened.sort((a, b) => a.result_index - b.result_index);
  const paired = (m: Match) => ({
    ...brief(m.after),
    matched_by: m.by,
    baseline_index: m.before.index,
    ...(m.before.level !== m.after.level ? { previous_level: m.before.level } : {}),
    ...(m.before.line !== m.after.line && m.before.line !== undefined
      ? { previous_line: m.before.line }
      : {}),
  });
  const worsening = matches.filter((m) => levelRank(m.after.level) > levelRank(m.before.level)).map(paired);
  const persisting = matches.filter((m) => levelRank(m.after.level) <= levelRank(m.before.level)).map(paired);
  const fixed = unmatchedBefore.map((r) => brief(r));
  const cap = <T>(xs: T[]) => xs.slice(0, MAX_TREND_ENTRIES);
  const queue = [...introduced, ...reopened, ...worsening].sort(
    (a, b) => levelRank(b.level) - levelRank(a.level) || Number(b.security ?? 0) - Number(a.security ?? 0),
  );
  return {
    counts: {
      introduced: introduced.length,
      reopened: reopened.length,
      worsening: worsening.length,
      persisting: persisting.length,
      fixed: fixed.length,
      baseline: baseline.results.length,
      current: current.results.length,
      history_runs: history.length,
    },
    introduced: cap(introduced),
    reopened: cap(reopened),
    worsening: cap(worsening),
    persisting: cap(persisting),
    fixed: cap(fixed),
    top_item: queue[0],
    capped: [introduced, reopened, worsening, persisting, fixed].some((l) => l.length > MAX_TREND_ENTRIES),
  };
}

/** The lists of a trend, repair queue first: what a budget keeps longest. */
const TREND_LISTS = ["introduced", "reopened", "worsening", "persisting", "fixed"] as const;

/**
 * A trend that fits `maxTokens` (chars/4): entries are kept list by list in repair-queue order (introduced,
 * reopened, worsening, then persisting and fixed) while they fit; the counts stay full and `truncated` says
 * that some entries were left out.
 */
export function fitTrend<T extends ReturnType<typeof trendAnalysis>>(trend: T, maxTokens: number): T {
  let left = maxTokens - estimateTokens({ ...trend, ...Object.fromEntries(TREND_LISTS.map((k) => [k, []])) });
  let cut = false;
  const fitted = { ...trend };
  for (const key of TREND_LISTS) {
    const list = trend[key] as unknown[];
    // Once a list is cut, the later (less urgent) ones list nothing.
    const n = cut ? 0 : prefixThatFits(list, (x) => estimateTokens(x) + 1, Math.max(0, left));
    for (let i = 0; i < n; i++) left -= estimateTokens(list[i]) + 1;
    if (n < list.length) cut = true;
    (fitted as Record<string, unknown>)[key] = list.slice(0, n);
  }
  return cut ? { ...fitted, truncated: true } : fitted;
}
