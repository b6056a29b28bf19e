/**
 * The tree's changes as the kernel reports them (inotify, through Node's fs.watch: one watch per folder the
 * shared tree scan lists), so that a long-lived server need not `lstat` every folder and every file of a
 * big tree on every call to learn that one file changed (issue 42: ~3,300 stats a warm lint of pylint).
 *
 * Every watch and every event advances one logical clock. What was verified by a stat at clock S is still
 * true while no event since S names it, its folder was watched before S, and nothing made the watcher
 * untrustworthy since S. A missed event must never give a stale answer, so the watcher distrusts itself
 * (every later question falls back to a stat, as without a watcher) when:
 * - the kernel may have dropped events: libuv does not pass inotify's queue-overflow event on, but an
 *   overflow needs the queue full, and the events it held are read within two settles (one marker is out
 *   at a time), so a settle that drained at least half of `max_queued_events` events counts as one
 *   (events for a watch already ended are dropped by libuv uncounted: a margin of half the queue);
 * - a settle's own marker is not seen within SETTLE_TIMEOUT_MS (events are not arriving);
 * - more folders or changed names are known than the bounds below.
 * A folder moved or deleted (an event naming it in its parent, or its own), and every watched folder
 * below it, is no longer watched: it is stat'ed and watched anew when next listed. An allowed root's own
 * identity is checked at every settle (a root swapped for another folder of that name gets no event).
 *
 * The kernel queues an event while the write that caused it is made, so once the marker written at the
 * start of a call has come back (one inotify queue: its events arrive in order), every change made before
 * the call has been seen.
 *
 * Not seen by inotify, and so not by the watcher: writes through another hard link to a file (an event
 * goes to the folder the write went through), writes through a shared memory mapping, changes made on
 * another machine to a network file system. `--tree-watch false` turns it off.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Most folders watched; beyond, further folders are stat'ed as without a watcher. */
const MAX_WATCHES = 50_000;
/** Most changed paths remembered; beyond, everything is distrusted once and the memory starts again. */
const MAX_CHANGED = 200_000;
const SETTLE_TIMEOUT_MS = 2_000;

