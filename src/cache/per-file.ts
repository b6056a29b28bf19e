/**
 * The per-file result cache, for tools whose findings on a file depend on that file (and the
 * configuration) only: ruff, flake8, ESLint without type information, Prettier, RuboCop, gofmt, black.
 *
 * A request names its files (in the tool's order) and its identity: the tool, its version, the resolved
 * configuration (config files' content, arguments, and its closure: what the configuration reads beyond the
 * tree, closure.ts) and the server's build. A request's values are kept
 * as one bundle: per file, its path relative to the project root, the SHA-256 of its content and its value.
 * A file whose content hash matches the bundle of the same file list (else this project's latest bundle;
 * else, with a shared cache, the team's bundle of that file list) is not run; the rest run as one subset
 * call of the tool, or, when more than half are missing, the request runs whole, as it would without a
 * cache. A run that reports a file outside the list (the server's listing missed it), or whose closure
 * the server cannot read, is returned as it is, nothing is stored, and the outcome says why (`uncached`).
 */
import fs from "node:fs";
import path from "node:path";
import { buildId } from "./build-id.js";
import { relativeKey } from "./rel-key.js";
import { isNormalAbsolute } from "../paths/fast-relative.js";
import { keyOf } from "./hash.js";
import type { ResultCache } from "./result-cache.js";
import { inShard } from "./shard.js";
import {
  changedBetween,
  closureAfterRun,
  closureKey,
  closureOf,
  type Closure,
  type ClosureKey,
  type ClosureSpec,
} from "./closure.js";

/** What a run of the tool gave: the values of the files that have one, and what the whole run says. */
export interface PerFileRun<V, M> {
  values: Map<string, V>;
  meta: M;
  /** Every file the tool went through (tools that list them: ESLint, RuboCop), on a whole run. */
  files?: string[];
  /**
   * What the tool noted about one file (a warning on its `# noqa`: file-notes.ts), by file: kept with that
   * file's value and replaced when it runs again, where `meta` is the whole run's and kept from the first.
   */
  fileNotes?: ReadonlyMap<string, readonly string[]>;
}

export interface PerFileJob<V, M> {
  cache: ResultCache;
  /** The tool and what it does: "ruff check", "prettier --check". */
  kind: string;
  /** Everything besides the files' content that determines a file's value. */
  identity: unknown;
  /** Project root: keys and stored values use paths relative to it, so checkouts elsewhere share them. */
  root: string;
  /**
   * The files, or for a tool that names every file it checks, the listing of the tree its file list
   * depends on (given the closure: the file kinds its configuration adds): the list learned from its last
   * whole run on that listing is used.
   */
  files: readonly string[] | { listing: unknown | ((closure: Closure) => unknown) };
  /** What the tool resolves besides the files and `identity` (closure.ts): part of the key. */
  closure?: ClosureSpec;
  isEmpty(value: V): boolean;
  /**
   * Runs the tool on these files, or on the whole request (undefined); `needFiles` says that a whole run
   * must also say which files it went through (the list is not known yet). A run that learns its file list
   * before it ends (ruff's `--show-files` beside its check) hands it to `listed`: the cache reads and hashes
   * those files while the tool still runs, instead of after it.
   */
  run(
    subset: readonly string[] | undefined,
    needFiles?: boolean,
    listed?: (files: readonly string[]) => void,
  ): Promise<PerFileRun<V, M>>;
  /** A value as stored (paths relative to root) and back. */
  encode(value: V, root: string): unknown;
  decode(stored: unknown, file: string, root: string): V;
  /** Most files passed to a subset run (argv stays small); past it the request runs whole. */
  maxSubset?: number;
  /** The tool's file list without a run, where that is cheap: used for a shard before any whole run. */
  listFiles?(): Promise<string[]>;
}

