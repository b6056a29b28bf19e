/**
 * Snapshot retention: snapshots older than SNAPSHOT_MAX_AGE_MS, beyond the newest SNAPSHOT_MAX_COUNT,
 * or left without a manifest by a crash, are deleted (after recovery, under the root lock).
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { CachePaths } from "./cache-dir.js";
import { isRunId, readManifest, removeSnapshot } from "./snapshot.js";

export const SNAPSHOT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
export const SNAPSHOT_MAX_COUNT = 100;

/** Deletes expired snapshots except those in `keep`; returns the run ids removed. */
export async function pruneSnapshots(
  paths: CachePaths,
  keep: ReadonlySet<string> = new Set(),
  now = Date.now(),
): Promise<string[]> {
  const names = await fs.readdir(paths.snapshots).catch(() => [] as string[]);
  const dated: { runId: string; created: number }[] = [];
  const removed: string[] = [];
  for (const runId of names) {
    if (keep.has(runId) || !isRunId(runId)) continue;
    const manifest = await readManifest(paths, runId);
    if (!manifest) {
      const st = await fs.stat(path.join(paths.snapshots, runId)).catch(() => undefined);
      // A snapshot being written has no manifest yet for a moment; only old orphans are removed.
      if (st && now - st.mtimeMs > 60_000) {
        await removeSnapshot(paths, runId);
        removed.push(runId);
      }
      continue;
    }
    dated.push({ runId, created: Date.parse(manifest.created) || 0 });
  }
  dated.sort((a, b) => b.created - a.created);
  for (const [i, s] of dated.entries()) {
    if (now - s.created > SNAPSHOT_MAX_AGE_MS || i >= SNAPSHOT_MAX_COUNT) {
      await removeSnapshot(paths, s.runId);
      removed.push(s.runId);
    }
  }
  return removed;
}
