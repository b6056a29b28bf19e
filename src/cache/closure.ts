/**
 * The configuration closure of a cached tool run: what decides its verdict besides the files it checks
 * and the configs in the tree, as the tool itself resolves it (a ruff `extend`, a tsconfig's `extends`
 * chain and the sources its program reads outside the project, the modules an ESLint config imports, a
 * go.mod `replace` and go.work, a cargo path dependency), and the file kinds the configuration adds to the
 * tool's file set (ruff's `extend-include`, an ESLint `files` pattern).
 *
 * Resolving costs a parse, a worker request or a subprocess, so a closure is resolved once and remembered
 * (in memory, in the local folder and on the remote, paths relative to the project root) with the content
 * hashes of the files that decided it; a later call re-verifies those hashes (a stat each, see FileHashes)
 * and resolves again only when one changed. Every file of a closure is part of the key by its content;
 * a file outside the allowed paths is never read: the run is not cached, and says why.
 */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import { buildId } from "./build-id.js";
import { keyOf } from "./hash.js";
import { relativeKey } from "./rel-key.js";
import type { ResultCache } from "./result-cache.js";
import { ALWAYS_SKIPPED } from "../paths/tree-scan.js";

/** A folder of sources the tool reads beyond the project (a replaced Go module, a cargo path dependency). */
export interface ClosureDir {
  dir: string;
  /** Source of a RegExp on file names: the folder's files that are inputs. */
  names: string;
  /** Folder names not walked, besides ALWAYS_SKIPPED. */
  skip?: string[];
}

export interface Closure {
  /** Files the tool reads besides those it checks (absolute): extended configs, imported modules... */
  files: string[];
  dirs?: ClosureDir[];
  /** Name globs of file kinds the configuration adds to the tool's file set (`*.pyw`; `*`: any file). */
  kinds?: string[];
  /** Files whose content decided this closure, re-verified on each call; `files` when absent. */
  watch?: string[];
  /** Set: a verdict that depends on this closure is not cached, and why. */
  uncached?: string;
}

export interface ClosureSpec {
  /** What is resolved (the tool, its identity, the target): a closure is remembered under it. */
  id: unknown;
  resolve(): Promise<Closure>;
  /**
   * What the tool says it read by the end of a run (an ESLint rule that reads a file on first use, while it
   * lints, after `resolve` was asked): a result is stored under the closure with it (closureAfterRun).
   */
  after?(): Promise<Closure>;
}

/** A closure as remembered: paths relative to the project root, and the watched files' hashes. */
interface StoredClosure {
  files: string[];
  dirs: ClosureDir[];
  kinds: string[];
  watch: [string, string | null][];
  uncached: string | null;
}

const EMPTY: Closure = { files: [] };

function isStored(x: unknown): x is StoredClosure {
  const s = x as StoredClosure | undefined;
  return !!s && Array.isArray(s.files) && Array.isArray(s.dirs) && Array.isArray(s.watch);
}

/** A relative key back to an absolute path (it may climb out of the root: `../shared/ruff.toml`). */
const absoluteOf = (root: string, rel: string) => path.resolve(root, rel);

/** The hash of a file the closure names, read only inside the allowed paths (null: gone or not a file). */
function watchedHash(cache: ResultCache, file: string): string | null {
  return insideRoots(cache, file) ? (cache.hashes.hashOf(file, true) ?? null) : null;
}

/**
 * The file's real location lies inside an allowed root (a missing file: its own path is checked): only
 * then does the server read it, to key it or to follow what it names.
 */
export function insideRoots(cache: ResultCache, file: string): boolean {
  let real = file;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    // Not there (yet): its path decides.
  }
  return cache.roots.some((r) => isWithin(r, real));
}

function store(closure: Closure, root: string, cache: ResultCache): StoredClosure {
  const rel = (f: string) => relativeKey(root, f);
  return {
    files: closure.files.map(rel),
    dirs: (closure.dirs ?? []).map((d) => ({ ...d, dir: rel(d.dir) })),
    kinds: closure.kinds ?? [],
    watch: [...new Set(closure.watch ?? closure.files)].map((f) => [rel(f), watchedHash(cache, f)]),
    uncached: closure.uncached ?? null,
  };
}

function load(stored: StoredClosure, root: string): Closure {
  return {
    files: stored.files.map((f) => absoluteOf(root, f)),
    dirs: stored.dirs.map((d) => ({ ...d, dir: absoluteOf(root, d.dir) })),
    kinds: stored.kinds,
    watch: stored.watch.map(([f]) => absoluteOf(root, f)),
    ...(stored.uncached !== null && { uncached: stored.uncached }),
  };
}

const memoKeyOf = (spec: ClosureSpec) => keyOf("closure", buildId(), spec.id);

/**
 * The closure of `spec`: the remembered one while every file that decided it is unchanged, else resolved
 * again (and remembered). Paths are stored relative to `root`, so another checkout shares the memo.
 */
