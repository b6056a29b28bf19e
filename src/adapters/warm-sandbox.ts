/**
 * The sandbox of a warm worker or daemon: read-only, whatever call starts it, since it serves every later call
 * of its root (fixes come back as text and the transaction writes them). `caches`: the server's own cache
 * folders it fills, read-write.
 */
import type { SandboxRun, ToolContext } from "../engine/tool.js";
import { limitsFrom } from "../exec/sandbox/launch.js";

export function readOnlySandbox(ctx: ToolContext, caches?: readonly string[]): SandboxRun {
  return {
    ...ctx.sandbox(),
    request: { kind: "read", roots: ctx.allowlist.roots.effective, ...(caches ? { caches } : {}) },
    // RLIMIT_CPU counts a process's whole life: a warm worker would be killed after many calls, not one.
    // Its CPU is bounded per request instead (warm-worker.ts, cpu-time.ts).
    limits: limitsFrom(ctx.config, true),
  };
}
