/**
 * The sandbox of a warm worker or daemon: read-only, whatever call starts it, since it serves every later call
 * of its root (fixes come back as text and the transaction writes them).
 */
import type { SandboxRun, ToolContext } from "../engine/tool.js";

export function readOnlySandbox(ctx: ToolContext): SandboxRun {
  return { ...ctx.sandbox(), request: { kind: "read", roots: ctx.allowlist.roots.effective } };
}