export interface PerFileOutcome<V, M> {
  /** The files of the result, in the request's order. */
  files: string[];
  /** Non-empty values by file. */
  values: Map<string, V>;
  meta: M;
  /** The notes about the result's files (PerFileRun's), in the files' order, each once, at most MAX_FILE_NOTES. */
  fileNotes: string[];
  /** Files whose value came from the cache, of `total`. */
  cached: number;
  total: number;
  ran: "none" | "subset" | "whole";
  /** Set when the run could not be stored (and why). */
  uncached?: string;
}

/** What a request is keyed by: its identity with the closure, or why it is not cached at all. */
interface IdentityKeys {
  identity: string;
  latestKey: string;
  listKey?: string;
  closure?: Closure;
  closureKey: ClosureKey;
}
type Keys = IdentityKeys | { uncached: string };

/** The keys of `job` under `closure` (its key part `part`): its identity, latest bundle and file list. */
function keysOf<V, M>(
  job: PerFileJob<V, M>,
  closure: Closure | undefined,
  part: { parts: [string, string | null][] },
): IdentityKeys {
  const identity = keyOf(job.kind, buildId(), job.identity, part.parts);
  const latestKey = keyOf("latest", identity, job.root);
  let listKey: string | undefined;
  if (!Array.isArray(job.files)) {
    const given = (job.files as { listing: unknown }).listing;
    const listing =
      typeof given === "function" ? (given as (c: Closure) => unknown)(closure ?? { files: [] }) : given;
    listKey = listKeyOf(identity, listing);
  }
  return { identity, latestKey, listKey, closure, closureKey: part };
}

/** One request's values: aligned lists of relative paths, content hashes and stored values (null: empty). */
interface Bundle {
  meta: unknown;
  r: readonly string[];
  h: string[];
  v: unknown[];
  /** Notes about files (PerFileRun.fileNotes), by relative path: only files that have some. */
  n?: Record<string, string[]>;
}

/** Notes about files a result lists at most (a tool can warn of every file); then how many more. */
export const MAX_FILE_NOTES = 20;

/** The notes of `files` in their order, each once, capped (and how many more there were). */
function fileNotesOf(files: readonly string[], notes: ReadonlyMap<string, readonly string[]>): string[] {
  if (notes.size === 0) return [];
  const all = [...new Set(files.flatMap((f) => notes.get(f) ?? []))];
  if (all.length <= MAX_FILE_NOTES) return all;
  return [...all.slice(0, MAX_FILE_NOTES), `${all.length - MAX_FILE_NOTES} more notes about files`];
}

/** A bundle's notes about one file, when they are a list of strings. */
function storedNotes(bundle: Bundle, rel: string): string[] | undefined {
  const kept = bundle.n && Object.hasOwn(bundle.n, rel) ? bundle.n[rel] : undefined;
  return Array.isArray(kept) && kept.every((n) => typeof n === "string") ? kept : undefined;
}

/**
 * A project's latest bundle is kept as the key of its exact entry (a few bytes), not the bundle again: an
 * edit then writes one bundle (~130 KB on pylint), not two, and a pointer already right is not written.
 */
interface LatestPointer {
  bundle: string;
}

function isLatestPointer(x: unknown): x is LatestPointer {
  return !!x && typeof (x as LatestPointer).bundle === "string";
}

/** The bundle the project's latest pointer names, when both are still in the cache. */
function latestBundle(cache: ResultCache, latestKey: string): unknown {
  const pointer = cache.getLocal<unknown>(latestKey);
  return isLatestPointer(pointer) ? cache.getLocal<unknown>(pointer.bundle) : undefined;
}

/** Stores `bundle` under its exact key, and points the project's latest at it (unless it does already). */
function storeBundle(cache: ResultCache, exactKey: string, latestKey: string, bundle: Bundle): void {
  cache.put(exactKey, bundle);
  const pointer = cache.getLocal<unknown>(latestKey);
  if (!isLatestPointer(pointer) || pointer.bundle !== exactKey)
    cache.put(latestKey, { bundle: exactKey } satisfies LatestPointer, { local: true });
}

