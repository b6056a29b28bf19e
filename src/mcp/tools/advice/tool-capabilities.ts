import { z } from "zod";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { MANAGED_TOOL_FACTS, managedTools } from "../../../adapters/managed-capabilities.js";
import { PROVIDERS } from "../../../policy/advice/providers.js";

/** Tools that run in the warm worker pool, under its heap cap. */
const WARM = new Set(["eslint", "prettier", "tsc"]);

const NO_SANDBOX =
  "none: no sandbox is configured; managed tools run as the server's user with its environment, bounded by " +
  "the allowlist (paths passed), timeouts with process-group kills, and output caps";

export const toolCapabilitiesTool = () =>
  defineTool({
    name: "tool_capabilities",
    description:
      "What each managed tool and advice provider may do: network, git, writes, limits, paths, sandbox.",
    input: z.strictObject({}),
    annotations: { title: "Tool capabilities", ...READ_ONLY },
    traits: { advisory: true, reads_files: false, runs_tools: false, persists_traces: false },
    async handler(_args, ctx) {
      const { config } = ctx;
      const roots = ctx.allowlist.roots.effective;
      const tools = managedTools().map(({ name, roles }) => {
        const facts = MANAGED_TOOL_FACTS[name];
        const writesProject = facts?.writes.includes("project-files") ?? false;
        return {
          name,
          roles,
          ...(facts ?? { metadata: "missing: this tool has no capability entry; treat it as unrestricted" }),
          timeout_seconds: config.timeout,
          output_cap_bytes: config.maxOutputBytes,
          memory_cap_mb: WARM.has(name) ? config.workerMaxHeapMb : null,
          may_read: roots,
          may_write: writesProject ? roots : [],
          sandbox: "none",
        };
      });
      const providers = Object.values(PROVIDERS).map((p) => {
        const configured = config.adviceProvider === p.name;
        return {
          name: p.name,
          roles: ["advice-provider"],
          configured,
          executable: configured ? config.adviceProviderPath : null,
          network: p.needsNetwork ? "required" : "none",
          network_allowed: configured && config.adviceAllowNetwork,
          git: false,
          writes: ["none"],
          runs_project_code: false,
          argv: p.argv("<prompt>"),
          output_format: p.outputFormat,
          timeout_seconds: config.adviceTimeout,
          max_input_bytes: config.adviceMaxInputBytes,
          output_cap_bytes: config.adviceMaxOutputBytes,
          memory_cap_mb: null,
          // It reads only the prompt: snippets the server read through the allowlist.
          may_read: [],
          may_write: [],
          sandbox: "none",
        };
      });
      return {
        success: true,
        sandbox: NO_SANDBOX,
        memory_cap_note: "memory_cap_mb null: no memory limit is applied to that tool's processes",
        tools: [...tools, ...providers],
        tool_count: tools.length + providers.length,
      };
    },
  });
