/**
 * One scan of a project tree shared by every tool of a server (and every check of a `check` run): each
 * folder's entries are listed once and remembered with the folder's stat, so a later walk costs one
 * `stat` per folder, not a `readdir`. A folder changed less than RACY_NS before it was listed is listed
 * again next time (the clock of the file system is coarse).
 *
 * Within one pass a folder is stat'ed once: the several walks of a call (the files a tool checks, the
 * project layout, the folders it excludes, the links leaving the root) and every `entries` look-up in
 * them share its answer. A new pass starts where the tree may have changed: at the start of every tool
 * call (engine.ts), after every process the server ran (runner.ts: a tool may write) and after every
 * write of the server's own (safe-write.ts). Measured on pylint (2,419 files, ~870 folders): ~10 stats a
 * folder a warm lint before, one after.
 *
 * A long-lived server also watches the folders it lists (tree-watch.ts): once a pass has settled (every
 * change made before it seen), a folder no event has touched since its last stat is not stat'ed again.
 */
import fs from "node:fs";
import path from "node:path";
import { decodeTreeState, encodeTreeState, type StatIdentity, type TreeStateStore } from "./tree-persist.js";
import { TreeWatch } from "./tree-watch.js";

const RACY_NS = 50_000_000n;
const MAX_DIRS = 100_000;
/** Most walk results remembered (see remember); beyond, the first remembered is forgotten. */
const MAX_MEMOS = 2_000;

export interface DirEntry {
  name: string;
  kind: "file" | "dir" | "link" | "other";
}

interface Listing {
  /** The pass in which the folder's stat last matched (see startPass). */
  pass: number;
  /** The watcher's clock just before that stat, when the folder was watched (see TreeWatch). */
  seen: number | undefined;
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  entries: DirEntry[];
  /** Each entry's absolute path, joined once per listing (a walk of a big tree would join them all again). */
  paths: string[];
  /** Its stat as the walks that listed it record it, made once (see statsOf). */
  identity?: StatIdentity;
}

export interface TreeWalk {
  /** Regular files (absolute), in walk order (entries sorted by name). */
  files: string[];
  /** Symbolic links met (absolute); never followed. */
  links: string[];
  /** Folders walked, the target first. */
  dirs: string[];
}

/** What a remembered walk read: the folders it listed and the files whose content it used. */
interface Recording {
  dirs: Set<string>;
  files: Set<string>;
  /** Each file's stat when the walk said it depends on it, before it read it (null: absent). */
  fileStats: Map<string, StatIdentity | null>;
  /** It read something the watcher cannot vouch for (a link's target): never remembered. */
  untracked: boolean;
}

interface Memo {
  value: unknown;
  /**
   * The watcher's clock when it was computed: nothing it read has changed while no event came since.
   * Undefined without a watcher, or loaded from disk.
   */
  seen: number | undefined;
  dirs: string[];
  files: string[];
  /**
   * What a stat found of each of `dirs`, then of each of `files` (null: absent), when the walk read them,
   * for a check without the watcher (a fresh process, a pass not settled); undefined when one changed too
   * recently to be told from a later change by its stat (see RACY_NS), or could not be read.
   */
  stats: (StatIdentity | null)[] | undefined;
  /** Deep-frozen already (values loaded from disk are frozen when first used). */
  frozen: boolean;
  /**
   * The settled watcher's clock when it last vouched for everything the walk read: while the clock has not
   * moved since (no event, no folder watched anew, no loss of trust: settledClock), it still does.
   */
  vouchedAt?: number;
}

