import { z } from "zod";
import { defineTool, READ_ONLY } from "../../engine/tool.js";
import { externalTools, probe, type ProbeResult } from "../../adapters/registry.js";
import { EmbeddedRuff, EMBEDDED_RUFF_SERVICE } from "../../adapters/python/ruff-embedded.js";
import { bundledJsTools, warmWorkers } from "../../adapters/js/status.js";
import { warmDaemons } from "../../adapters/python/mypy-warm.js";
import { VERSION } from "../../version.js";

export const getStatusTool = () =>
  defineTool({
    name: "get_status",
    description:
      "Server version, limits, allowed paths, rate limits, audit log path, and for every external tool whether it " +
      "is available and its version (probed concurrently, 10 s cap each).",
    input: z.strictObject({}),
    annotations: { title: "Server status", ...READ_ONLY },
    async handler(_args, ctx) {
      const e = ctx.engine;
      const { config } = ctx;
      const probes = await Promise.all(
        externalTools().map(async (t) => [t.name, await probe(t, config.cwd)] as const),
      );
      const tools: Record<string, ProbeResult> = Object.fromEntries(probes);
      try {
        const ruff = ctx.services.get(EMBEDDED_RUFF_SERVICE, () => new EmbeddedRuff());
        tools["ruff (embedded)"] = { available: true, version: ruff.version() };
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
        tools,
        warm_workers: warmWorkers(ctx),
        warm_checkers: warmDaemons(ctx).list(),
      };
    },
  });
