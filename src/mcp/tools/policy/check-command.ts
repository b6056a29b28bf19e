import os from "node:os";
import { z } from "zod";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { agentRemediation, MAX_COMMAND_CHARS } from "../../../policy/checks.js";
import { policyRuntime } from "./runtime.js";

export const policyCheckCommandTool = () =>
  defineTool({
    name: "policy_check_command",
    description: "Check a shell command against policy before running it.",
    input: z.strictObject({
      command: z.string().max(MAX_COMMAND_CHARS).optional().describe("Shell command text"),
      argv: z.array(z.string()).max(1000).optional().describe("Or the command as argv"),
      cwd: z.string().optional().describe("Folder it would run in"),
    }),
    annotations: { title: "Check a command against policy", ...READ_ONLY },
    paths: [{ arg: "cwd", kind: "directory" }],
    async handler(args, ctx) {
      if ((args.command === undefined) === (args.argv === undefined))
        throw new ToolError("invalid_input", "give exactly one of command or argv");
      if (args.argv?.length === 0) throw new ToolError("invalid_input", "argv must name a program");
      const runtime = await policyRuntime(ctx);
      const cwd = args.cwd ?? ctx.allowlist.roots.effective[0] ?? ctx.config.cwd;
      const bundle = runtime.bundleFor(cwd, ctx.allowlist);
      const projectRoot = ctx.allowlist.rootOf(cwd) ?? cwd;
      const outcome = await runtime.checkCommand(bundle, args, {
        cwd,
        projectRoot,
        home: os.homedir(),
        roots: [...ctx.allowlist.roots.effective],
      });
      const command = args.command ?? (args.argv ?? []).join(" ");
      return {
        success: true,
        ...outcome,
        agent_remediation: agentRemediation(bundle, outcome, { kind: "command", command }),
        bundle_hash: bundle.hash,
      };
    },
  });
