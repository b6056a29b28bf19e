import os from "node:os";
import { z } from "zod";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { checkCommand, MAX_COMMAND_CHARS } from "../../../policy/checks.js";
import { recommendSkills } from "../../../policy/recommend.js";
import { knownId, policyRuntime } from "./runtime.js";

export const skillLookupTool = () =>
  defineTool({
    name: "skill_lookup",
    description: "Return a skill playbook by id.",
    input: z.strictObject({ skill_id: z.string().min(1).max(200).describe("e.g. hook-failures") }),
    annotations: { title: "Look up a skill", ...READ_ONLY },
    async handler(args, ctx) {
      const bundle = (await policyRuntime(ctx)).defaultBundle();
      const skill = knownId("skill", args.skill_id, bundle.skill(args.skill_id), bundle.data.skills);
      const { source: _source, ...rest } = skill;
      return { success: true, skill: { ...rest, skill_id: skill.id }, bundle_hash: bundle.hash };
    },
  });

const diagnostic = z.strictObject({
  tool: z.string().min(1).max(50),
  rule: z.string().min(1).max(200),
  message: z.string().max(4000).optional(),
  path: z.string().max(4096).optional(),
});

export const skillRecommendTool = () =>
  defineTool({
    name: "skill_recommend",
    description: "Rank skill playbooks for a task, command, file or finding.",
    input: z.strictObject({
      task: z.string().max(4000).optional().describe("What you are about to do"),
      command: z.string().max(MAX_COMMAND_CHARS).optional().describe("A command you will run"),
      path: z.string().max(4096).optional().describe("A file you will edit"),
      diagnostic: z
        .union([z.string().max(4000), diagnostic])
        .optional()
        .describe("A finding: its text or {tool, rule}"),
      limit: z.number().int().min(1).max(20).default(5).describe("Skills to return"),
    }),
    annotations: { title: "Recommend skills", ...READ_ONLY },
    async handler(args, ctx) {
      if (!args.task && !args.command && !args.path && !args.diagnostic)
        throw new ToolError("invalid_input", "give at least one of task, command, path or diagnostic");
      const bundle = (await policyRuntime(ctx)).defaultBundle();
      let commandSkills: { skill_id: string; policy_id: string }[] = [];
      if (args.command) {
        const root = ctx.allowlist.roots.effective[0] ?? ctx.config.cwd;
        const outcome = await checkCommand(
          bundle,
          { command: args.command },
          { cwd: root, projectRoot: root, home: os.homedir(), roots: [...ctx.allowlist.roots.effective] },
        );
        commandSkills = outcome.violations.flatMap((v) =>
          v.skill_id ? [{ skill_id: v.skill_id, policy_id: v.policy_id }] : [],
        );
      }
      const skills = recommendSkills(bundle, { ...args, commandSkills }, args.limit);
      return { success: true, skills, bundle_hash: bundle.hash };
    },
  });