export async function closureOf(cache: ResultCache, spec: ClosureSpec, root: string): Promise<Closure> {
  const key = memoKeyOf(spec);
  const stored =
    cache.closures.get(key) ??
    cache.getLocal<StoredClosure>(key) ??
    (await cache.getRemote<StoredClosure>(key));
  if (isStored(stored) && stored.watch.every(([f, h]) => watchedHash(cache, absoluteOf(root, f)) === h)) {
    cache.closures.set(key, stored);
    return load(stored, root);
  }
  const fresh = await spec.resolve();
  rememberClosure(cache, spec, root, fresh);
  return fresh;
}

/** Remembers `closure` as the closure of `spec` (a run reported more than was resolved before it). */
export function rememberClosure(cache: ResultCache, spec: ClosureSpec, root: string, closure: Closure): void {
  const key = memoKeyOf(spec);
  const stored = store(closure, root, cache);
  cache.closures.set(key, stored);
  cache.put(key, stored);
}

/**
 * The closure a run's result is stored under: `closure` with what `spec.after` reports the run read
 * (remembered, so the next call's key has it before it runs). `grew`: the run read a file the key it
 * started with did not have.
 */
export async function closureAfterRun(
  cache: ResultCache,
  spec: ClosureSpec | undefined,
  root: string,
  closure: Closure | undefined,
): Promise<{ closure: Closure | undefined; grew: boolean }> {
  if (!spec?.after) return { closure, grew: false };
  const late = await spec.after();
  const had = new Set(closure?.files ?? []);
  if (late.files.every((f) => had.has(f)) && (!late.uncached || closure?.uncached))
    return { closure, grew: false };
  const merged = mergeClosures(closure, late);
  rememberClosure(cache, spec, root, merged);
  return { closure: merged, grew: true };
}

/** Two closures as one: what either reads, the first's reason not to cache, else the second's. */
export function mergeClosures(a: Closure | undefined, b: Closure | undefined): Closure {
  if (!a || !b) return a ?? b ?? EMPTY;
  const dirs = new Map([...(a.dirs ?? []), ...(b.dirs ?? [])].map((d) => [d.dir, d]));
  return {
    files: [...new Set([...a.files, ...b.files])],
    dirs: [...dirs.values()],
    kinds: [...new Set([...(a.kinds ?? []), ...(b.kinds ?? [])])],
    watch: [...new Set([...(a.watch ?? a.files), ...(b.watch ?? b.files)])],
    ...((a.uncached ?? b.uncached) !== undefined && { uncached: a.uncached ?? b.uncached }),
  };
}

export type ClosureKey = { parts: [string, string | null][] } | { uncached: string };

/**
 * The closure as part of a key: each file (and each file of its folders) by its path relative to the
 * root and its content hash. A file or folder outside the allowed paths is not read: the answer is the
 * reason the run is not cached. `reuseInRun`: see FileHashes.hashOf (false for the check after a run).
 */
export function closureKey(
  cache: ResultCache,
  closure: Closure | undefined,
  root: string,
  reuseInRun = true,
): ClosureKey {
  if (!closure) return { parts: [] };
  if (closure.uncached) return { uncached: closure.uncached };
  const parts = new Map<string, string | null>();
  const outside = (what: string) => ({
    uncached: `the configuration reads ${what}, outside the allowed paths: the server does not read it`,
  });
  for (const f of closure.files) {
    if (!insideRoots(cache, f)) return outside(f);
    parts.set(relativeKey(root, f), cache.hashes.hashOf(f, reuseInRun) ?? null);
  }
  for (const d of closure.dirs ?? []) {
    if (!insideRoots(cache, d.dir)) return outside(d.dir);
    const names = new RegExp(d.names);
    const skip = new Set(d.skip ?? []);
    const walk = cache.tree.walk(
      d.dir,
      (name) => ALWAYS_SKIPPED.has(name) || skip.has(name),
      [...skip].sort().join("/"),
    );
    for (const f of walk.files)
      if (names.test(path.basename(f)))
        parts.set(relativeKey(root, f), cache.hashes.hashOf(f, reuseInRun) ?? null);
    // A link by what it leads to inside the allowed paths (a file's or a folder's content), else its text.
    for (const l of walk.links) parts.set(relativeKey(root, l), cache.hashes.hashOf(l, reuseInRun) ?? null);
  }
  return { parts: [...parts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/**
 * The name glob a file-set pattern asks of a file's last path segment (`src/**\/*.pyw` → `*.pyw`;
 * `**` or a trailing `/` → `*`, any file): a file the pattern matches has a name the glob matches, so a
 * listing by these globs holds every file the pattern can add. Negations only narrow: none.
 */
export function kindOfPattern(pattern: string): string | undefined {
  if (pattern.startsWith("!")) return undefined;
  const last = pattern.split("/").pop() ?? "";
  return last === "" || last === "**" ? "*" : last;
}

/** Keys whose files are in both and whose hashes differ: a closure file changed while the tool ran. */
export function changedBetween(before: ClosureKey, after: ClosureKey): boolean {
  if (!("parts" in before) || !("parts" in after)) return false;
  const was = new Map(before.parts);
  return after.parts.some(([f, h]) => was.has(f) && was.get(f) !== h);
}
