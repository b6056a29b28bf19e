/**
 * get_status `{path}`: the tools a call on that project would use, its own copies (node_modules, its
 * virtualenv) beside the PATH and bundled ones. Only version probes run; nothing in the project is written.
 */
import path from "node:path";
import type { ToolContext } from "../engine/tool.js";
import { findExecutable } from "../exec/which.js";
import { bundledPackage, majorVersion, projectPackage } from "./js/project.js";
import { pythonToolDirs } from "./python/venv.js";
import { externalTools, probe, type ProbeResult } from "./registry.js";

export interface ProjectToolStatus {
  /** Which copy a call would run: the project's, the one on PATH, or the server's bundled one. */
  used: "project" | "PATH" | "bundled" | "none";
  project?: ProbeResult & { source: string };
  path?: ProbeResult;
  bundled?: ProbeResult;
}

/** ESLint before 9 has no flat config by default: the server runs its bundled one instead (see eslint-scope). */
function jsUsable(name: string, version: string): boolean {
  return name !== "eslint" || majorVersion(version) >= 9;
}

export async function projectToolStatus(
  ctx: ToolContext,
  target: string,
  pathProbes: Record<string, ProbeResult>,
): Promise<{ path: string; tools: Record<string, ProjectToolStatus> }> {
  const allowedRoot = ctx.allowlist.rootOf(target) ?? target;
  const dir = path.extname(target) ? path.dirname(target) : target;
  const tools: Record<string, ProjectToolStatus> = {};

  for (const name of ["eslint", "typescript", "prettier"]) {
    const own = projectPackage(name, dir, allowedRoot);
    const bundled = bundledPackage(name);
    const status: ProjectToolStatus = {
      used: own?.entry && jsUsable(name, own.version) ? "project" : "bundled",
      bundled: { available: true, version: bundled.version, path: bundled.dir },
    };
    if (own)
      status.project = { available: true, version: own.version, path: own.dir, source: "node_modules" };
    tools[name] = status;
  }

  const { dirs, origin } = pythonToolDirs(target, ctx.allowlist.rootOf(target));
  await Promise.all(
    externalTools().map(async (tool) => {
      if (tools[tool.name]) return;
      const onPath = pathProbes[tool.name];
      // The virtualenv's bin directory only (PATH is probed above).
      const found = dirs.length ? findExecutable(tool.program, dirs, "") : undefined;
      const inVenv = found !== undefined;
      const status: ProjectToolStatus = { used: onPath?.available ? "PATH" : "none", path: onPath };
      if (inVenv) {
        const own = await probe({ ...tool, program: found }, dir, ctx.sandbox());
        status.project = { ...own, source: `virtualenv ${origin}` };
        if (own.available) status.used = "project";
      }
      tools[tool.name] = status;
    }),
  );
  return { path: target, tools };
}
