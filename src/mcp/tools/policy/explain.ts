import { z } from "zod";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { knownId, policyRuntime } from "./runtime.js";

export const policyExplainTool = () =>
  defineTool({
    name: "policy_explain",
    description: "Explain a policy: principle, condition, advice, examples.",
    input: z.strictObject({ policy_id: z.string().min(1).max(200).describe("e.g. hooks.no_verify") }),
    annotations: { title: "Explain a policy", ...READ_ONLY },
    async handler(args, ctx) {
      const bundle = (await policyRuntime(ctx)).defaultBundle();
      const policy = knownId("policy", args.policy_id, bundle.policy(args.policy_id), bundle.data.policies);
      const principle = bundle.principle(policy.principle);
      const skill = policy.skill ? bundle.skill(policy.skill) : undefined;
      return {
        success: true,
        policy: {
          policy_id: policy.id,
          severity: policy.severity,
          applies_to: policy.applies_to,
          condition: policy.condition,
          message: policy.message,
          advice: policy.advice,
          skill_id: policy.skill,
          source: policy.overridden_by
            ? { ...policy.source, overridden_by: policy.overridden_by }
            : policy.source,
        },
        principle,
        skill: skill && { skill_id: skill.id, title: skill.title, summary: skill.summary },
        evidence: bundle.data.evidence
          .filter((e) => e.policy === policy.id)
          .map((e) => ({ tool: e.tool, rules: e.rules })),
        examples: policy.examples,
        bundle_hash: bundle.hash,
      };
    },
  });
