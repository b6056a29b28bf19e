/**
 * Where the result cache lives: the per-user cache folder (`$XDG_CACHE_HOME/mcp-code-quality/results`,
 * else `~/.cache/mcp-code-quality/results`), never a project. The folder is created owner-only and
 * refused when it is a link or someone else's: entries are read back as results.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The default result cache folder for this environment. */
export function defaultResultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : path.join(os.homedir(), ".cache");
  return path.join(base, "mcp-code-quality", "results");
}

/**
 * Creates `dir` (owner-only) and returns why it cannot be used, or undefined when it can: a link, not a
 * folder, or owned by another user.
 */
export function prepareCacheDir(dir: string): string | undefined {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    if (st.isSymbolicLink()) return `${dir} is a symbolic link`;
    if (!st.isDirectory()) return `${dir} is not a folder`;
    if (typeof process.getuid === "function" && st.uid !== process.getuid())
      return `${dir} belongs to another user`;
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
