/**
 * The policy layer's advice for a normalized result: asked of the advisor by the tool and rule the result
 * came from (a policy layer's log names them: seed 002's `source_tool` and `code`) and by the policy the log
 * already names (`policy_id`). A named policy the server's bundle does not have still maps the result: it is
 * taken from the log (`policy_source: "sarif"`), so a coding-ethos log is never `mapped: false`. Pure.
 */
import type { DiagnosticAdvice, PolicyAdvisor, PolicyRef } from "../policy/advisor.js";
import type { NormalizedResult } from "./normalized.js";

export type ResultAdvice = DiagnosticAdvice & {
  /** Where the policies came from: the server's bundle, the log itself, or both. */
  policy_source?: "bundle" | "sarif" | "bundle+sarif";
};

const SEVERITIES = new Set(["block", "warn", "advice"]);

function logPolicy(r: NormalizedResult): PolicyRef {
  const props = { ...r.rule_properties, ...r.properties };
  const given = typeof props.severity === "string" ? props.severity : props.policy_severity;
  const severity = (
    typeof given === "string" && SEVERITIES.has(given)
      ? given
      : r.level === "error"
        ? "block"
        : r.level === "warning"
          ? "warn"
          : "advice"
  ) as PolicyRef["severity"];
  const principles = Array.isArray(props.ethos_ids) ? props.ethos_ids : [];
  return {
    policy_id: r.policy_id!,
    principle_id: typeof principles[0] === "string" ? principles[0] : "",
    severity,
    message: r.message,
    advice: typeof props.advice === "string" ? props.advice : "",
    ...(r.skill_id ? { skill_id: r.skill_id } : {}),
  };
}

/** A function giving each result its advice, remembering answers per distinct diagnostic. */
export function adviceOf(advisor: PolicyAdvisor): (r: NormalizedResult) => ResultAdvice {
  const memo = new Map<string, ResultAdvice>();
  return (r) => {
    const tool = r.source_tool ?? r.tool;
    const rule = r.source_code ?? r.rule_id;
    const key = [tool, rule, r.policy_id ?? "", r.skill_id ?? "", r.message, r.path ?? ""].join("\0");
    const known = memo.get(key);
    if (known) return known;
    const advice: ResultAdvice = advisor.adviseDiagnostic({
      tool,
      rule,
      message: r.message,
      path: r.path,
      ...(r.policy_id ? { policy_id: r.policy_id } : {}),
    });
    let out = advice;
    if (advice.mapped) out = { ...advice, policy_source: "bundle" };
    if (r.policy_id && !advice.policies.some((p) => p.policy_id === r.policy_id)) {
      const policy = logPolicy(r);
      const skills =
        r.skill_id && !advice.skills.some((s) => s.skill_id === r.skill_id)
          ? [...advice.skills, { skill_id: r.skill_id, title: r.skill_id, summary: "", steps: [] }]
          : advice.skills;
      out = {
        ...advice,
        mapped: true,
        policies: [...advice.policies, policy],
        skills,
        policy_source: advice.mapped ? "bundle+sarif" : "sarif",
      };
    }
    if (memo.size < 10_000) memo.set(key, out);
    return out;
  };
}