export class TreeScanner {
  private readonly memos = new Map<string, Memo>();
  private recording: Recording | undefined;
  /** Walks answered from `remember` (tests and benchmarks read it). */
  remembered = 0;
  /** Of those, answered by a stat of what they read, without the watcher (tests and benchmarks read it). */
  rememberedByStat = 0;
  /** Of those, answered by the watcher's unmoved clock alone, with no folder asked about (tests read it). */
  rememberedByClock = 0;
  private readonly listings = new Map<string, Listing>();
  /** Where listings and walks are kept between processes (see persistTo). */
  private persistence:
    | { store: TreeStateStore; roots: readonly string[]; storeId: string; keyOf: (root: string) => string }
    | undefined;
  private readonly loadedRoots = new Set<string>();
  /** The folder stat records found unchanged in a pass (see stillValid). */
  private passChecked: { pass: number; stats: WeakSet<StatIdentity> } = { pass: -1, stats: new WeakSet() };
  /** Folder stats taken in a pass to check remembered walks without listing the folders (see dirIdentity). */
  private passStats: { pass: number; stats: Map<string, StatIdentity | null> } = {
    pass: -1,
    stats: new Map(),
  };
  /** Roots with a walk learnt since they were loaded or saved. */
  private readonly dirtyRoots = new Set<string>();
  private pass = 0;
  private watcher: TreeWatch | undefined;
  /** The last pass in which every change made before it has been seen by the watcher. */
  private settledPass = -1;
  /** readdir calls since start (tests and benchmarks read it). */
  listed = 0;
  /** Folder stats since start (tests and benchmarks read it). */
  stats = 0;

  /** The current pass: what was checked in it holds until the next (readers keyed by it, such as .gitignore's). */
  get currentPass(): number {
    return this.pass;
  }

  /** The tree may have changed since the folders were last stat'ed: each is stat'ed again when next met. */
  startPass(): void {
    this.pass++;
  }

  /**
   * Watches the folders listed from now on (a server or a check daemon: a process that answers many
   * calls), with `roots` the allowed paths whose identity is checked at each settle.
   */
  watchTree(roots: readonly string[]): void {
    this.watcher ??= new TreeWatch(true);
    this.watcher.addRoots(roots);
  }

  /**
   * Forgets every listing, walk and where they are kept (not the counters): for the command line's snapshot,
   * after the check its build runs (src/snapshot-warm-up.ts), whose store was a folder since deleted.
   */
  forget(): void {
    this.memos.clear();
    this.listings.clear();
    this.persistence = undefined;
    this.loadedRoots.clear();
    this.dirtyRoots.clear();
    this.recording = undefined;
    this.passStats = { pass: -1, stats: new Map() };
    this.passChecked = { pass: -1, stats: new WeakSet() };
  }

