/**
 * A transaction's record of its writes: which contents of each snapshotted file it wrote (also logged in
 * the journal's writes file, for recovery), what each file held when the last writing step ended, and which
 * files someone else edited meanwhile. It claims what changed as its own only while the lock holds, guards
 * every write of the work (safe-fs's write observer), and restores only what still holds its own writes.
 */
import path from "node:path";
import { ToolError } from "../errors.js";
import type { WriteObserver } from "../paths/safe-fs.js";
import type { CachePaths } from "./cache-dir.js";
import { readFileState, sameState, type FileState } from "./file-state.js";
import { logWrite } from "./journal.js";
import type { HeldLock } from "./lock.js";
import { restoreEntry, type Manifest } from "./snapshot.js";
import { stopBeforeRestoreForTest, stopBeforeWriteForTest } from "./test-pause.js";

export class WriteLedger {
  // What this transaction wrote, per file: every content hash it left there (logged in the journal's
  // writes file too, for recovery). A restore only puts back files that still hold one of these.
  private readonly mine = new Map<string, Set<string | null>>();
  // What each file held when the last writing step ended (the snapshot at first), and the files that
  // changed between steps: an edit no step made. Those are never claimed, restored or committed as ours.
  private readonly seen: Map<string, string | null>;
  readonly foreign = new Set<string>();

  constructor(
    private readonly paths: CachePaths,
    private readonly runId: string,
    private readonly lock: HeldLock,
    /** What each file the work may write held at the start, by path relative to the root. */
    private readonly before: ReadonlyMap<string, FileState>,
    /** The snapshot to restore from; undefined when none was taken. */
    private readonly manifest: Manifest | undefined,
    /** Throws when the lock may have been taken from the transaction. */
    private readonly checkLock: () => void,
  ) {
    this.seen = new Map<string, string | null>([...before].map(([p, s]) => [p, s.sha256]));
  }

  private rel(abs: string): string {
    return path.relative(this.paths.root, abs);
  }

  private record(p: string, sha: string | null): void {
    const { before, foreign, mine } = this;
    if (!before.has(p) || foreign.has(p) || mine.get(p)?.has(sha)) return;
    if (!mine.has(p)) mine.set(p, new Set());
    mine.get(p)?.add(sha);
    logWrite(this.paths, this.runId, p, sha);
  }

  /** The files of the snapshotted set whose state differs from the start, with their state now. */
  async written(): Promise<Map<string, FileState>> {
    const after = new Map<string, FileState>();
    for (const [p, b] of this.before) {
      const { state } = await readFileState(this.paths.root, path.join(this.paths.root, p));
      if (!sameState(state, b)) after.set(p, state);
    }
    return after;
  }

  /**
   * Claims as ours what changed since the snapshot, when nothing we did not write can be among it: the
   * lock is checked after the files were read, since a stall between a check and the read (an event
   * loop or a process stopped) could let another writer take the lock and change a file meanwhile,
   * and a rollback would then put back the snapshot over that writer's work.
   */
  async recordWritten(changed?: Map<string, FileState>): Promise<void> {
    const states = changed ?? (await this.written());
    if (this.lock.compromised()) return;
    for (const [p, state] of states) {
      this.record(p, state.sha256);
      this.seen.set(p, state.sha256);
    }
  }

  /** Marks as foreign every file whose content is not what the last step left (someone edited it since). */
  async findForeignEdits(): Promise<void> {
    const now = await this.written();
    for (const [p, b] of this.before) {
      const sha = now.get(p)?.sha256 ?? b.sha256;
      if (sha !== this.seen.get(p)) {
        this.foreign.add(p);
        this.seen.set(p, sha);
      }
    }
  }

  /**
   * Every write of the work, just before its rename (safe-fs): refused once the lock may be lost, and
   * refused over content this transaction neither found (its snapshot, or what a step began with) nor
   * wrote, which only another writer can have put there while the lock was not held. A fixer that read a
   * file after such a writer committed would otherwise write on top of that commit, take the result for
   * its own, and restore its snapshot over both. Then logged as ours.
   */
  readonly guardWrite: WriteObserver = (file, sha, basis) => {
    const { before, seen, mine } = this;
    const p = this.rel(file);
    if (before.has(p)) {
      stopBeforeWriteForTest(this.runId, p);
      this.checkLock();
      const known =
        basis === before.get(p)?.sha256 || seen.get(p) === basis || mine.get(p)?.has(basis ?? null);
      if (basis !== undefined && !known)
        throw new ToolError(
          "locked",
          `${file} holds content this fix neither found nor wrote (another writer's); it was not overwritten`,
          { file },
        );
    }
    if (sha !== undefined) this.record(p, sha);
  };

  /**
   * Restores the written files that still hold what this transaction left; the others were changed since
   * (by hand, or by another writer after the lock was lost) and are reported as conflicts. Files changed
   * with no record of ours count as ours only while the lock held (a tool that failed mid-step wrote them).
   */
  async restore(
    files: Iterable<string>,
    unrecordedAreOurs: boolean,
    notOurs?: string,
  ): Promise<{ restored: string[]; conflicts: string[] }> {
    const { paths, runId, manifest } = this;
    const restored: string[] = [];
    const conflicts: string[] = [];
    if (!manifest) return { restored, conflicts };
    const byPath = new Map(manifest.files.map((e) => [e.path, e]));
    for (const p of files) {
      const entry = byPath.get(p);
      if (!entry) continue;
      const { state, content } = await readFileState(paths.root, path.join(paths.root, p));
      if (sameState(state, entry.before)) continue;
      const ours = this.mine.get(p);
      // Checked after the read, as in recordWritten: a lock lost meanwhile makes an unrecorded change someone else's.
      const unrecordedOurs = unrecordedAreOurs && !this.lock.compromised();
      if (p === notOurs || this.foreign.has(p) || (ours ? !ours.has(state.sha256) : !unrecordedOurs)) {
        conflicts.push(p);
        continue;
      }
      stopBeforeRestoreForTest(runId, p);
      // Written only while it still holds what was just compared (however long a stall since); its folder
      // gone (moved or removed by someone else: a fix never removes folders), it is left as it is too.
      if ((await restoreEntry(paths, runId, entry, { expect: content ?? null })) === "restored")
        restored.push(p);
      else conflicts.push(p);
    }
    return { restored, conflicts };
  }
}
