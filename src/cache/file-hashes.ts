/**
 * Content hashes of input files, remembered by their stat: a file whose inode, size, mtime and ctime
 * (nanoseconds) are unchanged is not read again. A file modified less than RACY_NS before it was hashed
 * is hashed again next time (as git does with "racily clean" entries): the file system's clock is
 * coarse, so a second write in the same tick could keep every stat field.
 *
 * With a store, what is remembered of each allowed root is kept on disk too (one entry per root in the
 * result cache's folder, as git keeps stat data in its index), so a fresh process (`check` in CI or a
 * hook) reads only the files that changed since the last run, not the whole tree.
 */
import { asyncScope } from "../async-scope.js";
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import { sha256 } from "./hash.js";
import { ALWAYS_SKIPPED, sharedTree } from "../paths/tree-scan.js";
import { relativeTo } from "../paths/fast-relative.js";
import { linkKey } from "./link-key.js";

const RACY_NS = 50_000_000n;
/** Most files remembered; beyond, the first remembered is forgotten. */
const MAX_MEMO = 200_000;

/** Where the memo of a root is kept: the result cache's local store. */
export interface MemoStore {
  get(key: string): Buffer | undefined;
  put(key: string, data: string | Buffer): void;
}

export interface MemoPersistence {
  store: MemoStore;
  /** The allowed roots: one stored memo each. */
  roots: readonly string[];
}

/**
 * A stored memo (V8's serialization: no text to parse, the stats as 64-bit integers, ~3x faster to load
 * than JSON on pylint's 2,419 files): the root it is of (checked on load), each file's path relative to it,
 * its ino, size, mtime and ctime (4 per file) and its hash.
 */
interface StoredMemo {
  v: 2;
  root: string;
  rels: string[];
  stats: BigUint64Array;
  hashes: string[];
}

/**
 * Set around one `check` run's read-only tools (the hrtime it started at): a file whose stat was checked
 * after that, by another tool of the same run, is not stat'ed again (`hashOf(file, true)`). Several tools
 * hash the same files (ruff and ruff format, ESLint and Prettier, a type checker), and on a big tree
 * each pass is one `lstat` a file. A file edited during the run is then keyed as it was when first seen;
 * the check after a tool's run always stats again, so such a result is not stored under the old content.
 */
export const validationEpoch = asyncScope<bigint>();

/** File lists hashesOf keeps, least recently made out. */
const MAX_LISTS = 16;

const memoKey = (root: string) => sha256(`mcq-file-hashes/v2\0${root}`);

interface Memo {
  /** hrtime of the last stat that found the file as remembered (0: loaded from disk). */
  checkedNs: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  hash: string;
  /** The tree watcher's clock before the stat that found it so (undefined: no watcher, or from disk). */
  seen?: number | undefined;
}

/** The buffer files up to its size are read into (one at a time, synchronously: each is hashed at once). */
const scratch = Buffer.allocUnsafe(256 * 1024);

/**
 * A file's whole content, read into `scratch` when it fits (the view is valid until the next read), else
 * into its own buffer. `size` is what the caller's lstat found, so no fstat is made (readFileSync's own
 * fstat and buffer were a third of a cold check's hashing on pylint); a file that grew since is read to its
 * end all the same, and the caller compares the length read with the size.
 */
function readContent(file: string, size: bigint): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    let buf = size < BigInt(scratch.length) ? scratch : Buffer.allocUnsafe(Number(size) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        const grown = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(grown, 0, 0, n);
        buf = grown;
      }
      const r = fs.readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) return buf.subarray(0, n);
      n += r;
    }
  } finally {
    fs.closeSync(fd);
  }
}

export class FileHashes {
  private readonly memo = new Map<string, Memo>();
  /** Lists hashesOf answered from memory (tests and benchmarks read it). */
  listsFromMemory = 0;
  /** Answers the watcher gave alone (hashesOf counts them). */
  private watcherAnswers = 0;
  /** Lists hashesOf answered by the watcher alone, at its clock then (a few: one a tool of a project). */
  private readonly lists = new Map<
    string,
    { files: readonly string[]; clock: number; hashes: (string | undefined)[] }
  >();
  /** Files read (hashed) since the server started, for tests and get_status. */
  reads = 0;
  private readonly roots: readonly string[];
  private readonly loaded = new Set<string>();
  private readonly dirty = new Set<string>();

  /**
   * `allowed`: the allowed roots, the only places a link's target is read (link-key.ts); the persisted
   * roots when not given.
   */
  constructor(
    private readonly persistence?: MemoPersistence,
    allowed: readonly string[] = persistence?.roots ?? [],
  ) {
    // Longest first, so a file is kept with the innermost root that holds it.
    this.roots = [...(persistence?.roots ?? [])].sort((a, b) => b.length - a.length);
    this.allowed = allowed;
  }

