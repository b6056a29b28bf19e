/**
 * What a cached tool run needs from the project, shared by every adapter that caches: the server's one
 * project scan (a walk of the target that skips what the tool never reads), the identity of the
 * executable that runs, and the content of the config files the result depends on.
 */
import fs from "node:fs";
import path from "node:path";
import type { ResultCache } from "../cache/result-cache.js";
import { ALWAYS_SKIPPED, type TreeWalk } from "../cache/tree-scan.js";
import { isWithin } from "../paths/allowlist.js";
import { relativeKey } from "../cache/rel-key.js";

/** The walk of `target` (a folder; a file is its own walk), skipping ALWAYS_SKIPPED and `skip`'s names. */
export function scanTarget(
  cache: ResultCache,
  target: string,
  skip: ReadonlySet<string> = new Set(),
): TreeWalk {
  const st = fs.statSync(target, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return { files: st?.isFile() ? [target] : [], links: [], dirs: [] };
  return cache.tree.walk(target, (name) => ALWAYS_SKIPPED.has(name) || skip.has(name));
}

/** Relative path, `/`-separated (keys are the same on every machine). */
export const relPath = relativeKey;

/**
 * The config files a result depends on, with their content hashes: those in the walk whose name matches
 * `names`, and those in the folders from the target's up to `root`. Paths are relative to `root`.
 */
export function configIdentity(
  cache: ResultCache,
  walk: TreeWalk,
  target: string,
  root: string,
  names: RegExp,
  extra: readonly (string | undefined)[] = [],
): [string, string | null][] {
  const found = new Set<string>(walk.files.filter((f) => names.test(path.basename(f))));
  const start = walk.dirs.length ? target : path.dirname(target);
  for (let dir = path.dirname(start); isWithin(root, dir); dir = path.dirname(dir)) {
    for (const e of cache.tree.entries(dir) ?? [])
      if (e.kind !== "dir" && names.test(e.name)) found.add(path.join(dir, e.name));
    if (dir === root || dir === path.dirname(dir)) break;
  }
  if (walk.dirs.length)
    for (const e of cache.tree.entries(target) ?? [])
      if (e.kind === "link" && names.test(e.name)) found.add(path.join(target, e.name));
  for (const f of extra) if (f) found.add(f);
  return [...found].sort().map((f) => [relPath(root, f), contentHashInside(cache, f, root)]);
}

/** The hash of a file's content, read only when its real location is inside `root` (else null). */
function contentHashInside(cache: ResultCache, file: string, root: string): string | null {
  try {
    const real = fs.realpathSync.native(file);
    return isWithin(root, real) ? (cache.hashes.hashOf(real) ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * The executable that runs, by name, version and size (an upgrade in place changes the size even while
 * the server still knows the old version); not by path or time, so that other machines share entries.
 */
export function executableIdentity(executable: string | undefined, version: string | undefined): unknown {
  if (!executable) return null;
  try {
    return [path.basename(executable), version ?? null, fs.statSync(executable).size];
  } catch {
    return [path.basename(executable), version ?? null];
  }
}

/** The walk's files relative to `root`, filtered by name: a listing whose change means files came or went. */
export function listingOf(walk: TreeWalk, root: string, names: RegExp): string[] {
  return walk.files.filter((f) => names.test(path.basename(f))).map((f) => relPath(root, f));
}
