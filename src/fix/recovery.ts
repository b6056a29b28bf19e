/**
 * Crash recovery: a journal left by a transaction whose process died is finished (it had reached its
 * commit) or undone from its snapshot (it was still writing). Runs under the root lock before every
 * transaction, and at server start for the allowed roots.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../log.js";
import { CACHE_DIR_NAME, cachePaths, checkNoLinks, type CachePaths } from "./cache-dir.js";
import { readFileState, sameState, type FileState } from "./file-state.js";
import { removeTempFiles } from "./temp-files.js";
import { listJournals, readWrites, removeJournal, type Journal } from "./journal.js";
import { acquireLock, LOCK_STALE_MS } from "./lock.js";
import { commitSnapshot, readManifest, removeSnapshot, restoreEntry } from "./snapshot.js";
import { TxAudit } from "./tx-audit.js";
import { SKIPPED_DIRS } from "./tree-stat.js";

/** Run ids of transactions in flight in this process: their journals are not leftovers. */
export const activeRuns = new Set<string>();

function processAlive(pid: number): boolean {
  if (!pid || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface Recovered {
  run_id: string;
  action: "finished" | "undone" | "unrecoverable";
  restored_files: string[];
  /** Files changed since the transaction wrote them (by hand, after the crash): left as they are. */
  conflicts: string[];
}

/** Recovers every leftover journal of a root; the caller holds the root lock. */
export async function recoverRoot(paths: CachePaths, audit: TxAudit): Promise<Recovered[]> {
  const out: Recovered[] = [];
  for (const journal of await listJournals(paths)) {
    if (activeRuns.has(journal.run_id) || processAlive(journal.pid)) continue;
    out.push(await recoverOne(paths, audit, journal));
    await removeJournal(paths, journal.run_id);
  }
  return out;
}

async function recoverOne(paths: CachePaths, audit: TxAudit, journal: Journal): Promise<Recovered> {
  const base = {
    run_id: journal.run_id,
    tool: journal.tool,
    root: paths.root,
    lock_wait_ms: 0,
    lock_hold_ms: 0,
    recovered: true,
    interrupted_pid: journal.pid,
  };
  const manifest = journal.snapshot ? await readManifest(paths, journal.run_id) : undefined;
  removeTempFiles(paths.root, [...journal.files, ...(manifest?.files.map((f) => f.path) ?? [])]);
  if (journal.phase === "committing") {
    const logged = (await audit.read({})).some(
      (e) => e.run_id === journal.run_id && e.result !== "locked-out",
    );
    if (!logged)
      await audit.append({
        ...base,
        result: journal.snapshot ? "commit" : "commit-no-snapshot",
        reason: "recovery: the process died after its fix was final; commit completed",
        files_written: manifest?.files.map((f) => f.path) ?? journal.files,
      });
    return { run_id: journal.run_id, action: "finished", restored_files: [], conflicts: [] };
  }
  if (!manifest) {
    await audit.append({
      ...base,
      result: "error",
      reason:
        "recovery: the process died while writing and no snapshot exists, so the files it may have " +
        "written could not be restored",
      files_written: [],
      unrestorable_files: journal.files,
    });
    return { run_id: journal.run_id, action: "unrecoverable", restored_files: [], conflicts: [] };
  }
  // Only what the transaction logged as its own writes is undone; anything else changed since.
  const written = readWrites(paths, journal.run_id);
  const restored: string[] = [];
  const failed: string[] = [];
  const conflicts: string[] = [];
  for (const entry of manifest.files) {
    let state;
    let content: Buffer | undefined;
    try {
      ({ state, content } = await readFileState(paths.root, path.join(paths.root, entry.path)));
    } catch {
      failed.push(entry.path);
      continue;
    }
    if (sameState(state, entry.before)) continue;
    if (!written.get(entry.path)?.has(state.sha256)) {
      conflicts.push(entry.path);
      continue;
    }
    try {
      const outcome = await restoreEntry(paths, journal.run_id, entry, { expect: content ?? null });
      if (outcome === "restored") restored.push(entry.path);
      else conflicts.push(entry.path);
    } catch {
      failed.push(entry.path);
    }
  }
  // Files that changed with no record of this transaction's (an external tool killed mid-write, or an edit
  // since) cannot be told apart here, so they are left; their snapshot is committed with what they hold now
  // as the transaction's after-state, so an explicit `rollback` restores them as it would a commit.
  if (conflicts.length && failed.length === 0) {
    const left = new Map<string, FileState>();
    for (const p of conflicts) left.set(p, (await readFileState(paths.root, path.join(paths.root, p))).state);
    await commitSnapshot(paths, manifest, left);
  }
  await audit.append({
    ...base,
    result: "rollback",
    reason:
      `recovery: the process (pid ${journal.pid}) died before its transaction committed; ` +
      `restored ${restored.length} file(s) from the snapshot` +
      (conflicts.length
        ? `; ${conflicts.length} file(s) it cannot tell from later edits (written by a tool it ran, ` +
          `or edited since) were left as they are (conflicts; the snapshot ${journal.run_id} keeps their ` +
          "earlier bytes, and `rollback` puts them back)"
        : ""),
    files_written: restored,
    restored_files: restored,
    ...(conflicts.length ? { conflicts } : {}),
    ...(failed.length ? { unrestorable_files: failed } : {}),
  });
  if (failed.length === 0 && conflicts.length === 0) await removeSnapshot(paths, journal.run_id);
  return { run_id: journal.run_id, action: "undone", restored_files: restored, conflicts };
}

/** Project directories to look at on start: each allowed root and its folders two levels down. */
async function cachesUnder(root: string, depth = 2): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string, level: number): Promise<void> => {
    const journal = path.join(dir, CACHE_DIR_NAME, "journal");
    const names = await fs.readdir(journal).catch(() => [] as string[]);
    if (names.some((n) => n.endsWith(".json"))) found.push(dir);
    if (level >= depth) return;
    const list = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const d of list)
      if (d.isDirectory() && !SKIPPED_DIRS.has(d.name) && !d.name.startsWith("."))
        await visit(path.join(dir, d.name), level + 1);
  };
  await visit(root, 0);
  return found;
}

/**
 * At server start: recovers interrupted transactions of projects at or just below the allowed roots
 * (deeper ones are recovered by their next transaction). Waits out a dead holder's stale lock.
 */
export async function recoverAtStartup(
  roots: readonly string[],
  auditMaxBytes: number,
  log: Logger,
): Promise<Recovered[]> {
  const all: Recovered[] = [];
  for (const allowed of roots) {
    for (const root of await cachesUnder(allowed)) {
      const paths = cachePaths(root);
      try {
        await checkNoLinks(paths);
      } catch (err) {
        log.warn(`recovery of ${root} skipped: ${(err as Error).message}`);
        continue;
      }
      const lock = await acquireLock(paths, LOCK_STALE_MS * 3);
      if (!lock) {
        log.warn(`recovery of ${root} postponed: its lock is held`);
        continue;
      }
      try {
        const done = await recoverRoot(paths, new TxAudit(paths.audit, auditMaxBytes));
        for (const r of done)
          log.warn(
            `recovered interrupted transaction ${r.run_id} in ${root}: ${r.action}, restored ${r.restored_files.length} file(s)`,
          );
        all.push(...done);
      } finally {
        await lock.release();
      }
    }
  }
  return all;
}
