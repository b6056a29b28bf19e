/** Picks which copy of a Python tool runs: the project's virtualenv first, then PATH. */
import { findExecutable } from "../../exec/which.js";
import type { ToolContext } from "../../engine/tool.js";
import { pythonToolDirs } from "./venv.js";

export interface ResolvedPythonTool {
  /** Absolute executable, or undefined when neither the virtualenv nor PATH has it. */
  executable: string | undefined;
  searchDirs: string[];
  note: string | undefined;
}

export function resolvePythonTool(ctx: ToolContext, program: string, target: string): ResolvedPythonTool {
  const root = ctx.allowlist.rootOf(target);
  const { dirs, origin } = pythonToolDirs(target, root);
  const executable = findExecutable(program, dirs);
  const fromVenv = executable !== undefined && dirs.some((d) => executable.startsWith(d + "/"));
  return {
    executable,
    searchDirs: dirs,
    note: executable
      ? fromVenv
        ? `${program} from the project's virtualenv ${origin}`
        : `${program} from PATH (${executable})`
      : undefined,
  };
}
