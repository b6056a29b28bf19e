import { z } from "zod";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { refreshPolicy } from "../policy/runtime.js";
import { adviceIds, advisorOf, rerunFor } from "./shared.js";

export const lintAdviceTool = () =>
  defineTool({
    name: "lint_advice",
    description: "Policy advice for one diagnostic: policies, skills, the rerun call.",
    input: z.strictObject({
      tool: z.string().min(1).max(100).describe("e.g. ruff"),
      rule: z.string().min(1).max(200).optional().describe("e.g. F401"),
      message: z.string().max(4000).optional().describe("The diagnostic's text"),
      path: z.string().max(4096).optional().describe("Its file"),
    }),
    annotations: { title: "Lint advice", ...READ_ONLY },
    traits: { advisory: true, reads_files: false, runs_tools: false, persists_traces: false },
    async handler(args, ctx) {
      if (args.rule === undefined && !args.message?.trim())
        throw new ToolError("invalid_input", "give the diagnostic's rule, or at least its message");
      await refreshPolicy(ctx);
      const advice = advisorOf(ctx).adviseDiagnostic({ ...args, rule: args.rule ?? "" });
      return {
        success: true,
        mapped: advice.mapped,
        bundle_hash: advice.bundle_hash,
        ...adviceIds(advice),
        policies: advice.policies,
        skills: advice.skills.map((s) => ({ skill_id: s.skill_id, title: s.title, summary: s.summary })),
        advice: advice.policies.map((p) => p.advice),
        rerun: rerunFor(args.tool, args.path),
        ...(advice.mapped
          ? {}
          : {
              note:
                advice.bundle_hash === "none"
                  ? "unmapped: no policy bundle is loaded"
                  : `unmapped: the bundle's evidence map has no policy for ${args.tool} ${args.rule ?? `"${args.message}"`}`,
            }),
      };
    },
  });