/**
 * The exact key of a file list, remembered by identity: a warm call over the same list (most calls) compares
 * the paths instead of hashing their canonical JSON again (~1 ms a call on pylint's 1,206 files).
 */
const bundleKeys = new Map<string, { rels: readonly string[]; key: string }>();
const MAX_BUNDLE_KEYS = 64;

function bundleKeyOf(identity: string, rels: readonly string[]): string {
  const last = bundleKeys.get(identity);
  if (
    last &&
    (last.rels === rels || (last.rels.length === rels.length && last.rels.every((r, i) => r === rels[i])))
  )
    return last.key;
  const key = keyOf("bundle", identity, rels);
  bundleKeys.delete(identity);
  if (bundleKeys.size >= MAX_BUNDLE_KEYS) bundleKeys.delete(bundleKeys.keys().next().value as string);
  bundleKeys.set(identity, { rels, key });
  return key;
}

/**
 * The key of a listing (the tree a tool's file list depends on), remembered while it is made of the same
 * frozen arrays of paths (the walks the tree scan remembers: cached-run.ts fromWalk): a warm call over
 * pylint's 2,400 listed paths hashed their canonical JSON again each time (~0.35 ms).
 */
const listKeys = new Map<string, { parts: readonly unknown[]; key: string }>();
/** Frozen arrays found to hold only strings: nothing in them can change. */
const frozenPathLists = new WeakSet<readonly unknown[]>();

function isFrozenPathList(x: unknown): boolean {
  if (!Array.isArray(x) || !Object.isFrozen(x)) return false;
  if (frozenPathLists.has(x)) return true;
  if (!x.every((p) => typeof p === "string")) return false;
  frozenPathLists.add(x);
  return true;
}

function listKeyOf(identity: string, listing: unknown): string {
  if (!Array.isArray(listing) || !listing.every(isFrozenPathList)) return keyOf("list", identity, listing);
  const last = listKeys.get(identity);
  if (last && last.parts.length === listing.length && last.parts.every((p, i) => p === listing[i]))
    return last.key;
  const key = keyOf("list", identity, listing);
  listKeys.delete(identity);
  if (listKeys.size >= MAX_BUNDLE_KEYS) listKeys.delete(listKeys.keys().next().value as string);
  listKeys.set(identity, { parts: [...listing], key });
  return key;
}

/**
 * The absolute paths of a cached file list (relative paths, as stored), made once per list object the cache
 * holds in memory: a warm call joined pylint's 1,206 paths again, and made them relative again (~0.6 ms).
 * Undefined when a path is not one this cache writes (a key below `root`, as relativeKey makes it): a list
 * from a shared cache never names a file outside the project.
 */
const filesOfLists = new WeakMap<readonly string[], { root: string; files: readonly string[] | undefined }>();

function filesOfList(root: string, rels: readonly string[]): readonly string[] | undefined {
  const known = filesOfLists.get(rels);
  if (known?.root === root) return known.files;
  let joined: string[];
  let inside: boolean;
  if (isNormalAbsolute(root)) {
    // A key as relativeKey writes one is a normal path below a normal root: joined by concatenation, and
    // checked without resolving (path.join and path.relative for each took ~4 ms of a fresh check of pylint).
    joined = rels.map((r) => `${root}/${r}`);
    // Below the root and normal: not empty, no `.` or `..` segment, not absolute (that makes a doubled slash).
    inside = joined.every(isNormalAbsolute);
  } else {
    joined = rels.map((r) => path.join(root, r));
    inside = rels.every(
      (r, i) =>
        r !== "" &&
        r !== ".." &&
        !path.isAbsolute(r) &&
        !r.startsWith("../") &&
        relOf(root, joined[i] as string) === r,
    );
  }
  const files = inside ? Object.freeze(joined) : undefined;
  // Only a frozen list stays as it was when joined (the cache's own lists are frozen when stored).
  if (Object.isFrozen(rels)) filesOfLists.set(rels, { root, files });
  return files;
}

/** Paths given to one subset run at most, in bytes (Linux allows 2 MiB of arguments and environment). */
const MAX_SUBSET_BYTES = 512 * 1024;