  private readonly allowed: readonly string[];

  private rootOf(file: string): string | undefined {
    return this.roots.find((r) => file.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  }

  /** Reads the stored memo of `root` once; a missing, foreign or damaged entry is ignored. */
  private load(root: string): void {
    if (this.loaded.has(root) || !this.persistence) return;
    this.loaded.add(root);
    const data = this.persistence.store.get(memoKey(root));
    if (!data) return;
    try {
      const stored = v8.deserialize(data) as StoredMemo;
      const { rels, stats, hashes } = stored;
      if (
        stored.v !== 2 ||
        stored.root !== root ||
        !Array.isArray(rels) ||
        !(stats instanceof BigUint64Array) ||
        !Array.isArray(hashes) ||
        stats.length !== 4 * rels.length ||
        hashes.length !== rels.length
      )
        return;
      const base = root.endsWith(path.sep) ? root : root + path.sep;
      for (let i = 0; i < rels.length; i++) {
        const rel = rels[i];
        const hash = hashes[i];
        // Relative paths as path.relative made them: inside the root, already normalised.
        if (
          typeof rel !== "string" ||
          typeof hash !== "string" ||
          rel.startsWith("..") ||
          path.isAbsolute(rel)
        )
          continue;
        const file = base + rel;
        if (this.memo.has(file) || this.memo.size >= MAX_MEMO) continue;
        this.memo.set(file, {
          checkedNs: 0n,
          ino: stats[4 * i] as bigint,
          size: stats[4 * i + 1] as bigint,
          mtimeNs: stats[4 * i + 2] as bigint,
          ctimeNs: stats[4 * i + 3] as bigint,
          hash,
        });
      }
    } catch {
      // Not ours or cut short: every file is read again and the entry rewritten.
    }
  }

  /** Stores the memo of every root that changed since the last save (in the background; see LocalStore). */
  save(): void {
    if (!this.persistence || this.dirty.size === 0) return;
    const byRoot = new Map<string, { rels: string[]; stats: bigint[]; hashes: string[] }>(
      [...this.dirty].map((r) => [r, { rels: [], stats: [], hashes: [] }]),
    );
    for (const [file, m] of this.memo) {
      const root = this.rootOf(file);
      const stored = root === undefined ? undefined : byRoot.get(root);
      if (!stored) continue;
      // Sliced, not resolved: path.relative of each of pylint's ~2,400 remembered files took 5-15 ms of a
      // fresh check's exit.
      stored.rels.push(relativeTo(root as string, file));
      stored.stats.push(m.ino, m.size, m.mtimeNs, m.ctimeNs);
      stored.hashes.push(m.hash);
    }
    for (const [root, { rels, stats, hashes }] of byRoot)
      this.persistence.store.put(
        memoKey(root),
        v8.serialize({ v: 2, root, rels, stats: BigUint64Array.from(stats), hashes } satisfies StoredMemo),
      );
    this.dirty.clear();
  }

  private forget(file: string, root: string | undefined): void {
    if (this.memo.delete(file) && root) this.dirty.add(root);
  }

  /**
   * The mtime (ms) that the stat behind `file`'s remembered hash found, when a hash of it is remembered
   * (a file hashed just now, or vouched for by the watcher); undefined otherwise (the caller stats it).
   */
  mtimeMsOf(file: string): number | undefined {
    const m = this.memo.get(file);
    return m && m.checkedNs > 0n
      ? Number(m.mtimeNs / 1_000_000n) + Number(m.mtimeNs % 1_000_000n) / 1e6
      : undefined;
  }

  /**
   * The hashes of `files` (each as hashOf(file, true) gives it). A list whose every hash the watcher vouched
   * for last time, at a clock that has not moved since (no event, no folder watched anew, no loss of trust:
   * tree-scan.ts settledClock), is answered from that time without a look at each file: a warm call over
   * pylint's 1,206 files spent ~3 ms there.
   */
  hashesOf(files: readonly string[]): (string | undefined)[] {
    const clock = sharedTree.settledClock();
    // Without a trusted watcher (a fresh check): each file as before, once a run.
    if (clock === undefined) return files.map((f) => this.hashOf(f, true));
    const key = `${files.length}\0${files[0] ?? ""}\0${files[files.length - 1] ?? ""}`;
    const last = this.lists.get(key);
    if (
      last?.clock === clock &&
      last.files.length === files.length &&
      last.files.every((f, i) => f === files[i])
    ) {
      this.listsFromMemory++;
      return [...last.hashes];
    }
    // Each file by the watcher or a stat (not from earlier in the run: that may have been a stat of a file
    // in a folder no one watches, which no event would report changed).
    let byWatcher = true;
    const hashes = files.map((f) => {
      const before = this.watcherAnswers;
      const hash = this.hashOf(f);
      if (this.watcherAnswers === before) byWatcher = false;
      return hash;
    });
    this.lists.delete(key);
    if (byWatcher) {
      if (this.lists.size >= MAX_LISTS) this.lists.delete(this.lists.keys().next().value as string);
      this.lists.set(key, { files: [...files], clock, hashes });
    }
    return hashes;
  }

  /**
   * The SHA-256 of `file`'s content, or undefined when it is not there or a folder. A symbolic link is
   * keyed by what it leads to (link-key.ts: its target's hash, `→`-prefixed, when that is a file inside
   * the allowed roots; else its text and a marker): the tools read through links. `reuseInRun`: inside a check run
   * (validationEpoch), a file stat'ed since the run started is not stat'ed again; a check after a tool ran
   * must pass false.
   */
  /** Folders whose hash is being made (a link inside one that leads back to it is a cycle). */
  private readonly hashingDirs = new Set<string>();

  /**
   * The hash of a linked folder's contents: each file and link of its walk (the walks' skipped folders
   * left out) by its path in the folder and its hash; undefined when `dir` is not a folder. A link back to
   * a folder being hashed is keyed as a cycle, by its text.
   */
  private folderHash(dir: string, reuseInRun: boolean): string | undefined {
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined;
    if (this.hashingDirs.has(dir)) return `cycle:${dir}`;
    this.hashingDirs.add(dir);
    try {
      const walk = sharedTree.walk(dir, (name) => ALWAYS_SKIPPED.has(name));
      const parts = [...walk.files, ...walk.links]
        .map((f) => [path.relative(dir, f), this.hashOf(f, reuseInRun) ?? null] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return sha256(JSON.stringify(parts));
    } finally {
      this.hashingDirs.delete(dir);
    }
  }

  hashOf(file: string, reuseInRun = false): string | undefined {
    if (reuseInRun) {
      const epoch = validationEpoch.getStore();
      const known = epoch === undefined ? undefined : this.memo.get(file);
      if (known && known.checkedNs >= (epoch as bigint)) return known.hash;
    }
    const root = this.persistence ? this.rootOf(file) : undefined;
    if (root) this.load(root);
    const checkedNs = process.hrtime.bigint();
    const remembered = this.memo.get(file);
    // A long-lived server's watcher has seen no change to it since it was last stat'ed: no stat.
    if (remembered && sharedTree.unchangedFile(file, remembered.seen)) {
      remembered.checkedNs = checkedNs;
      this.watcherAnswers++;
      return remembered.hash;
    }
    const seen = sharedTree.clockBeforeStat();
    let st: fs.BigIntStats | undefined;
    try {
      st = fs.lstatSync(file, { bigint: true });
    } catch {
      this.forget(file, root);
      return undefined;
    }
    if (st.isSymbolicLink()) {
      // Never remembered by the link's own stat (an edit of the target leaves it as it was), nor counted
      // as the watcher's answer (the target's folder may be one no one watches).
      this.forget(file, root);
      const answers = this.watcherAnswers;
      const key = linkKey(
        file,
        this.allowed,
        (real) => this.hashOf(real, reuseInRun),
        (real) => this.folderHash(real, reuseInRun),
      );
      this.watcherAnswers = answers;
      return key;
    }
    if (!st.isFile()) {
      this.forget(file, root);
      return undefined;
    }
    const m = remembered;
    if (m && m.ino === st.ino && m.size === st.size && m.mtimeNs === st.mtimeNs && m.ctimeNs === st.ctimeNs) {
      m.checkedNs = checkedNs;
      m.seen = seen;
      return m.hash;
    }
    const before = process.hrtime.bigint();
    let data: Buffer;
    try {
      data = readContent(file, st.size);
    } catch {
      return undefined;
    }
    this.reads++;
    // The executable bit is part of what a tool sees (RuboCop's Lint/ScriptPermission reads it).
    const hash = sha256(data) + ((st.mode & 0o111n) !== 0n ? "+x" : "");
    // Trust the memo next time only if the file had not been touched just before we read it.
    const wallNs = BigInt(Date.now()) * 1_000_000n - (process.hrtime.bigint() - before);
    if (wallNs - st.mtimeNs > RACY_NS && wallNs - st.ctimeNs > RACY_NS && BigInt(data.length) === st.size) {
      if (this.memo.size >= MAX_MEMO) this.memo.delete(this.memo.keys().next().value as string);
      this.memo.set(file, {
        checkedNs,
        ino: st.ino,
        size: st.size,
        mtimeNs: st.mtimeNs,
        ctimeNs: st.ctimeNs,
        hash,
        seen,
      });
      if (root) this.dirty.add(root);
    } else this.forget(file, root);
    return hash;
  }
}
