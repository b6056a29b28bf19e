import { z } from "zod";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { policyRuntime } from "./runtime.js";

const payload = z.looseObject({
  bundle_hash: z.string().optional(),
  status: z.string().optional(),
  action: z.looseObject({ kind: z.string() }).optional(),
  policy_ids: z.array(z.string().max(200)).max(100),
  skill_ids: z.array(z.string().max(200)).max(100).optional(),
  retry: z.string().optional(),
  message: z.string().optional(),
});

export const remediationExplainTool = () =>
  defineTool({
    name: "remediation_explain",
    description: "Expand an agent_remediation into policies, skill steps, retry guidance.",
    input: z.strictObject({
      agent_remediation: z
        .union([z.string().max(100_000), z.record(z.string(), z.unknown())])
        .describe("An agent_remediation (object or JSON)"),
    }),
    annotations: { title: "Explain a remediation", ...READ_ONLY },
    async handler(args, ctx) {
      let raw: unknown = args.agent_remediation;
      if (typeof raw === "string") {
        try {
          raw = JSON.parse(raw);
        } catch (err) {
          throw new ToolError("invalid_input", `agent_remediation is not JSON: ${(err as Error).message}`);
        }
      }
      const parsed = payload.safeParse(raw);
      if (!parsed.success)
        throw new ToolError(
          "invalid_input",
          `agent_remediation: ${parsed.error.issues[0]?.path.join(".") || "payload"}: ${parsed.error.issues[0]?.message}`,
        );
      const p = parsed.data;
      const bundle = (await policyRuntime(ctx)).defaultBundle();
      const unknown: string[] = [];
      const policies = p.policy_ids.flatMap((id) => {
        const policy = bundle.policy(id);
        if (!policy) return (unknown.push(id), []);
        return [{ ...bundle.ref(policy), principle: bundle.principle(policy.principle) }];
      });
      const skillIds = new Set([
        ...(p.skill_ids ?? []),
        ...policies.flatMap((x) => (x.skill_id ? [x.skill_id] : [])),
      ]);
      const skills = [...skillIds].flatMap((id) => {
        const s = bundle.skill(id);
        return s ? [bundle.skillRef(s)] : [];
      });
      const stale = p.bundle_hash !== undefined && p.bundle_hash !== bundle.hash;
      const retry_guidance = [
        ...(p.retry ? [p.retry] : []),
        ...policies.map((x) => `${x.policy_id} (${x.severity}): ${x.advice}`),
        ...(stale
          ? [`The payload came from bundle ${p.bundle_hash}; this server runs ${bundle.hash}: check again.`]
          : []),
      ];
      return {
        success: true,
        status: p.status,
        ...(p.message && { message: p.message }),
        action_context: p.action,
        policies,
        skills,
        retry_guidance,
        ...(unknown.length ? { unknown_policy_ids: unknown } : {}),
        stale,
        bundle_hash: bundle.hash,
      };
    },
  });