/** inotify's queue of events per instance (16,384 by default). */
function kernelQueueSize(): number {
  try {
    return Number(fs.readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8")) || 16_384;
  } catch {
    return 16_384; // not Linux, or /proc hidden: the kernel's default
  }
}

interface Watch {
  handle: fs.FSWatcher;
  /** The clock when the watch started: a stat made before it is not covered. */
  since: number;
}

export class TreeWatch {
  private clock = 0;
  /** Nothing verified before this clock is trusted (an overflow, a restart of the memory). */
  private floor = 0;
  private readonly watches = new Map<string, Watch>();
  /** The last event naming a path (its own, or its folder's about it). */
  private readonly changed = new Map<string, number>();
  /** The last event that may have added, removed or renamed an entry of a folder. */
  private readonly renamed = new Map<string, number>();
  private eventsSinceSettle = 0;
  private readonly overflowAt: number;
  private markerDir: string | undefined;
  private markerSeen: (() => void) | undefined;
  private markerCount = 0;
  private roundInFlight: Promise<boolean> | undefined;
  private nextRound: Promise<boolean> | undefined;
  private roots = new Map<string, { dev: bigint; ino: bigint } | undefined>();
  /** Folders whose path is watched all the way up from an allowed root (cleared when a watch ends). */
  private readonly anchoredDirs = new Set<string>();
  private broken = false;
  /** Events seen and settles made (tests and benchmarks read them). */
  events = 0;
  settles = 0;

  /** `maxQueuedEvents`: the kernel's queue of one inotify instance (tests pass a small one). */
  constructor(
    private readonly enabled: boolean,
    maxQueuedEvents = kernelQueueSize(),
  ) {
    this.overflowAt = Math.max(1, Math.floor(maxQueuedEvents / 2));
  }

  /** Allowed roots: their identity is checked at each settle, and trust is anchored at them. */
  addRoots(roots: readonly string[]): void {
    for (const r of roots) if (!this.roots.has(r)) this.roots.set(r, undefined);
  }

  get active(): boolean {
    return this.enabled && !this.broken;
  }

  /** The clock now: a stat made after this call is covered by the watches already started. */
  now(): number {
    return this.clock;
  }

  /** Starts watching `dir` (before the stat that will be trusted); false when it is not watched. */
  watch(dir: string): boolean {
    if (!this.active) return false;
    if (this.watches.has(dir)) return true;
    if (this.watches.size >= MAX_WATCHES) return false;
    let handle: fs.FSWatcher;
    try {
      handle = fs.watch(dir, { persistent: false }, (kind, name) => this.onEvent(dir, kind, name));
    } catch {
      return false; // gone, not a folder, or out of inotify watches: stat'ed as before
    }
    handle.on("error", () => this.unwatch(dir));
    this.watches.set(dir, { handle, since: ++this.clock });
    return true;
  }

  private onEvent(dir: string, kind: string, name: string | Buffer | null): void {
    this.events++;
    this.eventsSinceSettle++;
    const at = ++this.clock;
    if (name === null) {
      // Nothing named: anything in the folder may have changed.
      this.renamed.set(dir, at);
      this.changed.set(dir, at);
      return;
    }
    const child = path.join(dir, String(name));
    if (this.changed.size >= MAX_CHANGED) this.forgetAll();
    this.changed.set(child, at);
    if (kind !== "rename") return;
    this.renamed.set(dir, at);
    // A folder moved or deleted: its watch (and those below) no longer says anything about this path.
    if (this.watches.has(child)) this.unwatchTree(child);
    // libuv names a folder's own move or deletion by the folder's name: the same as a child of that name.
    if (String(name) === path.basename(dir)) this.unwatchTree(dir);
  }

  private unwatch(dir: string): void {
    const w = this.watches.get(dir);
    if (!w) return;
    this.watches.delete(dir);
    this.anchoredDirs.clear();
    w.handle.close();
    this.renamed.set(dir, ++this.clock);
  }

  private unwatchTree(dir: string): void {
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const d of [...this.watches.keys()]) if (d === dir || d.startsWith(prefix)) this.unwatch(d);
  }

  private forgetAll(): void {
    this.anchoredDirs.clear();
    this.changed.clear();
    this.renamed.clear();
    this.floor = ++this.clock;
  }

  /**
   * Whether every folder from an allowed root down to `dir` is watched: a folder above `dir` renamed away
   * (and another put in its place) sends no event to `dir`'s own watch, only to its own and its parent's.
   */
  private anchored(dir: string): boolean {
    if (this.anchoredDirs.has(dir)) return true;
    if (!this.watches.has(dir)) return false;
    const ok = this.roots.has(dir) ? this.roots.get(dir) !== undefined : this.parentAnchored(dir);
    if (ok) this.anchoredDirs.add(dir);
    return ok;
  }

  private parentAnchored(dir: string): boolean {
    const parent = path.dirname(dir);
    return parent !== dir && this.anchored(parent);
  }

  /** Whether `dir`'s entries (names and kinds) are as a stat at clock `at` saw them. */
  namesUnchangedSince(dir: string, at: number | undefined): boolean {
    if (at === undefined || at < this.floor || !this.active) return false;
    const w = this.watches.get(dir);
    return w !== undefined && w.since <= at && (this.renamed.get(dir) ?? 0) <= at && this.anchored(dir);
  }

  /** Whether the file `file` is as a stat at clock `at` saw it (its folder watched since before). */
  fileUnchangedSince(file: string, at: number | undefined): boolean {
    if (at === undefined || at < this.floor || !this.active) return false;
    const dir = path.dirname(file);
    const w = this.watches.get(dir);
    return (
      w !== undefined &&
      w.since <= at &&
      (this.changed.get(file) ?? 0) <= at &&
      (this.changed.get(dir) ?? 0) <= at &&
      this.anchored(dir)
    );
  }

  /**
   * Waits until every change made before this call has been seen: touches a marker in a folder of its own
   * and waits for its event. Checks the allowed roots' identity. False when the watcher cannot be trusted
   * now (and nothing it remembers will be). One marker at a time: a call that comes while one is out joins
   * the next round (its touch comes after the call), so a marker's event is never mistaken for
   * another's, and the events of an overflowing queue fall into at most two rounds (see onEvent).
   */
  settle(): Promise<boolean> {
    if (!this.active) return Promise.resolve(false);
    if (this.watches.size === 0 && this.roots.size === 0) return Promise.resolve(true);
    if (this.nextRound) return this.nextRound;
    const inFlight = this.roundInFlight;
    if (!inFlight) return this.startRound();
    this.nextRound = inFlight.then(() => {
      this.nextRound = undefined;
      return this.startRound();
    });
    return this.nextRound;
  }

  private startRound(): Promise<boolean> {
    const round = this.round().finally(() => {
      if (this.roundInFlight === round) this.roundInFlight = undefined;
    });
    this.roundInFlight = round;
    return round;
  }

  private async round(): Promise<boolean> {
    try {
      this.markerDir ??= this.startMarker();
      const seen = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), SETTLE_TIMEOUT_MS);
        timer.unref();
        this.markerSeen = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      // A new time on the marker (an attribute event): ~6 µs, where rewriting its bytes took ~0.3 ms.
      const at = ++this.markerCount;
      fs.utimesSync(path.join(this.markerDir, "marker"), at, at);
      if (!(await seen)) {
        this.breakDown();
        return false;
      }
    } catch {
      this.breakDown();
      return false;
    }
    this.settles++;
    if (this.eventsSinceSettle >= this.overflowAt) this.forgetAll();
    this.eventsSinceSettle = 0;
    this.checkRoots();
    return true;
  }

  private startMarker(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-tree-watch-"));
    fs.writeFileSync(path.join(dir, "marker"), "", { flag: "wx", mode: 0o600 });
    const handle = fs.watch(dir, { persistent: false }, () => {
      const done = this.markerSeen;
      this.markerSeen = undefined;
      done?.();
    });
    handle.on("error", () => this.breakDown());
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  /** An allowed root replaced by another folder of the same name: nothing below it is known any more. */
  private checkRoots(): void {
    for (const [root, known] of this.roots) {
      const st = fs.statSync(root, { bigint: true, throwIfNoEntry: false });
      const now = st ? { dev: st.dev, ino: st.ino } : undefined;
      if (known && (!now || now.dev !== known.dev || now.ino !== known.ino)) {
        this.unwatchTree(root);
        this.forgetAll();
      }
      this.roots.set(root, now);
    }
  }

  private breakDown(): void {
    this.broken = true;
    for (const d of [...this.watches.keys()]) this.unwatch(d);
  }

  /** Ends every watch (the server is closing). */
  close(): void {
    this.breakDown();
  }

  /** Folders watched now (tests read it). */
  get watched(): number {
    return this.watches.size;
  }
}
