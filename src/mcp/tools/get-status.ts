import { z } from "zod";
import { defineTool, READ_ONLY } from "../../engine/tool.js";
import { externalTools, probe, type ProbeResult } from "../../adapters/registry.js";
import { embeddedRuffVersion } from "../../adapters/python/ruff-embedded.js";
import { bundledJsTools, warmWorkers } from "../../adapters/js/status.js";
import { warmProcessRegistry } from "../../exec/warm-processes.js";
import { projectToolStatus } from "../../adapters/project-status.js";
import { warmDaemons } from "../../adapters/python/mypy-warm.js";
import { VERSION } from "../../version.js";
import { sandboxReport } from "../../exec/sandbox/launch.js";

export const getStatusTool = () =>
  defineTool({
    name: "get_status",
    description: "Server version, limits, allowed paths, installed tools.",
    input: z.strictObject({
      path: z.string().optional().describe("A project: also the tools it would use"),
    }),
    annotations: { title: "Server status", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any" }],
    async handler(args, ctx) {
      const e = ctx.engine;
      const { config } = ctx;
      // Taken before the probes (which take up to 10 s): the warm processes as the call found them.
      const warm = [...warmWorkers(ctx), ...warmProcessRegistry(ctx.services).list()];
      const probes = await Promise.all(
        externalTools().map(async (t) => [t.name, await probe(t, config.cwd, ctx.sandbox())] as const),
      );
      const tools: Record<string, ProbeResult> = Object.fromEntries(probes);
      try {
        // From its package: get_status does not start the ruff thread.
        tools["ruff (embedded)"] = { available: true, version: embeddedRuffVersion() };
      } catch (err) {
        tools["ruff (embedded)"] = { available: false, reason: String(err) };
      }
      Object.assign(tools, bundledJsTools());
      const rateLimits = Object.fromEntries(
        e
          .listTools()
          .map((t) => [t.name, e.rateLimiter.limitOf(t.name)] as const)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, `${v}/minute`]),
      );
      return {
        success: true,
        version: VERSION,
        mode: config.mode,
        timeout_seconds: config.timeout,
        max_output_bytes: config.maxOutputBytes,
        max_concurrent: config.maxConcurrent,
        allowed_paths: {
          configured: config.allowedPaths,
          effective: ctx.allowlist.roots.effective,
          dropped: ctx.allowlist.roots.dropped,
        },
        rate_limits: config.rateLimit ? rateLimits : "disabled",
        audit_log: config.auditLog,
        toolsets: config.toolsets,
        sandbox: sandboxReport(config.sandbox),
        tools,
        // Every warm process and thread: the worker pool's, the embedded ruff's, and any registered daemon.
        warm_workers: warm,
        ...(args.path
          ? { project: await projectToolStatus(ctx, args.path, Object.fromEntries(probes)) }
          : {}),
        warm_checkers: warmDaemons(ctx).list(),
      };
    },
  });