const relOf = relativeKey;

/** Looks files up in a bundle by relative path (its index built once per bundle object). */
const indexes = new WeakMap<Bundle, Map<string, number>>();
function indexOf(bundle: Bundle, rel: string): number | undefined {
  let index = indexes.get(bundle);
  if (!index) {
    index = new Map(bundle.r.map((r, i) => [r, i]));
    indexes.set(bundle, index);
  }
  return index.get(rel);
}

function isBundle(b: unknown): b is Bundle {
  const x = b as Bundle | undefined;
  return (
    !!x &&
    Array.isArray(x.r) &&
    Array.isArray(x.h) &&
    Array.isArray(x.v) &&
    x.r.length === x.h.length &&
    x.h.length === x.v.length
  );
}

/** Values of every file of the job, from the cache where it has them and from the tool for the rest. */
export async function runPerFile<V, M>(job: PerFileJob<V, M>): Promise<PerFileOutcome<V, M>> {
  const { cache } = job;
  const closure = job.closure ? await closureOf(cache, job.closure, job.root) : undefined;
  const closurePart = closureKey(cache, closure, job.root);
  if ("uncached" in closurePart) return wholeRun(job, { uncached: closurePart.uncached });
  const keys: Keys = keysOf(job, closure, closurePart);
  const { listKey } = keys;
  let files: readonly string[] | undefined;
  /** The files' relative paths, when the cached list gave them. */
  let listedRels: readonly string[] | undefined;
  if (Array.isArray(job.files)) files = [...(job.files as readonly string[])];
  else if (listKey) {
    const rels = cache.getLocal<string[]>(listKey) ?? (await cache.getRemote<string[]>(listKey));
    if (Array.isArray(rels) && rels.every((r) => typeof r === "string")) {
      // The cache's list is only read: frozen, it is joined once while the cache holds it (filesOfList).
      files = filesOfList(job.root, Object.freeze(rels));
      if (files) listedRels = rels;
    }
  }
  const { identity, latestKey } = keys;
  if (!files && job.listFiles && cache.shard) files = await job.listFiles();
  if (!files) return wholeRun(job, keys);
  const all = files;
  // check --shard: this shard's files only (the list stays whole under its key).
  const shard = cache.shard;
  if (shard) files = files.filter((f) => inShard(shard, job.root, f));
  const rels = !shard && listedRels ? listedRels : files.map((f) => relOf(job.root, f));
  const hashes = cache.hashes.hashesOf(files);
  if (hashes.some((h) => h === undefined)) return wholeRun(job, keys, all);

  const exactKey = bundleKeyOf(identity, rels);
  const values = new Map<string, V>();
  const notes = new Map<string, readonly string[]>();
  let missing = files.map((_, i) => i);
  let meta: unknown;
  const take = (bundle: unknown, aligned: boolean) => {
    if (!isBundle(bundle)) return;
    meta ??= bundle.meta;
    missing = missing.filter((i) => {
      const at = aligned ? i : indexOf(bundle, rels[i] as string);
      if (at === undefined || bundle.r[at] !== rels[i] || bundle.h[at] !== hashes[i]) return true;
      const stored = bundle.v[at];
      if (stored !== null) values.set(files[i] as string, job.decode(stored, files[i] as string, job.root));
      const kept = bundle.n && storedNotes(bundle, rels[i] as string);
      if (kept) notes.set(files[i] as string, kept);
      return false;
    });
  };
  const exact = cache.getLocal<Bundle>(exactKey);
  take(exact, true);
  if (missing.length) take(latestBundle(cache, latestKey), false);
  if (missing.length && cache.remote && !cache.remote.unavailable())
    take(await cache.getRemote<Bundle>(exactKey), true);

  // A shard runs its own files, whatever the cache has; otherwise the whole request runs when most files
  // are missing (what a run without the cache does) or when naming them would make a long command line.
  const subsetBytes = missing.reduce((n, i) => n + (files[i] as string).length + 1, 0);
  const maxSubset = job.maxSubset ?? 10_000;
  if (
    (!shard && (meta === undefined || missing.length * 2 > files.length)) ||
    missing.length > maxSubset ||
    subsetBytes > MAX_SUBSET_BYTES
  )
    return wholeRun(job, keys, all);

  let ran: PerFileOutcome<V, M>["ran"] = "none";
  // A copy of the list: callers sort the outcome's files, and the list may be the cache's own (filesOfList).
  const outcome = (uncached?: string): PerFileOutcome<V, M> => ({
    files: [...files],
    values,
    meta: meta as M,
    fileNotes: fileNotesOf(files, notes),
    cached: files.length - missing.length,
    total: files.length,
    ran,
    ...(uncached ? { uncached } : {}),
  });
  if (missing.length) {
    const subset = missing.map((i) => files[i] as string);
    const run = await job.run(subset);
    const asked = new Set(subset);
    if ([...run.values.keys()].some((f) => !asked.has(f))) return wholeRun(job, keys, all);
    meta ??= run.meta;
    for (const f of subset) {
      const v = run.values.get(f);
      if (v !== undefined && !job.isEmpty(v)) values.set(f, v);
      const noted = run.fileNotes?.get(f);
      if (noted?.length) notes.set(f, noted);
    }
    ran = "subset";
    // Read during the run and not in the key: the cached files' values were made under a key without it
    // (the next call, keyed with it, runs whole).
    if ((await closureAfterRun(cache, job.closure, job.root, closure)).grew)
      return outcome("the configuration read files during the run that its key did not have yet");
    // A file that changed while the tool read it is not stored (its hash would not match what ran).
    const after = missing.map((i) => cache.hashes.hashOf(files[i] as string));
    if (
      after.some((h, n) => h !== hashes[missing[n] as number]) ||
      changedBetween(closurePart, closureKey(cache, closure, job.root, false))
    )
      return outcome("a file changed during the run");
  }
  if (ran !== "none" || !exact)
    storeBundle(
      cache,
      exactKey,
      latestKey,
      makeBundle(job, meta, files, rels, hashes as string[], values, notes),
    );
  return outcome();
}

