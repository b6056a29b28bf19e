/** How adapters show a file in `issues` and file lists: relative to the server's working directory when inside it. */
import path from "node:path";
import type { ToolContext } from "../engine/tool.js";

export function displayRelative(ctx: ToolContext, file: string, base = ctx.config.cwd): string {
  const abs = path.resolve(base, file);
  const rel = path.relative(ctx.config.cwd, abs);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : abs;
}
