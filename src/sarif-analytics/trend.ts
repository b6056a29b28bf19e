/**
 * sarif_trend_analysis: current against baseline (and earlier history runs), matched by match.ts (group key,
 * then content fingerprint, then the rule/file/message fallback: a deterministic assignment, whatever order
 * the logs list their results in). Only results present in a run count (baselineState `absent` is a record of
 * a result gone), and a suppressed result is not an open finding. Introduced, reopened (present in a history
 * run, absent from the baseline, present now) and worsening (level went up) are the repair queue; persisting,
 * fixed and newly suppressed are context. Tools are compared by normalized name (tool-names.ts). Pure.
 */
import { levelRank, type NormalizedLog, type NormalizedResult } from "./normalized.js";
import { matchResults, type Match, type MatchedBy } from "./match.js";
import { brief } from "./risk.js";
import { pairTools } from "./tool-names.js";
import { estimateTokens, prefixThatFits } from "../findings/budget.js";

export { matchResults, type Match, type MatchedBy } from "./match.js";

/** Most lines per list; counts stay full. */
export const MAX_TREND_ENTRIES = 200;

/** Results present in the run (baselineState absent means gone). */
const present = (log: NormalizedLog) => log.results.filter((r) => r.baseline_state !== "absent");

/** Each tool of a log under its names as the log spells them. */
function toolNames(results: readonly NormalizedResult[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of results) {
    let names = out.get(r.tool_key);
    if (!names) out.set(r.tool_key, (names = new Set()));
    names.add(r.tool);
  }
  return out;
}

/** How another log's results are compared with the current's: their tool keys, aliased to the current's names. */
function comparedAs(current: readonly NormalizedResult[], other: readonly NormalizedResult[], label: string) {
  const { alias, notes } = pairTools(toolNames(current), toolNames(other), label);
  return { tool: (r: NormalizedResult) => alias.get(r.tool_key) ?? r.tool_key, notes };
}

export function trendAnalysis(
  baseline: NormalizedLog,
  current: NormalizedLog,
  history: readonly NormalizedLog[],
) {
  const now = present(current);
  const before = present(baseline);
  const notes: string[] = [];
  const base = comparedAs(now, before, "baseline");
  notes.push(...base.notes);
  const { matches, unmatchedBefore, unmatchedAfter } = matchResults(before, now, base.tool);

  const paired = (m: Match) => ({
    ...brief(m.after),
    matched_by: m.by,
    baseline_index: m.before.index,
    ...(m.before.level !== m.after.level ? { previous_level: m.before.level } : {}),
    ...(m.before.line !== m.after.line && m.before.line !== undefined
      ? { previous_line: m.before.line }
      : {}),
  });
  const worsening: ReturnType<typeof paired>[] = [];
  const persisting: ReturnType<typeof paired>[] = [];
  const suppressed: ReturnType<typeof paired>[] = [];
  const introduced: (ReturnType<typeof brief> & { previously_suppressed?: true })[] = [];
  for (const m of matches) {
    if (m.after.suppressed) {
      // Open in the baseline, suppressed now: no longer an open finding, and not fixed either.
      if (!m.before.suppressed) suppressed.push(paired(m));
    } else if (m.before.suppressed) introduced.push({ ...brief(m.after), previously_suppressed: true });
    else if (levelRank(m.after.level) > levelRank(m.before.level)) worsening.push(paired(m));
    else persisting.push(paired(m));
  }

  // Reopened: present in a history run, absent from the baseline (no baseline result is it), present now.
  const reopened: (ReturnType<typeof brief> & { seen_in_history: number; matched_by: MatchedBy })[] = [];
  let left = unmatchedAfter.filter((r) => !r.suppressed);
  for (let h = history.length - 1; h >= 0 && left.length; h--) {
    const run = present(history[h]!);
    const vsBaseline = comparedAs(before, run, `history run ${h}`);
    const gone = matchResults(run, before, vsBaseline.tool).unmatchedBefore.filter((r) => !r.suppressed);
    if (!gone.length) continue;
    const vsCurrent = comparedAs(now, gone, `history run ${h}`);
    notes.push(...vsCurrent.notes.filter((n) => !notes.includes(n)));
    const m = matchResults(gone, left, vsCurrent.tool);
    for (const x of m.matches) reopened.push({ ...brief(x.after), seen_in_history: h, matched_by: x.by });
    left = m.unmatchedAfter;
  }
  for (const r of left) introduced.push(brief(r));
  const byIndex = (a: { result_index: number }, b: { result_index: number }) =>
    a.result_index - b.result_index;
  introduced.sort(byIndex);
  reopened.sort(byIndex);
  const fixed = unmatchedBefore.filter((r) => !r.suppressed).map((r) => brief(r));
  const cap = <T>(xs: T[]) => xs.slice(0, MAX_TREND_ENTRIES);
  const queue = [...introduced, ...reopened, ...worsening].sort(
    (a, b) => levelRank(b.level) - levelRank(a.level) || Number(b.security ?? 0) - Number(a.security ?? 0),
  );
  const absent = (log: NormalizedLog) => log.results.length - present(log).length;
  return {
    counts: {
      introduced: introduced.length,
      reopened: reopened.length,
      worsening: worsening.length,
      persisting: persisting.length,
      fixed: fixed.length,
      suppressed: suppressed.length,
      baseline: before.filter((r) => !r.suppressed).length,
      current: now.filter((r) => !r.suppressed).length,
      history_runs: history.length,
      ...(absent(baseline) || absent(current)
        ? { absent: { baseline: absent(baseline), current: absent(current) } }
        : {}),
      ...(before.some((r) => r.suppressed) || now.some((r) => r.suppressed)
        ? {
            suppressed_results: {
              baseline: before.filter((r) => r.suppressed).length,
              current: now.filter((r) => r.suppressed).length,
            },
          }
        : {}),
    },
    introduced: cap(introduced),
    reopened: cap(reopened),
    worsening: cap(worsening),
    persisting: cap(persisting),
    fixed: cap(fixed),
    suppressed: cap(suppressed),
    top_item: queue[0],
    capped: [introduced, reopened, worsening, persisting, fixed, suppressed].some(
      (l) => l.length > MAX_TREND_ENTRIES,
    ),
    notes,
  };
}

/** The lists of a trend, repair queue first: what a budget keeps longest. */
const TREND_LISTS = ["introduced", "reopened", "worsening", "persisting", "fixed", "suppressed"] as const;

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
