/**
 * sarif_policy_feedback, for policy authors: rules the bundle does not map (or maps to no skill), security-like
 * rules reported only as notes or warnings, and rules frequent enough to be noise. Pure.
 */
import type { DiagnosticAdvice } from "../policy/advisor.js";
import { levelRank, type NormalizedLog, type NormalizedResult, type SarifLevel } from "./normalized.js";
import { isOpen } from "./risk.js";

/** A rule with at least this many results in one log is reported as noisy. */
export const NOISY_RULE_MIN_RESULTS = 20;
const MAX_ENTRIES = 100;

interface RuleStats {
  tool: string;
  rule_id: string;
  count: number;
  levels: SarifLevel[];
  files: Set<string>;
  security: boolean;
  advice: DiagnosticAdvice;
  first_index: number;
}

export function policyFeedback(log: NormalizedLog, adviceOf: (r: NormalizedResult) => DiagnosticAdvice) {
  const rules = new Map<string, RuleStats>();
  const open = log.results.filter(isOpen);
  for (const r of open) {
    const key = `${r.tool}\0${r.rule_id}`;
    let s = rules.get(key);
    if (!s) {
      s = {
        tool: r.tool,
        rule_id: r.rule_id,
        count: 0,
        levels: [],
        files: new Set(),
        security: false,
        advice: adviceOf(r),
        first_index: r.index,
      };
      rules.set(key, s);
    }
    s.count++;
    if (!s.levels.includes(r.level)) s.levels.push(r.level);
    if (r.path !== undefined) s.files.add(r.path);
    s.security ||= r.security;
  }
  const all = [...rules.values()].sort((a, b) => b.count - a.count || a.first_index - b.first_index);
  const row = (s: RuleStats) => ({ tool: s.tool, rule_id: s.rule_id, count: s.count });
  const unmapped = all.filter((s) => !s.advice.mapped || s.advice.policies.length === 0);
  const missingSkill = all.filter(
    (s) => s.advice.mapped && s.advice.policies.length > 0 && s.advice.skills.length === 0,
  );
  const weak = all.filter((s) => s.security && s.levels.every((l) => levelRank(l) < levelRank("error")));
  const noisy = all.filter((s) => s.count >= NOISY_RULE_MIN_RESULTS);
  return {
    bundle_hash: all[0]?.advice.bundle_hash ?? "none",
    rule_count: all.length,
    result_count: log.results.length,
    open_count: open.length,
    unmapped: unmapped.slice(0, MAX_ENTRIES).map(row),
    unmapped_count: unmapped.length,
    missing_skill: missingSkill.slice(0, MAX_ENTRIES).map((s) => ({
      ...row(s),
      policy_ids: s.advice.policies.map((p) => p.policy_id),
    })),
    missing_skill_count: missingSkill.length,
    weak_security: weak.slice(0, MAX_ENTRIES).map((s) => ({ ...row(s), levels: s.levels })),
    weak_security_count: weak.length,
    noisy_rules: noisy.slice(0, MAX_ENTRIES).map((s) => ({
      ...row(s),
      files: s.files.size,
      share: Math.round((s.count / open.length) * 100) / 100,
    })),
    noisy_rule_count: noisy.length,
    noise_threshold: NOISY_RULE_MIN_RESULTS,
    next: [
      "policy_explain {policy_id} for a mapped policy's wording and grounding",
      "skill_recommend {diagnostic} to find or write the skill an unmapped rule lacks",
    ],
  };
}
