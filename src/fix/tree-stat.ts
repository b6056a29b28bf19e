/**
 * A cheap fingerprint of a project tree (size, mtime, ctime, inode, mode of every file), taken before
 * and after a fix to catch writes outside the snapshotted set. Caches and environments are skipped.
 */
import type { BigIntStats } from "node:fs";
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
      if (!st) continue;
      let fp = fingerprint(st);
      // A write through a link lands in its target, wherever that is: the target's stat is part of the
      // link's fingerprint, so a fix that wrote through a link is seen as a write outside the snapshot.
      if (st.isSymbolicLink()) {
        const target = await fs.stat(abs, { bigint: true }).catch(() => undefined);
        fp += ` -> ${target ? fingerprint(target) : "nothing"}`;
      }
      entries.set(path.relative(root, abs), fp);
    }
  };
  await walk(root);
  return { entries, complete };
}

function fingerprint(st: BigIntStats): string {
  return `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}:${st.mode}`;
}

/** Relative paths added, removed or changed between two fingerprints. */
export function changedPaths(before: TreeStat, after: TreeStat): string[] {
  const out = new Set<string>();
  for (const [p, fp] of after.entries) if (before.entries.get(p) !== fp) out.add(p);
  for (const p of before.entries.keys()) if (!after.entries.has(p)) out.add(p);
  return [...out].sort();
}
