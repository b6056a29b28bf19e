/**
 * What a cached tool run needs from the project, shared by every adapter that caches: the server's one
 * project scan (a walk of the target that skips what the tool never reads), the identity of the
 * executable that runs, and the content of the config files the result depends on.
 */
import { gitExcludesKey } from "./git-excludes.js";
import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import type { ResultCache } from "../cache/result-cache.js";
import { ALWAYS_SKIPPED, type TreeWalk } from "../paths/tree-scan.js";
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
  return cache.tree.walk(
    target,
    (name) => ALWAYS_SKIPPED.has(name) || skip.has(name),
    [...skip].sort().join("/"),
  );
}

/** Relative path, `/`-separated (keys are the same on every machine). */
export const relPath = relativeKey;

/** Answers computed from a shared (frozen) walk's files, by what was asked: the walk never changes. */
const fromSharedWalk = new WeakMap<readonly string[], Map<string, readonly string[]>>();

/**
 * `compute(files)`, remembered with a walk the tree scan shares between calls (see TreeScanner.walk):
 * filtering its 2,400 files by name on every call was ~2 ms of a warm lint of pylint.
 */
function fromWalk(
  files: readonly string[],
  key: string,
  compute: (files: readonly string[]) => readonly string[],
): readonly string[] {
  if (!Object.isFrozen(files)) return compute(files);
  let answers = fromSharedWalk.get(files);
  if (!answers) fromSharedWalk.set(files, (answers = new Map()));
  let answer = answers.get(key);
  if (!answer) answers.set(key, (answer = Object.freeze(compute(files))));
  return answer;
}

/**
 * The config files a result depends on, with their content hashes: those in the walk whose name matches
 * `names`, and those in the folders from the target's up to `root` (paths relative to `root`), and git's
 * excludes (git-excludes.ts).
 */
export function configIdentity(
  cache: ResultCache,
  walk: TreeWalk,
  target: string,
  root: string,
  names: RegExp,
  extra: readonly (string | undefined)[] = [],
): [string, string | null][] {
  return [
    ...configFiles(cache, walk, target, root, names, extra).map((f): [string, string | null] => [
      relPath(root, f),
      contentHashInside(cache, f, root),
    ]),
    // git's own excludes decide the file set of the tools that walk as git does (ruff, ty).
    ...gitExcludesKey(target, root),
  ];
}

/**
 * A walked file's name: the walk's paths are normalized and absolute, so on POSIX the text after the last
 * `/` (path.basename parsed each of a big tree's files again: ~5-8 ms a cold check of pylint).
 */
const nameOf: (file: string) => string =
  path.sep === "/" ? (file) => file.slice(file.lastIndexOf("/") + 1) : (file) => path.basename(file);

/** The config files configIdentity keys (absolute, sorted). */
export function configFiles(
  cache: ResultCache,
  walk: TreeWalk,
  target: string,
  root: string,
  names: RegExp,
  extra: readonly (string | undefined)[] = [],
): string[] {
  const found = new Set<string>(
    fromWalk(walk.files, `names\0${String(names)}`, (files) => files.filter((f) => names.test(nameOf(f)))),
  );
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
  return [...found].sort();
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
 * the server still knows the old version), and where it comes from: the project's own (inside `root`: its
 * path relative to it, a virtualenv's `ruff` say) or the system's. Not by absolute path or time, so that
 * other checkouts and machines share entries.
 */
export function executableIdentity(
  executable: string | undefined,
  version: string | undefined,
  root?: string,
): unknown {
  if (!executable) return null;
  const origin = root && isWithin(root, executable) ? relPath(root, executable) : "system";
  try {
    return [path.basename(executable), version ?? null, fs.statSync(executable).size, origin];
  } catch {
    return [path.basename(executable), version ?? null, origin];
  }
}

/**
 * The walk's files and links relative to `root` whose name the tool takes by default (`names`) or by a file
 * kind its configuration adds (`kinds`: name globs, see kindOfPattern in closure.ts): a listing whose change
 * means files of the tool's file set came or went. Links too: the tools read through them, so a linked
 * `v.py` added is a new file of the set (before, the cached file list was kept and it went unchecked).
 */
export function listingOf(
  walk: TreeWalk,
  root: string,
  names: RegExp,
  kinds: readonly string[] = [],
): readonly string[] {
  return fromWalk(walk.files, JSON.stringify(["listing", root, String(names), kinds]), (files) => {
    const added = kinds.length ? picomatch([...kinds], { dot: true }) : undefined;
    return [...files, ...walk.links]
      .filter((f) => {
        const name = nameOf(f);
        return names.test(name) || (added !== undefined && added(name));
      })
      .map((f) => relPath(root, f));
  });
}

/** Package managers' own record of what they installed in a node_modules (npm, pnpm, yarn). */
const INSTALL_RECORDS = [".package-lock.json", ".modules.yaml", ".yarn-state.yml", ".yarn-integrity"];

/**
 * Each node_modules from the project up to the root (where Node resolves packages): its entries' names
 * (`@types/*` and other scopes listed too) and the hash of the install record; null where there is none.
 * Two clones of one commit, one with its dependencies installed and one without, differ here.
 */
export function nodeModulesState(cache: ResultCache, project: string, root: string): unknown[] {
  const out: unknown[] = [];
  for (let dir = project; isWithin(root, dir); dir = path.dirname(dir)) {
    const nm = path.join(dir, "node_modules");
    const entries = cache.tree.entries(nm);
    if (entries) {
      const names = entries.flatMap((e) =>
        e.name.startsWith("@") && e.kind === "dir"
          ? (cache.tree.entries(path.join(nm, e.name)) ?? []).map((x) => `${e.name}/${x.name}`)
          : [e.name],
      );
      const records = INSTALL_RECORDS.map((r) => cache.hashes.hashOf(path.join(nm, r), true) ?? null);
      out.push([relativeKey(root, nm), names, records]);
    }
    if (dir === root || dir === path.dirname(dir)) break;
  }
  return out;
}