  /** Stops watching (the server closes, or a test ends). */
  unwatchTree(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** The watcher, when one runs (tests and benchmarks read its counts). */
  get treeWatch(): TreeWatch | undefined {
    return this.watcher;
  }

  /**
   * Waits until the watcher has seen every change made before this call; the current pass may then trust
   * it. Without a watcher (a fresh `check`), nothing to wait for: every folder is stat'ed.
   */
  async settle(): Promise<void> {
    const watcher = this.watcher;
    if (!watcher) return;
    const pass = this.pass;
    if ((await watcher.settle()) && this.pass === pass) this.settledPass = pass;
  }

  /** The watcher's clock before a stat, to pass back to `unchangedFile` later; undefined without one. */
  clockBeforeStat(): number | undefined {
    return this.watcher?.now();
  }

  /**
   * The watcher's clock in a settled pass, when it can be trusted (undefined otherwise): it moves with every
   * event, every folder watched anew and every loss of trust, so an answer given by the watcher alone at
   * this clock holds while it has not moved (file-hashes.ts, hashesOf).
   */
  settledClock(): number | undefined {
    const watcher = this.watcher;
    return watcher?.active && this.settledPass === this.pass ? watcher.now() : undefined;
  }

  /** Whether `file` is as the stat at `seen` found it, by the watcher, in a settled pass. */
  unchangedFile(file: string, seen: number | undefined): boolean {
    const watcher = this.watcher;
    return watcher !== undefined && this.settledPass === this.pass && watcher.fileUnchangedSince(file, seen);
  }

  /** The entries of `dir`, sorted by name; undefined when it cannot be read. */
  entries(dir: string): DirEntry[] | undefined {
    return this.listing(dir)?.entries;
  }

  /** The entries of `dir` with each one's absolute path (joined once per listing); undefined when unreadable. */
  children(dir: string): { entries: readonly DirEntry[]; paths: readonly string[] } | undefined {
    return this.listing(dir);
  }

  /**
   * A walk's result (`compute`: reading only folder listings from this scan and files it names through
   * `dependsOnFile`), remembered under `key` while the watcher has seen no change to anything it read:
   * in a settled pass, no folder it listed has gained, lost or renamed an entry, and no file it read has
   * changed. Without a watcher, or outside a settled pass, it is computed. The value is frozen: callers
   * share it.
   */
  remember<T extends object>(key: string, compute: () => T): T {
    // A walk inside another's: its reads are the outer one's.
    if (this.recording) return compute();
    this.loadPersisted();
    const watcher = this.watcher;
    const settled = watcher !== undefined && this.settledPass === this.pass;
    const known = this.memos.get(key);
    if (known && this.stillValid(known, settled ? watcher : undefined)) {
      this.remembered++;
      if (!known.frozen) {
        deepFreeze(known.value);
        known.frozen = true;
      }
      return known.value as T;
    }
    const recording: Recording = {
      dirs: new Set(),
      files: new Set(),
      fileStats: new Map(),
      untracked: false,
    };
    this.recording = recording;
    let value: T;
    try {
      value = compute();
    } finally {
      this.recording = undefined;
    }
    // Synchronous: no event came during it; a change made while it ran is an event after this clock.
    const seen = settled ? watcher.now() : undefined;
    this.memos.delete(key);
    if (!recording.untracked) {
      if (this.memos.size >= MAX_MEMOS) this.memos.delete(this.memos.keys().next().value as string);
      const dirs = [...recording.dirs];
      const files = [...recording.files];
      const stats = this.statsOf(dirs, files, recording.fileStats);
      this.memos.set(key, { value: deepFreeze(value), seen, dirs, files, stats, frozen: true });
      const anchor = dirs[0] ?? files[0];
      if (stats && anchor !== undefined) this.markDirty(anchor);
    }
    return value;
  }

  /**
   * Whether nothing a remembered walk read has changed: by the watcher's events in a settled pass (no
   * stat), else by a stat of each folder (once a pass, shared with every walk: see listing) and file.
   */
  private stillValid(memo: Memo, settledWatcher: TreeWatch | undefined): boolean {
    // A settled watcher is asked alone: a walk it cannot vouch for is walked again, once, and then it can
    // (stat-checking the walks every call would cost a stat per folder each time).
    if (settledWatcher) {
      // Asked once per move of the clock: a warm call of a check on pylint asked for each of ~870 folders,
      // for each of the call's walks, every time.
      const now = settledWatcher.now();
      if (memo.vouchedAt === now && settledWatcher.active) {
        this.rememberedByClock++;
        return true;
      }
      const vouched =
        memo.seen !== undefined &&
        memo.dirs.every((d) => settledWatcher.namesUnchangedSince(d, memo.seen)) &&
        memo.files.every((f) => settledWatcher.fileUnchangedSince(f, memo.seen));
      if (vouched) memo.vouchedAt = now;
      return vouched;
    }
    const stats = memo.stats;
    if (!stats) return false;
    if (this.passChecked.pass !== this.pass) this.passChecked = { pass: this.pass, stats: new WeakSet() };
    const checked = this.passChecked.stats;
    for (let i = 0; i < memo.dirs.length; i++) {
      // Walks share their folders' stat records (see statsOf, tree-persist.ts): each is compared once a pass.
      const want = stats[i];
      if (want && checked.has(want)) continue;
      if (!sameIdentity(want, this.dirIdentity(memo.dirs[i] as string))) return false;
      if (want) checked.add(want);
    }
    for (let i = 0; i < memo.files.length; i++)
      if (!sameIdentity(stats[memo.dirs.length + i], fileIdentity(memo.files[i] as string))) return false;
    this.rememberedByStat++;
    return true;
  }

  /**
   * A folder's stat in this pass: that of its listing when checked in this pass, else one `lstat` (shared
   * by the walks checked in this pass); null when it is no folder or cannot be read.
   */
  private dirIdentity(dir: string): StatIdentity | null {
    const known = this.listings.get(dir);
    if (known?.pass === this.pass) return [known.ino, known.mtimeNs, known.ctimeNs, 0n];
    if (this.passStats.pass !== this.pass) this.passStats = { pass: this.pass, stats: new Map() };
    let st = this.passStats.stats.get(dir);
    if (st === undefined) {
      this.stats++;
      const s = fs.lstatSync(dir, { bigint: true, throwIfNoEntry: false });
      st = s?.isDirectory() ? [s.ino, s.mtimeNs, s.ctimeNs, 0n] : null;
      this.passStats.stats.set(dir, st);
    }
    return st;
  }

  /** The stats a walk's record keeps (see Memo.stats), or undefined when one cannot vouch for it. */
  private statsOf(
    dirs: readonly string[],
    files: readonly string[],
    fileStats: ReadonlyMap<string, StatIdentity | null>,
  ): (StatIdentity | null)[] | undefined {
    const out: (StatIdentity | null)[] = [];
    for (const dir of dirs) {
      // Kept in this pass only when readable and not changed too recently (see listing); a folder looked
      // for and absent is kept as absent.
      const l = this.listings.get(dir);
      if (l?.pass === this.pass) out.push((l.identity ??= [l.ino, l.mtimeNs, l.ctimeNs, 0n]));
      else if (this.dirIdentity(dir) === null) out.push(null);
      else return undefined;
    }
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    for (const file of files) {
      const st = fileStats.get(file);
      if (st === undefined) return undefined;
      if (st && (nowNs - st[1] <= RACY_NS || nowNs - st[2] <= RACY_NS)) return undefined;
      out.push(st);
    }
    return out;
  }

  /**
   * Keeps the listings and the walks that a stat can vouch for (Memo.stats) between processes, one entry per
   * allowed root in the result cache's store (as the file hashes are, file-hashes.ts): a fresh `check`
   * stats each folder it would list, and lists again only those that changed, and reuses a walk (the
   * project layout, the files ruff would check, a folder's languages) whose folders and .gitignore files
   * are as it found them, instead of walking the tree again. Keyed by the build (a walk's meaning is the
   * code's) and the root; a missing, foreign or damaged entry is ignored.
   */
  persistTo(
    store: TreeStateStore,
    roots: readonly string[],
    storeId: string,
    keyOf: (root: string) => string,
  ): void {
    const sorted = [...roots].sort((a, b) => b.length - a.length);
    const same =
      this.persistence?.storeId === storeId && this.persistence.roots.join("\0") === sorted.join("\0");
    if (same && this.persistence) {
      // Another handle on the same folder (the result cache's, which is flushed before exit): kept.
      this.persistence.store = store;
      return;
    }
    this.persistence = { store, roots: sorted, storeId, keyOf };
    this.loadedRoots.clear();
    this.dirtyRoots.clear();
  }

  /** The innermost allowed root holding `p` (see persistTo). */
  private persistedRootOf(p: string): string | undefined {
    return this.persistence?.roots.find(
      (r) => p === r || p.startsWith(r.endsWith(path.sep) ? r : r + path.sep),
    );
  }

  private markDirty(p: string): void {
    const root = this.persistence ? this.persistedRootOf(p) : undefined;
    // Not before its stored walks are loaded (they would be lost), but a server's are never loaded.
    if (root !== undefined && (this.loadedRoots.has(root) || this.watcher)) this.dirtyRoots.add(root);
  }

  /** Reads each root's stored listings and walks once; what is known in memory already wins. */
  private loadPersisted(): void {
    const persistence = this.persistence;
    // A watched tree's walks are vouched for by events, not stats: a server only stores its walks.
    if (!persistence || this.watcher || this.loadedRoots.size === persistence.roots.length) return;
    for (const root of persistence.roots) {
      if (this.loadedRoots.has(root)) continue;
      this.loadedRoots.add(root);
      const walks = decodeTreeState(persistence.store.get(persistence.keyOf(root)), root);
      for (const m of walks ?? []) {
        if (this.memos.has(m.key) || this.memos.size >= MAX_MEMOS) continue;
        this.memos.set(m.key, { ...m, seen: undefined, frozen: false });
      }
    }
  }

  /** Stores what each root learnt since it was loaded (in the background; see LocalStore). */
  savePersisted(): void {
    const persistence = this.persistence;
    if (!persistence || this.dirtyRoots.size === 0) return;
    for (const root of this.dirtyRoots) {
      const walks = [...this.memos]
        .filter(([, m]) => {
          const anchor = m.dirs[0] ?? m.files[0];
          return m.stats && anchor !== undefined && this.persistedRootOf(anchor) === root;
        })
        .map(([key, m]) => ({ key, value: m.value, dirs: m.dirs, files: m.files, stats: m.stats ?? [] }));
      const data = encodeTreeState(root, walks);
      if (data) persistence.store.put(persistence.keyOf(root), data);
    }
    this.dirtyRoots.clear();
  }

  /**
   * The walk being remembered used `file`'s content (a .gitignore), or whether it exists: a change to it is
   * a change to the walk. A link's target could change under the same link: such a walk is not remembered.
   */
  dependsOnFile(file: string): void {
    const recording = this.recording;
    if (!recording || recording.files.has(file)) return;
    recording.files.add(file);
    // Before the walk reads it: a change after this stat shows in the next one.
    const st = fs.lstatSync(file, { bigint: true, throwIfNoEntry: false });
    if (st?.isSymbolicLink()) recording.untracked = true;
    recording.fileStats.set(file, st ? [st.ino, st.mtimeNs, st.ctimeNs, st.size] : null);
  }

  /** The walk being remembered read something no watched folder covers: it is not remembered. */
  dependsOnUntracked(): void {
    if (this.recording) this.recording.untracked = true;
  }

  private listing(dir: string): Pick<Listing, "entries" | "paths"> | undefined {
    this.recording?.dirs.add(dir);
    const known = this.listings.get(dir);
    if (known?.pass === this.pass) return known;
    const watcher = this.watcher;
    if (known && watcher && this.settledPass === this.pass && watcher.namesUnchangedSince(dir, known.seen)) {
      known.pass = this.pass;
      return known;
    }
    // Watched before the stat, so that a change after it is an event.
    const seen = watcher?.watch(dir) ? watcher.now() : undefined;
    let st: fs.BigIntStats;
    this.stats++;
    try {
      st = fs.lstatSync(dir, { bigint: true });
    } catch {
      this.listings.delete(dir);
      return this.notAFolder(dir);
    }
    if (!st.isDirectory()) return this.notAFolder(dir);
    if (known && known.ino === st.ino && known.mtimeNs === st.mtimeNs && known.ctimeNs === st.ctimeNs) {
      known.pass = this.pass;
      known.seen = seen;
      return known;
    }
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    this.listed++;
    const entries = dirents
      .map((d): DirEntry => ({
        name: d.name,
        kind: d.isSymbolicLink() ? "link" : d.isDirectory() ? "dir" : d.isFile() ? "file" : "other",
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // path.join(dir, name) for each: a listed name holds no separator and is never "." or "..", so it is
    // the folder's joined prefix and the name (joining each normalized the whole path again).
    const prefix = path.join(dir, "_").slice(0, -1);
    const paths = entries.map((e) => prefix + e.name);
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    if (nowNs - st.mtimeNs > RACY_NS && nowNs - st.ctimeNs > RACY_NS) {
      if (this.listings.size >= MAX_DIRS) this.listings.delete(this.listings.keys().next().value as string);
      this.listings.set(dir, {
        pass: this.pass,
        seen,
        ino: st.ino,
        mtimeNs: st.mtimeNs,
        ctimeNs: st.ctimeNs,
        entries,
        paths,
      });
    } else this.listings.delete(dir);
    return { entries, paths };
  }

  /**
   * `dir` is absent, or no folder: what a walk being remembered depends on is then whether it exists and
   * what it is, as for a file it looked for (see dependsOnFile), which its parent's events or a stat tell;
   * not its names, which no watch can vouch for (ruff's settings look for a `src` folder most projects lack).
   */
  private notAFolder(dir: string): undefined {
    if (this.recording) {
      this.recording.dirs.delete(dir);
      this.dependsOnFile(dir);
    }
    return undefined;
  }

  /**
   * Walks `target` (a folder), skipping the folders `skip` says to (given the folder's name and path),
   * never following links. `skipKey`, when `skip` depends on the names alone, says which names it skips:
   * the walk is then remembered (see remember) and its result shared (never mutate it).
   */
  walk(target: string, skip: (name: string, abs: string) => boolean, skipKey?: string): TreeWalk {
    if (skipKey === undefined) return this.walkNow(target, skip);
    return this.remember(JSON.stringify(["walk", target, skipKey]), () => this.walkNow(target, skip));
  }

  private walkNow(target: string, skip: (name: string, abs: string) => boolean): TreeWalk {
    const out: TreeWalk = { files: [], links: [], dirs: [] };
    const visit = (dir: string) => {
      out.dirs.push(dir);
      const listed = this.listing(dir);
      if (!listed) return;
      const { entries, paths } = listed;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i] as DirEntry;
        const abs = paths[i] as string;
        if (e.kind === "file") out.files.push(abs);
        else if (e.kind === "link") out.links.push(abs);
        else if (e.kind === "dir" && !skip(e.name, abs)) visit(abs);
      }
    };
    visit(target);
    return out;
  }
}

/** What a stat says of a file (ino, mtime, ctime, size), or null when there is none; a folder's size is 0. */
function fileIdentity(file: string): StatIdentity | null {
  const st = fs.lstatSync(file, { bigint: true, throwIfNoEntry: false });
  return st ? [st.ino, st.mtimeNs, st.ctimeNs, st.size] : null;
}

function sameIdentity(a: StatIdentity | null | undefined, b: StatIdentity | null): boolean {
  if (a === undefined) return false;
  if (a === null || b === null) return a === b;
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}

/** Freezes a remembered value and what it holds (arrays, maps' values, plain objects). */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  if (value instanceof Map) for (const v of value.values()) deepFreeze(v);
  else if (value instanceof Set) for (const v of value) deepFreeze(v);
  // An array's items in place (Object.values copied a walk's thousands of paths to look at each string).
  else if (Array.isArray(value)) {
    for (const v of value as unknown[]) if (v !== null && typeof v === "object") deepFreeze(v);
  } else for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

/** Folders no per-file tool walks into by default: version control and dependency stores. */
export const ALWAYS_SKIPPED = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  ".mcp-cache",
  // Tools' own caches (ruff writes a .gitignore into its own): never a file any tool checks.
  ".ruff_cache",
  ".mypy_cache",
  ".pytest_cache",
  "__pycache__",
]);

/**
 * The one scanner of the process: the result cache's walks, and the project-language detection every
 * format_check, lint and check call makes, list each folder once between its changes.
 */
export const sharedTree = new TreeScanner();

/** Something may have changed the tree (a call starts, a process ended, the server wrote): a new pass. */
export function treeMayHaveChanged(): void {
  sharedTree.startPass();
}

/** Waits until the watcher (if any) has seen every change made before now: the current pass may trust it. */
export function treeChangesSeen(): Promise<void> {
  return sharedTree.settle();
}
