/**
 * One transaction around every tool call that writes: root lock → recovery of leftovers → snapshot of
 * the files the work may touch → journal → the work → detection of what was written (and of writes
 * outside the snapshot) → verification → commit, or rollback byte for byte → audit entry → unlock.
 */
import { randomBytes } from "node:crypto";
import fsSync from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import type { ToolContext } from "../engine/tool.js";
import { writeObserver } from "../paths/safe-fs.js";
import { withWritableRoots } from "../exec/sandbox/scope.js";
import { ensureCacheDir, projectRootOf, type CachePaths } from "./cache-dir.js";
import type { FileState } from "./file-state.js";
import { removeJournal, writeJournal } from "./journal.js";
import { acquireLock } from "./lock.js";
import { activeRuns, recoverRoot } from "./recovery.js";
import { pruneSnapshots } from "./retention.js";
import {
  commitSnapshot,
  removeSnapshot,
  takeSnapshot,
  type Manifest,
  type SnapshotOutcome,
} from "./snapshot.js";
import { pauseForCrashTest, stopAfterStepForTest, stopBeforeClaimForTest } from "./test-pause.js";
import { changedPaths, statTree } from "./tree-stat.js";
import { TxAudit } from "./tx-audit.js";
import type { TransactionOutcome, TransactionReport, TransactionSpec, TxHandle } from "./tx-types.js";
import { WriteLedger } from "./tx-writes.js";

export type {
  TransactionOutcome,
  TransactionReport,
  TransactionSpec,
  TxHandle,
  Verification,
} from "./tx-types.js";

/** Longest wait for another process's transaction on the same root, in seconds. */
export const MAX_LOCK_WAIT_SECONDS = 120;

export function newRunId(): string {
  return `${new Date()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}-${randomBytes(4).toString("hex")}`;
}

/** The transaction state of the project containing a canonical target. */
export async function projectCache(ctx: ToolContext, target: string): Promise<CachePaths> {
  const allowedRoot = ctx.allowlist.rootOf(target) ?? target;
  return ensureCacheDir(projectRootOf(target, allowedRoot));
}

export function txAudit(ctx: ToolContext, paths: CachePaths): TxAudit {
  return new TxAudit(paths.audit, ctx.config.cacheAuditMaxBytes);
}

/**
 * A file the fix may write that has other names (a hard link) is refused before the tool runs: a write
 * through one name is a write of every other, another project's file too (a red team's `ln victim/v3.py
 * evlink/h.py`: autoformat of evlink changed victim/v3.py), and the snapshot and rollback know this name only.
 */
function refuseHardLinks(candidates: readonly string[], root: string): void {
  const linked = candidates.filter((f) => {
    const st = fsSync.lstatSync(f, { throwIfNoEntry: false });
    return st?.isFile() === true && st.nlink > 1;
  });
  if (linked.length)
    throw new ToolError(
      "invalid_input",
      `${linked
        .slice(0, 5)
        .map((f) => path.relative(root, f))
        .join(", ")}${linked.length > 5 ? ` and ${linked.length - 5} more` : ""}: ` +
        `${linked.length === 1 ? "a file" : "files"} this fix may write ${linked.length === 1 ? "has" : "have"} ` +
        "other names (hard links), so writing it would change every other name's file too. Nothing was written; " +
        "replace the link with a copy (cp --remove-destination) or leave the file out of the path",
    );
}

/** Thrown at a checkpoint when the lock may have been taken from this transaction. */
class LockLost extends ToolError {
  constructor(cause: Error) {
    super("locked", `the root lock was lost during the run (${cause.message})`);
  }
}

/**
 * The snapshot, then the journal that names it; nothing is written to the project before both exist. When
 * either cannot be written (a full disk), what was made of them is removed and the call fails having
 * written nothing.
 */
