/**
 * The server's own cache and runtime directories for the Python checkers (never inside the project):
 * mypy's incremental cache under $XDG_CACHE_HOME/mcp-code-quality (else ~/.cache/mcp-code-quality),
 * one folder per project root and config, so a warm run costs what an incremental one does.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** `$XDG_CACHE_HOME/mcp-code-quality/<tool>`, else `~/.cache/mcp-code-quality/<tool>`. */
export function serverCacheDir(tool: string, env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : path.join(os.homedir(), ".cache");
  return path.join(base, "mcp-code-quality", tool);
}

/** A short stable key for (root, config, ...). */
export function cacheKey(...parts: (string | undefined)[]): string {
  return createHash("sha256")
    .update(parts.map((p) => p ?? "").join("\0"))
    .digest("hex")
    .slice(0, 16);
}

/**
 * Creates (owner-only) and returns the cache folder of one project for `tool`, or undefined when it
 * cannot be created (a read-only home): the caller then runs without a cache and says so.
 */
export function projectCacheDir(tool: string, key: string): string | undefined {
  const dir = path.join(serverCacheDir(tool), key);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Refuse a folder that is a link or not ours: mypy would write wherever it points.
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || (typeof process.getuid === "function" && st.uid !== process.getuid()))
      return undefined;
    return dir;
  } catch {
    return undefined;
  }
}
