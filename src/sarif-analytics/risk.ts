/**
 * sarif_risk_summary's triage view of one log: counts, blocking and security counts, top rules, files, tools
 * and finding groups, policies and skills from the advisor, a risk score (formula in docs/sarif.md) and the
 * top item to remediate first. Everything but `result_count` is about the open results: present in the run
 * (baselineState not `absent`) and not suppressed. Pure.
 */
import type { DiagnosticAdvice } from "../policy/advisor.js";
import { levelRank, type NormalizedLog, type NormalizedResult, type SarifLevel } from "./normalized.js";

/** Weight of a finding group by its most severe level; security-like groups count twice. */
export const LEVEL_WEIGHT: Record<SarifLevel, number> = { error: 10, warning: 3, note: 1, none: 0 };
export const SECURITY_FACTOR = 2;
export const TOP_N = 10;

/** A result as the lists show it. */
export function brief(r: NormalizedResult) {
  return {
    result_index: r.index,
    tool: r.tool,
    rule_id: r.rule_id,
    level: r.level,
    ...(r.path !== undefined ? { path: r.path } : {}),
    ...(r.line !== undefined ? { line: r.line } : {}),
    message: r.message.length > 300 ? `${r.message.slice(0, 300)}…` : r.message,
    fingerprint: r.fingerprint,
    group_key: r.group_key,
    ...(r.group_id ? { group_id: r.group_id } : {}),
    ...(r.policy_id ? { policy_id: r.policy_id } : {}),
    ...(r.security ? { security: true } : {}),
    ...(r.suppressed ? { suppressed: true } : {}),
  };
}

/** An open finding: present in the run and not suppressed. */
export const isOpen = (r: NormalizedResult) => r.baseline_state !== "absent" && !r.suppressed;

export interface Group {
  key: string;
  members: NormalizedResult[];
  level: SarifLevel;
  security: boolean;
  /** Distinct issues: the most results one tool reported under one rule in the group. */
  issues: number;
  weight: number;
}

/** Results grouped by group key, each group at its most severe level; heaviest first, then by position. */
export function groupResults(results: readonly NormalizedResult[]): Group[] {
  const byKey = new Map<string, NormalizedResult[]>();
  for (const r of results) {
    const list = byKey.get(r.group_key);
    if (list) list.push(r);
    else byKey.set(r.group_key, [r]);
  }
  const groups = [...byKey].map(([key, members]) => {
    const level = members.reduce<SarifLevel>(
      (l, m) => (levelRank(m.level) > levelRank(l) ? m.level : l),
      "none",
    );
    const security = members.some((m) => m.security);
    // One issue reported by several tools (or rule names) counts once; twins of one rule on a line count twice.
    const perTool = new Map<string, number>();
    for (const m of members)
      perTool.set(`${m.tool}\0${m.rule_id}`, (perTool.get(`${m.tool}\0${m.rule_id}`) ?? 0) + 1);
    let issues = 0;
    for (const n of perTool.values()) issues = Math.max(issues, n);
    return {
      key,
      members,
      level,
      security,
      issues,
      weight: LEVEL_WEIGHT[level] * (security ? SECURITY_FACTOR : 1) * issues,
    };
  });
  return groups.sort((a, b) => b.weight - a.weight || a.members[0]!.index - b.members[0]!.index);
}

/** `{group_id}` when the log names the group's id (seed 002), else nothing. */
function groupIdOf(g: Group): { group_id?: string } {
  const id = g.members.find((m) => m.group_id)?.group_id;
  return id ? { group_id: id } : {};
}

/** 0..100: the sum of group weights, capped at 100. */
export function riskScore(groups: readonly Group[]): number {
  return Math.min(
    100,
    groups.reduce((s, g) => s + g.weight, 0),
  );
}

export function riskLevel(score: number): "none" | "low" | "medium" | "high" {
  return score === 0 ? "none" : score < 10 ? "low" : score < 40 ? "medium" : "high";
}

function top<T>(counts: Map<string, { n: number; value: T }>): T[] {
  return [...counts.values()]
    .sort((a, b) => b.n - a.n)
    .slice(0, TOP_N)
    .map((c) => c.value);
}

