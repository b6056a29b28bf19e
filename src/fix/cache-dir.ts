/**
 * Where a project's transaction state lives: `<project root>/.mcp-cache/` with locks, snapshots, journals
 * and the transaction audit. Created owner-only (it holds copies of source) with a `.gitignore` inside.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../errors.js";
import { lstatIn, openDirIn, writeFileIn } from "../paths/safe-fs.js";
import { projectRootOf } from "../paths/project-root.js";

export { projectRootOf };

export const CACHE_DIR_NAME = ".mcp-cache";

export interface CachePaths {
  /** The project root the cache belongs to. */
  root: string;
  dir: string;
  locks: string;
  snapshots: string;
  journal: string;
  audit: string;
}

export function cachePaths(root: string): CachePaths {
  const dir = path.join(root, CACHE_DIR_NAME);
  return {
    root,
    dir,
    locks: path.join(dir, "locks"),
    snapshots: path.join(dir, "snapshots"),
    journal: path.join(dir, "journal"),
    audit: path.join(dir, "audit.jsonl"),
  };
}

/**
 * Throws path_validation when a cache folder or file is a symbolic link: one planted in the project would
 * send copies of its source, journals and audit lines outside the allowed paths (and recovery would read
 * them back from there).
 */
export async function checkNoLinks(paths: CachePaths): Promise<void> {
  for (const p of [paths.dir, paths.locks, paths.snapshots, paths.journal, paths.audit]) {
    const st = await fs.lstat(p).catch(() => undefined);
    if (st?.isSymbolicLink())
      throw new ToolError(
        "path_validation",
        `${p} is a symbolic link; the transaction state of ${paths.root} must be a real folder inside it. Nothing was written.`,
        { allowed_paths: [paths.root] },
      );
  }
}

/**
 * Creates the cache folders owner-only (tightening an existing cache dir) and its `.gitignore`, each reached
 * from the root without following links; a `.gitignore` that is not a regular file (a planted link) is
 * replaced, never written through.
 */
export async function ensureCacheDir(root: string): Promise<CachePaths> {
  const paths = cachePaths(root);
  await checkNoLinks(paths);
  for (const dir of [paths.dir, paths.locks, paths.snapshots, paths.journal]) {
    const opened = openDirIn(root, dir, { create: 0o700 });
    try {
      opened.chmod(0o700);
    } finally {
      opened.close();
    }
  }
  const gitignore = path.join(paths.dir, ".gitignore");
  if (!lstatIn(root, gitignore)?.isFile())
    writeFileIn(root, gitignore, "# transaction state of mcp-code-quality: never commit\n*\n", {
      mode: 0o600,
      links: "replace",
    });
  return paths;
}
