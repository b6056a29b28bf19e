/** Finds the project's own Python environment, so its tools (and plugins) are used before PATH's. */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";

export interface PythonEnvironment {
  /** The virtualenv's bin directory. */
  binDir: string;
  /** Where it was found: $VIRTUAL_ENV, or the path of .venv/venv. */
  origin: string;
}

function binOf(venv: string): string | undefined {
  const bin = path.join(venv, "bin");
  return fs.existsSync(path.join(bin, "python")) || fs.existsSync(path.join(bin, "python3"))
    ? bin
    : undefined;
}

/**
 * The project's virtualenv: $VIRTUAL_ENV first, then `.venv/` or `venv/` in `start` or any parent up to
 * and including `root`. Undefined when there is none.
 */
export function findPythonEnvironment(
  start: string,
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): PythonEnvironment | undefined {
  if (env.VIRTUAL_ENV) {
    const bin = binOf(env.VIRTUAL_ENV);
    if (bin) return { binDir: bin, origin: `$VIRTUAL_ENV (${env.VIRTUAL_ENV})` };
  }
  let dir = fs.existsSync(start) && fs.statSync(start).isFile() ? path.dirname(start) : start;
  while (isWithin(root, dir)) {
    for (const name of [".venv", "venv"]) {
      const bin = binOf(path.join(dir, name));
      if (bin) return { binDir: bin, origin: path.join(dir, name) };
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** Directories to search for a Python tool before PATH, with a note saying which environment they are. */
export function pythonToolDirs(start: string, root: string | undefined): { dirs: string[]; origin?: string } {
  const env = findPythonEnvironment(start, root ?? start);
  return env ? { dirs: [env.binDir], origin: env.origin } : { dirs: [] };
}