function makeBundle<V, M>(
  job: PerFileJob<V, M>,
  meta: unknown,
  files: readonly string[],
  rels: readonly string[],
  hashes: string[],
  values: ReadonlyMap<string, V>,
  notes: ReadonlyMap<string, readonly string[]> | undefined,
): Bundle {
  const v = files.map((f) => {
    const value = values.get(f);
    return value === undefined || job.isEmpty(value) ? null : job.encode(value, job.root);
  });
  let n: Record<string, string[]> | undefined;
  files.forEach((f, i) => {
    const noted = notes?.get(f);
    if (noted?.length) (n ??= {})[rels[i] as string] = [...noted];
  });
  return { meta, r: rels, h: hashes, v, ...(n && { n }) };
}

/**
 * The whole request, as without a cache; its values are stored when its files are known and match (and
 * never when the request is not cached: `keys.uncached` says why, and so does the outcome).
 */
async function wholeRun<V, M>(
  job: PerFileJob<V, M>,
  keys: Keys,
  listed?: readonly string[],
): Promise<PerFileOutcome<V, M>> {
  const { cache } = job;
  const known = listed ? [...listed] : Array.isArray(job.files) ? [...(job.files as string[])] : undefined;
  const before = "uncached" in keys ? undefined : known?.map((f) => cache.hashes.hashOf(f, true));
  const startedMs = Date.now();
  // Files named before the run ends are hashed meanwhile (the tool runs in its own process; this one
  // waits): the hashes after the run then find each file's stat unchanged and read nothing again, and a
  // file that changed since is read again (file-hashes.ts). On a cold check of pylint, ~1,200 files read
  // after ruff's run, ~20 ms of the check's wall time (issue 42).
  const prehash =
    "uncached" in keys || known !== undefined
      ? undefined
      : (listedFiles: readonly string[]) => {
          for (const f of listedFiles) cache.hashes.hashOf(f);
        };
  const run = await job.run(undefined, known === undefined, prehash);
  const files = run.files ?? known;
  const values = new Map<string, V>();
  for (const [f, v] of run.values) if (!job.isEmpty(v)) values.set(f, v);
  const shard = cache.shard;
  const mineOf = (all: string[]) => (shard ? all.filter((f) => inShard(shard, job.root, f)) : all);
  // Notes about a file the list lacks are shown too, for this run (a bundle keeps its files' notes only).
  const noted = mineOf([...(run.fileNotes?.keys() ?? [])]);
  const notesOfFiles = (shown: readonly string[]) => {
    const listed = new Set(shown);
    return fileNotesOf([...shown, ...noted.filter((f) => !listed.has(f))], run.fileNotes ?? new Map());
  };
  const base = { values, meta: run.meta, cached: 0, ran: "whole" as const };
  const dropOthers = () => {
    if (shard) for (const f of [...values.keys()]) if (!inShard(shard, job.root, f)) values.delete(f);
  };
  /** The reply for this shard's share of `all` (the other shards' values dropped). */
  const mineOnly = (all: string[], uncached: string | undefined) => {
    dropOthers();
    const mine = mineOf(all);
    return { ...base, files: mine, fileNotes: notesOfFiles(mine), total: mine.length, uncached };
  };
  if ("uncached" in keys) return mineOnly(files ?? [...run.values.keys()], keys.uncached);
  if (!files)
    return {
      ...base,
      files: [...values.keys()],
      fileNotes: notesOfFiles([...values.keys()]),
      total: values.size,
      uncached: "the tool did not list its files",
    };
  const inList = new Set(files);
  const strays = [...run.values.keys()].filter((f) => !inList.has(f) && !job.isEmpty(run.values.get(f) as V));
  if (strays.length)
    return {
      ...base,
      files: [...files, ...strays],
      fileNotes: notesOfFiles([...files, ...strays]),
      total: files.length + strays.length,
      uncached: `the tool reported ${relOf(job.root, strays[0] as string)}, which its file list did not have`,
    };
  // What the configuration read while the tool ran (closureAfterRun): the result is stored under it.
  const late = await closureAfterRun(cache, job.closure, job.root, keys.closure);
  const latePart = late.grew ? closureKey(cache, late.closure, job.root, false) : undefined;
  if (latePart && "uncached" in latePart) return mineOnly(files, latePart.uncached);
  // Stored under the key with them; what changed during the run is judged against the key it started with.
  const stored = latePart ? { ...keysOf(job, late.closure, latePart), closureKey: keys.closureKey } : keys;
  const hashes = files.map((f) => cache.hashes.hashOf(f));
  // Each file's mtime from the stat its hash just took (one lstat a file, not two), else its own stat.
  const mtimeMs = (f: string) =>
    cache.hashes.mtimeMsOf(f) ?? fs.lstatSync(f, { throwIfNoEntry: false })?.mtimeMs ?? Infinity;
  const changed =
    (before && !run.files
      ? hashes.some((h, i) => h !== before[i])
      : files.some((f) => mtimeMs(f) >= startedMs - 50)) ||
    changedBetween(stored.closureKey, closureKey(cache, stored.closure, job.root, false));
  if (!changed && !hashes.some((h) => h === undefined)) {
    // Frozen: the list is shared with later calls as it is held in memory (filesOfList).
    const rels = Object.freeze(files.map((f) => relOf(job.root, f)));
    if (stored.listKey && run.files) cache.put(stored.listKey, rels);
    const bundle = makeBundle(job, run.meta, files, rels, hashes as string[], values, run.fileNotes);
    storeBundle(cache, bundleKeyOf(stored.identity, rels), stored.latestKey, bundle);
  }
  // A shard reports its own files (the others' values were stored too: they cost nothing more).
  return mineOnly(files, changed ? "a file changed during the run or just before it" : undefined);
}