async function snapshotAndJournal(
  paths: CachePaths,
  runId: string,
  tool: string,
  candidates: readonly string[],
  maxBytes: number,
): Promise<SnapshotOutcome> {
  try {
    const snap = await takeSnapshot(paths, runId, tool, candidates, maxBytes);
    await writeJournal(paths, {
      run_id: runId,
      tool,
      pid: process.pid,
      started: new Date().toISOString(),
      phase: "applying",
      snapshot: snap.taken,
      files: snap.taken
        ? snap.manifest.files.map((e) => e.path)
        : candidates.map((f) => path.relative(paths.root, f)),
    });
    return snap;
  } catch (err) {
    await removeSnapshot(paths, runId).catch(() => {});
    await removeJournal(paths, runId).catch(() => {});
    const message = err instanceof Error ? err.message : String(err);
    throw new ToolError(
      "exception",
      `could not take the snapshot and journal of this fix in ${paths.dir} (${message}). Nothing was written.`,
    );
  }
}

/** Runs `spec.work` as a transaction; throws ToolError("locked") when the root stays locked. */
export async function runTransaction<T>(
  ctx: ToolContext,
  spec: TransactionSpec<T>,
): Promise<TransactionOutcome<T>> {
  const paths = await projectCache(ctx, spec.target);
  const audit = txAudit(ctx, paths);
  const runId = newRunId();
  const waitLimitMs = Math.min(ctx.config.timeout, MAX_LOCK_WAIT_SECONDS) * 1000;
  const lock = await acquireLock(paths, waitLimitMs, ctx.signal);
  if (!lock) {
    await audit.append(
      {
        run_id: runId,
        tool: spec.tool,
        root: paths.root,
        result: "locked-out",
        reason: `another transaction held the lock of ${paths.root} (or of a project inside or around it) for ${waitLimitMs / 1000} s`,
        files_written: [],
        lock_wait_ms: waitLimitMs,
        lock_hold_ms: 0,
      },
      false,
    );
    throw new ToolError(
      "locked",
      `another transaction is writing in ${paths.root} (or in a project inside or around it); gave up after ${waitLimitMs / 1000} s. Nothing was written.`,
      { project_root: paths.root, run_id: runId },
    );
  }
  activeRuns.add(runId);
  const rel = (abs: string) => path.relative(paths.root, abs);
  const notes: string[] = [];
  const base = { run_id: runId, tool: spec.tool, root: paths.root, lock_wait_ms: lock.waitMs };
  const holdMs = () => Math.round(Date.now() - lock.acquiredAt.getTime());
  const lockTimes = () => ({
    lock_hold_ms: holdMs(),
    lock_acquired: lock.acquiredAt.toISOString(),
    lock_released: new Date().toISOString(),
  });
  const checkLock = () => {
    const lost = lock.compromised();
    if (lost) throw new LockLost(lost);
  };
  try {
    const recovered = await recoverRoot(paths, audit);
    for (const r of recovered)
      notes.push(
        `recovered interrupted transaction ${r.run_id} first (${r.action}; ${r.restored_files.length} file(s) restored` +
          (r.conflicts.length ? `; ${r.conflicts.length} changed since and left as they are` : "") +
          ")",
      );
    await pruneSnapshots(paths);

    let candidates: string[];
    try {
      candidates = [...new Set(await spec.candidates(paths.root))];
      refuseHardLinks(candidates, paths.root);
      checkLock();
    } catch (err) {
      // Nothing was written yet; the failure is still an outcome of this transaction.
      await audit.append({
        ...base,
        ...lockTimes(),
        result: "error",
        reason: err instanceof Error ? err.message : String(err),
        files_written: [],
        ...(err instanceof LockLost ? { lock_compromised: true } : {}),
      });
      if (err instanceof LockLost)
        throw new ToolError(
          "locked",
          `${err.message}: stopped before writing anything. Nothing was written.`,
          {
            transaction: { run_id: runId, result: "error", restored_files: [] },
          },
        );
      throw err;
    }
    const treeBefore = await statTree(paths.root);
    let snap: SnapshotOutcome;
    try {
      snap = await snapshotAndJournal(paths, runId, spec.tool, candidates, ctx.config.snapshotMaxBytes);
    } catch (err) {
      // On a full disk the audit line may not fit either; the call's error says what happened.
      await audit
        .append({
          ...base,
          ...lockTimes(),
          result: "error",
          reason: err instanceof Error ? err.message : String(err),
          files_written: [],
        })
        .catch(() => {});
      throw err;
    }
    const manifest: Manifest | undefined = snap.taken ? snap.manifest : undefined;
    const before = new Map<string, FileState>(
      snap.taken
        ? snap.manifest.files.map((e) => [e.path, e.before])
        : [...snap.states].map(([f, s]) => [rel(f), s]),
    );
    if (!snap.taken)
      notes.push(
        `no snapshot: the ${candidates.length} file(s) this fix may write hold ${snap.bytes} bytes, over ` +
          `--snapshot-max-bytes (${ctx.config.snapshotMaxBytes}); automatic rollback is off for this run and ` +
          "it cannot be rolled back later (audit: commit-no-snapshot)",
      );

    const ledger = new WriteLedger(paths, runId, lock, before, manifest, checkLock);
    let steps = 0;
    const handle: TxHandle = {
      runId,
      root: paths.root,
      beforeWriteStep: () => ledger.findForeignEdits(),
      afterWriteStep: async () => {
        // External tools write by themselves: what changed in a step under our lock is ours, unless it
        // was edited by someone else before the step began.
        await ledger.recordWritten();
        await pauseForCrashTest(runId);
        stopAfterStepForTest(runId, String(++steps));
      },
      auditExtra: {},
    };
    const snapshotInfo = { taken: snap.taken, files: candidates.length, bytes: snap.bytes };

    // The work and its verification: any failure in them restores what was written and is audited as error
    // (or as rollback, when the lock was lost).
    const attempt = async () => {
      checkLock();
      const value = await writeObserver.run(
        ledger.guardWrite,
        // Only the transaction's own work sees its root read-write in the sandbox; verification reads.
        () => withWritableRoots([paths.root], () => spec.work(handle)),
      );
      checkLock();
      stopBeforeClaimForTest(runId);
      const changed = await ledger.written();
      await ledger.recordWritten(changed);
      checkLock();
      const treeAfter = await statTree(paths.root);
      const outside = changedPaths(treeBefore, treeAfter).filter((p) => !before.has(p));
      if (!treeAfter.complete)
        notes.push(
          "the project has over 100000 files: writes outside the snapshot were only looked for in part",
        );
      if (outside.length)
        notes.push(
          `${outside.length} file(s) outside the snapshotted set changed during the fix and cannot be ` +
            `restored: ${outside.slice(0, 20).join(", ")}${outside.length > 20 ? ", ..." : ""} (audit: commit-partial-snapshot)`,
        );
      stopAfterStepForTest(runId, "verify");
      const verification = spec.verify ? await spec.verify(value) : undefined;
      checkLock();
      return { value, changed, outside, verification };
    };
    let attempted: Awaited<ReturnType<typeof attempt>>;
    try {
      attempted = await attempt();
    } catch (err) {
      const lost = err instanceof LockLost ? err : lock.compromised();
      const changed = await ledger.written();
      // A write refused because the file changed under it names that file: the change is someone else's.
      const refused =
        err instanceof ToolError && typeof err.extra.file === "string" ? rel(err.extra.file) : undefined;
      const { restored, conflicts } = await ledger.restore(changed.keys(), !lost, refused);
      const message = err instanceof Error ? err.message : String(err);
      const reason = lost
        ? `${lost instanceof LockLost ? lost.message : `the root lock was lost during the run (${lost.message})`}` +
          `: rolled back instead of committing (restored ${restored.length} file(s)` +
          (conflicts.length ? `, ${conflicts.length} changed by another writer left as they are` : "") +
          ")" +
          (err instanceof LockLost ? "" : `; ${message}`)
        : message;
      await audit.append({
        ...base,
        ...lockTimes(),
        result: lost ? "rollback" : "error",
        reason,
        files_written: [...changed.keys()],
        restored_files: restored,
        ...(conflicts.length ? { conflicts } : {}),
        snapshot: snapshotInfo,
        ...(lost ? { lock_compromised: true } : {}),
      });
      if (conflicts.length === 0) await removeSnapshot(paths, runId);
      await removeJournal(paths, runId);
      const transaction = {
        run_id: runId,
        result: lost ? "rollback" : "error",
        restored_files: restored,
        ...(conflicts.length ? { conflicts } : {}),
      };
      if (lost) throw new ToolError("locked", reason, { transaction });
      if (err instanceof ToolError)
        throw new ToolError(err.errorType, err.message, { ...err.extra, transaction });
      throw err;
    }
    const { value, changed, outside, verification } = attempted;
    const report: TransactionReport = {
      run_id: runId,
      result: "commit",
      project_root: paths.root,
      files_written: [...changed.keys()],
      snapshot: snapshotInfo,
      lock_wait_ms: lock.waitMs,
      lock_hold_ms: 0,
      verification,
      unsnapshotted_writes: outside.length ? outside : undefined,
    };
    const autoRollback = spec.autoRollback ?? true;
    if (verification && !verification.passed && autoRollback && manifest && changed.size > 0) {
      report.result = "rollback";
      report.rollback_reason = `${verification.check} failed${verification.reason ? `: ${verification.reason}` : ""}`;
      const { restored, conflicts } = await ledger.restore(changed.keys(), false);
      report.restored_files = restored;
      if (conflicts.length) {
        report.conflicts = conflicts;
        notes.push(
          `${conflicts.length} written file(s) were changed by another writer during the fix or its ` +
            `verification and were left as they are: ${conflicts.join(", ")}`,
        );
      } else await removeSnapshot(paths, runId);
    } else {
      if (verification && !verification.passed && changed.size > 0)
        notes.push(
          `${verification.check} failed and the fix was kept: ${
            manifest ? "autoRollback is off" : "there is no snapshot to roll back to"
          }`,
        );
      report.result = !manifest
        ? "commit-no-snapshot"
        : outside.length
          ? "commit-partial-snapshot"
          : "commit";
      await writeJournal(paths, {
        run_id: runId,
        tool: spec.tool,
        pid: process.pid,
        started: new Date().toISOString(),
        phase: "committing",
        snapshot: snap.taken,
        files: report.files_written,
      });
      // A file someone else edited between the steps holds their work: a later rollback must not undo it.
      const theirs = [...changed.keys()].filter((p) => ledger.foreign.has(p));
      if (theirs.length) {
        report.conflicts = theirs;
        notes.push(
          `${theirs.length} file(s) were edited by another writer between the fix's steps; the later steps ` +
            `ran on that edit and the file is left out of this transaction's snapshot, so a rollback will ` +
            `not undo it: ${theirs.join(", ")}`,
        );
      }
      const ours = new Map([...changed].filter(([p]) => !ledger.foreign.has(p)));
      if (manifest) await commitSnapshot(paths, manifest, ours);
    }
    const times = lockTimes();
    report.lock_hold_ms = times.lock_hold_ms;
    await audit.append({
      ...base,
      ...times,
      result: report.result,
      reason: report.rollback_reason,
      files_written: report.files_written,
      snapshot: snapshotInfo,
      verification,
      restored_files: report.restored_files,
      conflicts: report.conflicts,
      unsnapshotted_writes: report.unsnapshotted_writes,
      ...handle.auditExtra,
    });
    await removeJournal(paths, runId);
    return { value, transaction: report, notes };
  } finally {
    activeRuns.delete(runId);
    await lock.release();
  }
}
