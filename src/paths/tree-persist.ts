/**
 * The tree scan's state as kept between processes (tree-scan.ts, persistTo): each walk a stat can vouch
 * for, with the stats of what it read. Encoded with V8's structured
 * serialization (walk results hold Maps and Sets; bigint stats), one entry per allowed root, under a key
 * the cache layer makes of the build (a walk's meaning is the code's) and the root. Decoding trusts nothing it cannot check:
 * a foreign root, a path outside it or a malformed record drops the entry.
 */
import path from "node:path";
import v8 from "node:v8";

/** What a stat said: inode, mtime and ctime (nanoseconds), size (0 for a folder). */
export type StatIdentity = readonly [bigint, bigint, bigint, bigint];

export interface StoredWalk {
  key: string;
  value: unknown;
  dirs: string[];
  files: string[];
  /** Each of `dirs`' stat, then each of `files`' (null: absent). */
  stats: (StatIdentity | null)[];
}

/**
 * As stored: the folders every walk of the root listed, once, with their stats (most walks of a tree list
 * the same folders), and each walk's folders as indexes into them.
 */
interface TreeState {
  v: 2;
  root: string;
  dirs: string[];
  /** ino, mtime, ctime of each of `dirs` (all 0: absent). */
  dirStats: BigUint64Array;
  walks: {
    key: string;
    value: unknown;
    dirs: Uint32Array;
    files: string[];
    fileStats: (StatIdentity | null)[];
  }[];
}

/** Where the state is kept: the result cache's local store (keys are the cache layer's, see persistTo). */
export interface TreeStateStore {
  get(key: string): Buffer | undefined;
  put(key: string, data: Buffer): void;
}

/**
 * The bytes to store; undefined when a walk's value cannot be serialized (then nothing is stored). Of two
 * walks that saw one folder at different stats, the later is kept (the other is stale).
 */
export function encodeTreeState(root: string, walks: readonly StoredWalk[]): Buffer | undefined {
  const index = new Map<string, number>();
  const dirs: string[] = [];
  const stats: bigint[] = [];
  const kept: TreeState["walks"] = [];
  for (const walk of [...walks].reverse()) {
    const at = new Uint32Array(walk.dirs.length);
    let stale = false;
    walk.dirs.forEach((dir, i) => {
      // An absent folder is stored as inode 0 (no file has it).
      const st = walk.stats[i] ?? ABSENT;
      let n = index.get(dir);
      if (n === undefined) {
        n = dirs.length;
        index.set(dir, n);
        dirs.push(dir);
        stats.push(st[0], st[1], st[2]);
      } else if (stats[3 * n] !== st[0] || stats[3 * n + 1] !== st[1] || stats[3 * n + 2] !== st[2])
        stale = true;
      at[i] = n;
    });
    if (!stale)
      kept.push({
        key: walk.key,
        value: walk.value,
        dirs: at,
        files: walk.files,
        fileStats: walk.stats.slice(walk.dirs.length),
      });
  }
  try {
    return v8.serialize({
      v: 2,
      root,
      dirs,
      dirStats: BigUint64Array.from(stats),
      walks: kept.reverse(),
    } satisfies TreeState);
  } catch {
    return undefined;
  }
}

const ABSENT: StatIdentity = [0n, 0n, 0n, 0n];

const isStat = (s: unknown): s is StatIdentity =>
  Array.isArray(s) && s.length === 4 && s.every((n) => typeof n === "bigint");

/** The walks stored for `root`, or undefined (absent, another root's, damaged). */
export function decodeTreeState(data: Buffer | undefined, root: string): StoredWalk[] | undefined {
  if (!data) return undefined;
  let state: TreeState;
  try {
    state = v8.deserialize(data) as TreeState;
  } catch {
    return undefined;
  }
  if (
    state?.v !== 2 ||
    state.root !== root ||
    !Array.isArray(state.dirs) ||
    !(state.dirStats instanceof BigUint64Array) ||
    state.dirStats.length !== 3 * state.dirs.length ||
    !Array.isArray(state.walks)
  )
    return undefined;
  const under = root.endsWith(path.sep) ? root : root + path.sep;
  if (!state.dirs.every((d) => typeof d === "string" && (d === root || d.startsWith(under))))
    return undefined;
  const dirStats = state.dirs.map((_, n): StatIdentity | null =>
    state.dirStats[3 * n] === 0n
      ? null
      : [
          state.dirStats[3 * n] as bigint,
          state.dirStats[3 * n + 1] as bigint,
          state.dirStats[3 * n + 2] as bigint,
          0n,
        ],
  );
  const out: StoredWalk[] = [];
  for (const w of state.walks) {
    if (
      typeof w?.key !== "string" ||
      !(w.dirs instanceof Uint32Array) ||
      w.dirs.length + (Array.isArray(w.files) ? w.files.length : 0) === 0 ||
      !w.dirs.every((n) => n < dirStats.length) ||
      !Array.isArray(w.files) ||
      !w.files.every((f) => typeof f === "string" && path.isAbsolute(f)) ||
      !Array.isArray(w.fileStats) ||
      w.fileStats.length !== w.files.length ||
      !w.fileStats.every((st) => st === null || isStat(st))
    )
      return undefined;
    const dirs = Array.from(w.dirs, (n) => state.dirs[n] as string);
    out.push({
      key: w.key,
      value: w.value,
      dirs,
      files: w.files,
      stats: [...Array.from(w.dirs, (n) => dirStats[n] ?? null), ...w.fileStats],
    });
  }
  return out;
}
