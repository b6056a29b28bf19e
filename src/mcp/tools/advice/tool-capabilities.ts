import { z } from "zod";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { MANAGED_TOOL_FACTS, managedTools } from "../../../adapters/managed-capabilities.js";
import { PROVIDERS } from "../../../policy/advice/providers.js";
import { limitsFrom, sandboxReport, type SandboxMode } from "../../../exec/sandbox/launch.js";
import type { ResourceLimits } from "../../../exec/sandbox/profile.js";
import { planProfile, type SandboxRequest } from "../../../exec/sandbox/plan.js";
import { hostLayout } from "../../../exec/sandbox/host.js";
import { envFamilyOf, environmentReport, toolEnvironment } from "../../../exec/sandbox/env.js";
import type { Allowlist } from "../../../paths/allowlist.js";
import { loadProjectConfig } from "../../../project-config/index.js";

/** The tools run_tests runs: they get run_tests's sandbox (the roots read-write). */
const TEST_TOOLS = new Set(["pytest", "go test", "cargo test", "javascript", "ruby tests", "rspec"]);

/** Tools that run in the warm worker pool, under its heap cap. */
const WARM = new Set(["eslint", "prettier", "tsc"]);

/** Which of the server's environment variables a tool gets (sandbox/env.ts), as the runner builds it. */
function environmentOf(name: string, request: SandboxRequest): Record<string, unknown> {
  const built = toolEnvironment(name, name, request, {});
  const declared = MANAGED_TOOL_FACTS[name]?.env;
  return {
    family: envFamilyOf(name),
    ...(declared ? { credentials_it_declares: declared } : {}),
    policy:
      built.policy === "allowlist"
        ? "its family's allowlist (environment.tools_without_project_code)"
        : "every variable but the server's own and credentials (it runs project code)",
  };
}

/**
 * The profile the runner enforces for a tool (sandbox/plan.ts, from the same facts as above), or why none is:
 * reported from the plan itself, so what is said is what runs.
 */
function enforced(
  mode: SandboxMode,
  request: SandboxRequest,
  name: string,
  cwd: string,
  writesInTransactions: readonly string[],
  limits: ResourceLimits | undefined,
): Record<string, unknown> {
  const report = sandboxReport(mode);
  if (report.enforced !== true) return report;
  const profile = planProfile(hostLayout(), request, name, cwd);
  return {
    kind: "bubblewrap",
    version: report.version,
    mode,
    network: profile.network ? "allowed" : "none (own network namespace, loopback only)",
    read_only: [...profile.system.filter((m) => !m.link).map((m) => m.path), ...profile.readOnly],
    read_write: profile.readWrite,
    read_write_in_transactions: writesInTransactions,
    tmp: "private (tmpfs)",
    home: `${profile.home} empty (tmpfs); only the toolchains and caches listed above are bound`,
    hidden: profile.hidden.map((h) => h.path),
    pid_namespace: true,
    die_with_parent: true,
    limits: {
      cpu_seconds: limits?.cpuSeconds ?? null,
      memory_bytes: limits?.dataBytes ?? null,
      how: limits
        ? "prlimit inside the sandbox: RLIMIT_CPU (SIGXCPU, then SIGKILL) per run; a warm worker's (ESLint, Prettier, " +
          "tsc, RuboCop) CPU per request, read from /proc, past which the worker is killed with its process group " +
          "(dmypy and pyright's language server: the timeout alone); RLIMIT_DATA for every process (an allocation past it fails)"
        : "none set (--tool-max-cpu-seconds, --tool-max-memory-mb); the timeout and the output cap still bound every run",
    },
  };
}

/**
 * run_tests' network as each allowed root's project setting leaves it (a project may only cut it): the
 * operator's flag and, per root whose config sets `run_tests.network`, the effective value.
 */
interface ProjectTestsNetwork {
  root: string;
  file?: string;
  setting?: boolean;
  error?: string;
  effective: boolean;
}

function testsNetwork(allowlist: Allowlist, operatorAllows: boolean) {
  const projects = allowlist.roots.effective.flatMap((root): ProjectTestsNetwork[] => {
    try {
      const { config, file } = loadProjectConfig(root, allowlist);
      const wanted = config.run_tests?.network;
      return wanted === undefined
        ? []
        : [{ root, file, setting: wanted, effective: wanted && operatorAllows }];
    } catch (err) {
      // A broken config fails run_tests itself with its error; here it only cannot loosen anything.
      return [{ root, error: (err as Error).message, effective: operatorAllows }];
    }
  });
  return {
    operator: operatorAllows,
    projects,
    how: "--tests-network (operator); run_tests.network in a project's .mcp-code-quality/config.yaml can cut it, never restore it",
  };
}

export const toolCapabilitiesTool = () =>
  defineTool({
    name: "tool_capabilities",
    description: "What each managed tool may do (network, git, writes, sandbox).",
    input: z.strictObject({}),
    annotations: { title: "Tool capabilities", ...READ_ONLY },
    traits: { advisory: true, reads_files: false, runs_tools: false, persists_traces: false },
    async handler(_args, ctx) {
      const { config } = ctx;
      const roots = ctx.allowlist.roots.effective;
      const tools = managedTools().map(({ name, roles }) => {
        const facts = MANAGED_TOOL_FACTS[name];
        const writesProject = facts?.writes.includes("project-files") ?? false;
        const isTestTool = roles.includes("test-runner") || TEST_TOOLS.has(name);
        return {
          name,
          roles,
          ...(facts ?? { metadata: "missing: this tool has no capability entry; treat it as unrestricted" }),
          timeout_seconds: config.timeout,
          output_cap_bytes: config.maxOutputBytes,
          memory_cap_mb: [WARM.has(name) ? config.workerMaxHeapMb : 0, config.toolMaxMemoryMb]
            .filter((mb) => mb > 0)
            .reduce<number | null>((a, b) => (a === null ? b : Math.min(a, b)), null),
          ...(isTestTool ? { tests_network: testsNetwork(ctx.allowlist, config.testsNetwork) } : {}),
          may_read: roots,
          may_write: writesProject ? roots : [],
          environment: environmentOf(
            name,
            isTestTool ? { kind: "tests", roots, network: config.testsNetwork } : { kind: "read", roots },
          ),
          sandbox: enforced(
            config.sandbox,
            // A run makes the tested project writable, which may be in any root (plan.ts gives none unnamed).
            isTestTool
              ? { kind: "tests", roots, writableRoots: roots, network: config.testsNetwork }
              : { kind: "read", roots },
            name,
            roots[0] ?? config.cwd,
            writesProject ? roots : [],
            limitsFrom(config),
          ),
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
          memory_cap_mb: config.toolMaxMemoryMb > 0 ? config.toolMaxMemoryMb : null,
          // It reads the prompt and, read-only, exactly the files a request names.
          may_read: ["the files a request names"],
          may_write: [],
          sandbox: enforced(
            config.sandbox,
            { kind: "provider", roots: [], network: config.adviceAllowNetwork },
            configured && config.adviceProviderPath ? config.adviceProviderPath : p.name,
            "/tmp",
            [],
            limitsFrom(config),
          ),
        };
      });
      return {
        success: true,
        sandbox: sandboxReport(config.sandbox),
        environment: environmentReport(),
        memory_cap_note:
          "memory_cap_mb: the warm workers' heap cap (--worker-max-heap-mb) and --tool-max-memory-mb, the lower; " +
          "null: no memory limit is applied to that tool's processes",
        tools: [...tools, ...providers],
        tool_count: tools.length + providers.length,
      };
    },
  });
