/** What the advice tools share: the server's policy advisor and the rerun call for a diagnostic's tool. */
import type { ToolContext } from "../../../engine/tool.js";
import { EMPTY_ADVISOR, POLICY_ADVISOR_SERVICE, type PolicyAdvisor } from "../../../policy/advisor.js";
import { findLinter } from "../../../adapters/linters.js";
import { findTypeChecker } from "../../../adapters/type-checkers.js";
import type { RerunCall } from "../../../policy/advice/prompt.js";

/** The advisor the policy bundle registered, or the empty one (nothing mapped) before a bundle loads. */
export function advisorOf(ctx: ToolContext): PolicyAdvisor {
  return ctx.services.get<PolicyAdvisor>(POLICY_ADVISOR_SERVICE, () => EMPTY_ADVISOR);
}

/**
 * The MCP call that checks a diagnostic again after a fix: `lint` for a linter's, `type_check` for a type
 * checker's, `security_scan` for bandit's; `path` is the finding's file (the project when unknown).
 */
export function rerunFor(tool: string, path: string | undefined): RerunCall {
  const target = path || ".";
  if (findLinter(tool)) return { tool: "lint", arguments: { path: target, linter: tool } };
  if (findTypeChecker(tool)) return { tool: "type_check", arguments: { path: target, checker: tool } };
  if (tool === "bandit") return { tool: "security_scan", arguments: { path: target } };
  return { tool: "lint_check", arguments: { files: [target] } };
}

/** The policy, principle and skill ids of an advice, each once, in order. */
export function adviceIds(advice: {
  policies: { policy_id: string; principle_id: string; skill_id?: string }[];
  skills: { skill_id: string }[];
}) {
  const uniq = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  return {
    policy_ids: uniq(advice.policies.map((p) => p.policy_id)),
    principle_ids: uniq(advice.policies.map((p) => p.principle_id)),
    skill_ids: uniq([...advice.policies.map((p) => p.skill_id), ...advice.skills.map((s) => s.skill_id)]),
  };
}
