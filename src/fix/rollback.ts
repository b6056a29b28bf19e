/**
 * Rolling back earlier committed transactions of a project, newest first. A file is put back only when
 * it still holds what the transaction left; one changed since is a conflict (overwritten only with force).
 * Runs as a transaction of its own (tool "rollback"), so it is locked, journaled and audited too.
 */
import path from "node:path";
import type { CachePaths } from "./cache-dir.js";
import { readFileState, sameState } from "./file-state.js";
import { fileInRoot, hasObject, readManifest, restoreEntry, type Manifest } from "./snapshot.js";
import { readSeedManifest } from "./seed-interop.js";
import type { TxAudit, TxAuditEntry } from "./tx-audit.js";

export const MAX_ROLLBACK_COUNT = 20;

export interface RollbackSelection {
  count?: number;
  /** ISO timestamp: transactions committed at or after it. */
  since?: string;
}

export interface RollbackFile {
  run_id: string;
  /** Relative to the project root. */
  file: string;
}

export interface RollbackPlan {
  /** The chosen transactions, newest first. */
  transactions: { entry: TxAuditEntry; manifest: Manifest | undefined }[];
}

export interface RollbackReport {
  rolled_back: string[];
  restored: RollbackFile[];
  /** Already in the state from before the transaction. */
  unchanged: RollbackFile[];
  /** Snapshot (or its copy of the file) pruned or lost. */
  missing: RollbackFile[];
  /** Changed since the transaction; left alone unless force. */
  conflicts: RollbackFile[];
  /** Conflicts overwritten because of force. */
  forced: RollbackFile[];
}

const ROLLBACKABLE = new Set(["commit", "commit-partial-snapshot"]);

/**
 * A transaction cut short (a SIGKILL) whose recovery left files it could not tell from later edits: its
 * snapshot is kept with what those files held then as the after-state, so it rolls back like a commit.
 */
function interrupted(e: TxAuditEntry): boolean {
  return (
    e.recovered === true &&
    e.result === "rollback" &&
    Array.isArray(e.conflicts) &&
    e.conflicts.length > 0 &&
    e.conflicts.every((f) => typeof f === "string")
  );
}

/** The files a rollback of `e` is about: what it wrote, or what an interrupted one left. */
export function filesOf(e: TxAuditEntry): string[] {
  return interrupted(e) ? (e.conflicts as string[]) : e.files_written;
}

/** Committed transactions not yet rolled back, newest first, limited by count and since. */
export async function planRollback(
  paths: CachePaths,
  audit: TxAudit,
  selection: RollbackSelection,
): Promise<RollbackPlan> {
  const entries = await audit.read({});
  const undone = new Set(
    entries
      .filter((e) => e.tool === "rollback" && Array.isArray(e.rolled_back))
      .flatMap((e) => e.rolled_back as string[]),
  );
  const since = selection.since ? Date.parse(selection.since) : undefined;
  const eligible = entries
    .filter(
      (e) =>
        (ROLLBACKABLE.has(e.result) || interrupted(e)) &&
        e.tool !== "rollback" &&
        filesOf(e).length > 0 &&
        !undone.has(e.run_id) &&
        (since === undefined || Date.parse(e.timestamp) >= since),
    )
    .reverse()
    .slice(0, selection.count ?? (since !== undefined ? MAX_ROLLBACK_COUNT : 1));
  const transactions = [];
  for (const entry of eligible)
    transactions.push({
      entry,
      manifest: (await readManifest(paths, entry.run_id)) ?? (await readSeedManifest(paths, entry, entries)),
    });
  return { transactions };
}

/**
 * Every file a plan may write (absolute): what the rollback's own transaction snapshots. Names from the
 * audit that lead outside the root (it may have been tampered with) are left out, so never read.
 */
export function planFiles(paths: CachePaths, plan: RollbackPlan): string[] {
  const files = plan.transactions.flatMap(
    ({ entry, manifest }) => manifest?.files.map((f) => f.path) ?? filesOf(entry),
  );
  return [...new Set(files)].flatMap((f) => {
    try {
      return [fileInRoot(paths, f)];
    } catch {
      return [];
    }
  });
}

export async function applyRollback(
  paths: CachePaths,
  plan: RollbackPlan,
  force: boolean,
): Promise<RollbackReport> {
  const report: RollbackReport = {
    rolled_back: [],
    restored: [],
    unchanged: [],
    missing: [],
    conflicts: [],
    forced: [],
  };
  for (const { entry, manifest } of plan.transactions) {
    const runId = entry.run_id;
    if (!manifest) {
      for (const file of filesOf(entry)) report.missing.push({ run_id: runId, file });
      continue;
    }
    let complete = true;
    // The snapshot's own folder: the transaction's (ours), or the original server's snapshot of it.
    const snapshotRun = manifest.run_id;
    for (const f of manifest.files) {
      const item = { run_id: runId, file: f.path };
      const { state, content } = await readFileState(paths.root, path.join(paths.root, f.path));
      if (sameState(state, f.before)) {
        report.unchanged.push(item);
        continue;
      }
      if (!(await hasObject(paths, snapshotRun, f))) {
        report.missing.push(item);
        complete = false;
        continue;
      }
      const untouched = f.after !== undefined && sameState(state, f.after);
      if (!untouched && !force) {
        report.conflicts.push(item);
        complete = false;
        continue;
      }
      // Asked for by the user: a folder removed since is re-created to hold the file. Written only while the
      // file still holds what was just compared: a change since then is a conflict, force or not.
      const outcome = await restoreEntry(paths, snapshotRun, f, {
        recreateFolders: true,
        expect: content ?? null,
      });
      if (outcome !== "restored") {
        report.conflicts.push(item);
        complete = false;
        continue;
      }
      (untouched ? report.restored : report.forced).push(item);
    }
    if (complete) report.rolled_back.push(runId);
  }
  return report;
}