function tally<T>(m: Map<string, { n: number; value: T }>, key: string, make: () => T, bump: (v: T) => void) {
  let c = m.get(key);
  if (!c) m.set(key, (c = { n: 0, value: make() }));
  c.n++;
  bump(c.value);
}

export function riskSummary(log: NormalizedLog, adviceOf: (r: NormalizedResult) => DiagnosticAdvice) {
  const open = log.results.filter(isOpen);
  const counts: Record<SarifLevel, number> = { error: 0, warning: 0, note: 0, none: 0 };
  const rules = new Map<
    string,
    { n: number; value: { tool: string; rule_id: string; level: SarifLevel; count: number } }
  >();
  const files = new Map<string, { n: number; value: { path: string; count: number } }>();
  const tools = new Map<string, { n: number; value: { tool: string; count: number } }>();
  const policies = new Map<
    string,
    { n: number; value: { policy_id: string; severity: string; count: number } }
  >();
  const skills = new Map<string, { n: number; value: { skill_id: string; count: number } }>();
  let blocking = 0;
  let security = 0;
  let mapped = 0;
  let bundleHash = "none";
  for (const r of open) {
    counts[r.level]++;
    const advice = adviceOf(r);
    bundleHash = advice.bundle_hash;
    if (advice.mapped) mapped++;
    if (r.level === "error" || advice.policies.some((p) => p.severity === "block")) blocking++;
    if (r.security) security++;
    tally(
      rules,
      `${r.tool}\0${r.rule_id}`,
      () => ({ tool: r.tool, rule_id: r.rule_id, level: r.level, count: 0 }),
      (v) => {
        v.count++;
        if (levelRank(r.level) > levelRank(v.level)) v.level = r.level;
      },
    );
    if (r.path !== undefined)
      tally(
        files,
        r.path,
        () => ({ path: r.path!, count: 0 }),
        (v) => v.count++,
      );
    tally(
      tools,
      r.tool,
      () => ({ tool: r.tool, count: 0 }),
      (v) => v.count++,
    );
    for (const p of advice.policies)
      tally(
        policies,
        p.policy_id,
        () => ({ policy_id: p.policy_id, severity: p.severity, count: 0 }),
        (v) => v.count++,
      );
    for (const s of advice.skills)
      tally(
        skills,
        s.skill_id,
        () => ({ skill_id: s.skill_id, count: 0 }),
        (v) => v.count++,
      );
  }
  const groups = groupResults(open);
  const score = riskScore(groups);
  // Groups several results share: the same issue reported by several tools (or twice) at one place.
  const shared = groups.filter((g) => g.members.length > 1);
  const absent = log.results.filter((r) => r.baseline_state === "absent").length;
  const suppressed = log.results.filter((r) => r.baseline_state !== "absent" && r.suppressed).length;
  return {
    result_count: log.results.length,
    open_count: open.length,
    ...(absent ? { absent_count: absent } : {}),
    ...(suppressed ? { suppressed_count: suppressed } : {}),
    counts,
    blocking_count: blocking,
    security_count: security,
    group_count: groups.length,
    risk_score: score,
    risk_level: riskLevel(score),
    top_rules: top(rules),
    top_files: top(files),
    tools: top(tools).map((t) => ({ ...t, version: log.runs.find((r) => r.tool === t.tool)?.version })),
    finding_groups: shared.slice(0, TOP_N).map((g) => ({
      group_key: g.key,
      ...groupIdOf(g),
      level: g.level,
      tools: [...new Set(g.members.map((m) => m.tool))],
      rule_ids: [...new Set(g.members.map((m) => m.rule_id))],
      path: g.members[0]!.path,
      line: g.members[0]!.line,
      result_indexes: g.members.map((m) => m.index),
    })),
    shared_group_count: shared.length,
    policies: {
      bundle_hash: bundleHash,
      mapped_count: mapped,
      top_policies: top(policies),
      top_skills: top(skills),
    },
    top_item: groups[0]
      ? brief(groups[0].members.reduce((a, b) => (levelRank(b.level) > levelRank(a.level) ? b : a)))
      : undefined,
  };
}
