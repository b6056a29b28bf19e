/**
 * A cheap fingerprint of a project tree (size, mtime, ctime, inode, mode of every file), taken before
 * and after a fix to catch writes outside the snapshotted set. Caches and environments are skipped.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { CACHE_DIR_NAME } from "./cache-dir.js";

export const SKIPPED_DIRS = new Set([
  CACHE_DIR_NAME,
  ".git",
  "node_modules",
  ".venv",
  "venv",
  "__pycache__",
  ".mypy_cache",
  ".ruff_cache",
  ".pytest_cache",
  ".tox",
]);

export const MAX_TREE_ENTRIES = 100_000;

export interface TreeStat {
  /** Relative path → fingerprint. */
  entries: Map<string, string>;
  /** False when the walk stopped at MAX_TREE_ENTRIES. */
  complete: boolean;
}

export async function statTree(root: string, maxEntries = MAX_TREE_ENTRIES): Promise<TreeStat> {
  const entries = new Map<string, string>();
  let complete = true;
  const walk = async (dir: string): Promise<void> => {
    const list = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const d of list) {
      if (entries.size >= maxEntries) {
        complete = false;
        return;
      }
      const abs = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (!SKIPPED_DIRS.has(d.name)) await walk(abs);
        continue;
      }
      const st = await fs.lstat(abs, { bigint: true }).catch(() => undefined);
      if (st)
        entries.set(path.relative(root, abs), `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}:${st.mode}`);
    }
  };
  await walk(root);
  return { entries, complete };
}

/** Relative paths added, removed or changed between two fingerprints. */
export function changedPaths(before: TreeStat, after: TreeStat): string[] {
  const out = new Set<string>();
  for (const [p, fp] of after.entries) if (before.entries.get(p) !== fp) out.add(p);
  for (const p of before.entries.keys()) if (!after.entries.has(p)) out.add(p);
  return [...out].sort();
}
