/**
 * skill_recommend's ranking: full-text search (MiniSearch) over the skills' titles, summaries, tags,
 * triggers and steps, led by what is certain: skills the evidence map or a policy check points at, and
 * agent-operating-discipline for broad implement / review / refactor / simplify / debug tasks.
 */
import MiniSearch from "minisearch";
import type { DiagnosticRef } from "./advisor.js";
import type { Bundle, Skill } from "./bundle.js";

export const OPERATING_DISCIPLINE = "agent-operating-discipline";
const BROAD_TASK =
  /\b(implement\w*|review\w*|refactor\w*|simplif\w*|debug\w*|clean(?:ing)?[ -]?up|rewrite|rewriting|redesign\w*|restructur\w*)\b/i;
const STOP_WORDS = new Set(
  "a an and are as at be but by for from has have i in into is it its of on or our so that the their this to was we were when with why you your".split(
    " ",
  ),
);

export interface Recommendation {
  skill_id: string;
  title: string;
  summary: string;
  score: number;
  reason: string;
}

export interface RecommendInput {
  task?: string;
  command?: string;
  path?: string;
  diagnostic?: DiagnosticRef | string;
  /** Skills that a policy check of `command` pointed at, with the policy ids. */
  commandSkills?: { skill_id: string; policy_id: string }[];
}

const indexes = new WeakMap<Bundle, MiniSearch<Skill>>();

function indexOf(bundle: Bundle): MiniSearch<Skill> {
  let index = indexes.get(bundle);
  if (!index) {
    index = new MiniSearch<Skill>({
      fields: ["id", "title", "summary", "tags", "triggers", "steps"],
      extractField: (doc, field) => {
        const value = (doc as unknown as Record<string, unknown>)[field];
        return Array.isArray(value) ? value.join(" \n ") : String(value ?? "");
      },
      processTerm: (term) => {
        const t = term.toLowerCase();
        return STOP_WORDS.has(t) ? null : t;
      },
      searchOptions: { boost: { triggers: 3, title: 2, tags: 2, id: 2 }, fuzzy: 0.2, prefix: true },
    });
    index.addAll(bundle.data.skills);
    indexes.set(bundle, index);
  }
  return index;
}

/** Ranked skills for the input, best first, each with why. */
export function recommendSkills(bundle: Bundle, input: RecommendInput, limit = 5): Recommendation[] {
  const ranked = new Map<string, Recommendation>();
  const add = (skillId: string, score: number, reason: string) => {
    const skill = bundle.skill(skillId);
    if (!skill) return;
    const prior = ranked.get(skillId);
    if (prior && prior.score >= score) return;
    ranked.set(skillId, {
      skill_id: skill.id,
      title: skill.title,
      summary: skill.summary,
      score,
      reason: prior ? `${reason}; ${prior.reason}` : reason,
    });
  };
  const diagnostic = typeof input.diagnostic === "object" ? input.diagnostic : undefined;
  if (diagnostic)
    for (const policy of bundle.diagnosticPolicies(diagnostic))
      if (policy.skill)
        add(policy.skill, 1000, `evidence map: ${diagnostic.tool} ${diagnostic.rule} → ${policy.id}`);
  for (const hit of input.commandSkills ?? [])
    add(hit.skill_id, 900, `policy_check_command: ${hit.policy_id} matched the command`);
  if (input.task && BROAD_TASK.test(input.task))
    add(
      OPERATING_DISCIPLINE,
      800,
      `broad task ("${BROAD_TASK.exec(input.task)?.[0]}"): start with operating discipline`,
    );
  const query = [
    input.task,
    input.command,
    input.path?.replace(/[/_.-]+/g, " "),
    typeof input.diagnostic === "string"
      ? input.diagnostic
      : diagnostic && `${diagnostic.rule} ${diagnostic.message ?? ""}`,
  ]
    .filter(Boolean)
    .join(" ");
  if (query.trim())
    for (const hit of indexOf(bundle).search(query)) {
      const terms = [...new Set(hit.terms)].slice(0, 6).join(", ");
      add(String(hit.id), Math.round(hit.score * 100) / 100, `text match: ${terms}`);
    }
  return [...ranked.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}
