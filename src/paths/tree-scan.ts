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
  /** It read something the watcher cannot vouch for (a link's target): never remembered. */
  untracked: boolean;
}

interface Memo {
  value: unknown;
  /** The watcher's clock when it was computed: nothing it read has changed while no event came since. */
  seen: number;
  dirs: string[];
  files: string[];
}

export class TreeScanner {
  private readonly memos = new Map<string, Memo>();
  private recording: Recording | undefined;
  /** Walks answered from `remember` (tests and benchmarks read it). */
  remembered = 0;
  private readonly listings = new Map<string, Listing>();
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
    const watcher = this.watcher;
    // A walk inside another's: its reads are the outer one's.
    if (!watcher || this.recording || this.settledPass !== this.pass) return compute();
    const known = this.memos.get(key);
    if (
      known &&
      known.dirs.every((d) => watcher.namesUnchangedSince(d, known.seen)) &&
      known.files.every((f) => watcher.fileUnchangedSince(f, known.seen))
    ) {
      this.remembered++;
      return known.value as T;
    }
    const recording: Recording = { dirs: new Set(), files: new Set(), untracked: false };
    this.recording = recording;
    let value: T;
    try {
      value = compute();
    } finally {
      this.recording = undefined;
    }
    // Synchronous: no event came during it; a change made while it ran is an event after this clock.
    const seen = watcher.now();
    this.memos.delete(key);
    if (!recording.untracked) {
      if (this.memos.size >= MAX_MEMOS) this.memos.delete(this.memos.keys().next().value as string);
      this.memos.set(key, {
        value: deepFreeze(value),
        seen,
        dirs: [...recording.dirs],
        files: [...recording.files],
      });
    }
    return value;
  }

  /** The walk being remembered used `file`'s content (a .gitignore): a change to it is a change to the walk. */
  dependsOnFile(file: string): void {
    this.recording?.files.add(file);
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
      return undefined;
    }
    if (!st.isDirectory()) return undefined;
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
    const paths = entries.map((e) => path.join(dir, e.name));
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

/** Freezes a remembered value and what it holds (arrays, maps' values, plain objects). */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  if (value instanceof Map) for (const v of value.values()) deepFreeze(v);
  else if (value instanceof Set) for (const v of value) deepFreeze(v);
  else for (const v of Object.values(value)) deepFreeze(v);
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
