/** What get_status reports for JavaScript/TypeScript: the bundled tool versions and the live warm workers. */
import type { ToolContext } from "../../engine/tool.js";
import type { WorkerInfo } from "../../exec/worker-pool.js";
import type { ProbeResult } from "../registry.js";
import { bundledPackage } from "./project.js";
import { workerPool } from "./warm.js";

export function bundledJsTools(): Record<string, ProbeResult> {
  const out: Record<string, ProbeResult> = {};
  for (const name of ["eslint", "typescript", "prettier"]) {
    try {
      const mod = bundledPackage(name);
      out[`${name} (bundled)`] = { available: true, version: mod.version, path: mod.dir };
    } catch (err) {
      out[`${name} (bundled)`] = {
        available: false,
        reason: err instanceof Error ? err.message : String(err),
      };
    }
  }
  return out;
}

export function warmWorkers(ctx: ToolContext): WorkerInfo[] {
  return workerPool(ctx).list();
}
