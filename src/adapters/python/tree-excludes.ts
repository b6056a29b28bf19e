/**
 * Folders a Python tool walking a tree should skip by default: virtualenvs (named or found by their
 * `pyvenv.cfg`), dependency, build and VCS folders, caches (by name, or tagged with `CACHEDIR.TAG`: cargo's
 * `target/`), and folders .gitignore'd in a git repository.
 * ruff skips most of these itself; flake8 and bandit are handed them as absolute excludes, so a `.venv`
 * inside the project cannot drown the project's own findings.
 */
import fs from "node:fs";
import path from "node:path";
import {
  gitignored,
  insideGitRepository,
  isVirtualenv,
  readGitignore,
  RUFF_DEFAULT_EXCLUDES,
  type GitignoreLayer,
} from "./python-files.js";
import { isWithin } from "../../paths/allowlist.js";
import { sharedTree } from "../../paths/tree-scan.js";

/** ruff's default excludes plus what flake8 and bandit also skip or should (caches, build output). */
export const VENDORED_DIR_NAMES: ReadonlySet<string> = new Set([
  ...RUFF_DEFAULT_EXCLUDES,
  "__pycache__",
  "build",
  "CVS",
]);

/** Beyond this many folders, the rest are left to the tool (the list is an argument). */
export const MAX_EXCLUDED_DIRS = 500;

export interface ExcludedDirs {
  /** Absolute folders under the target to exclude, sorted. */
  dirs: string[];
  /** Folders that are virtualenvs found by `pyvenv.cfg` only (ruff does not know them by name). */
  unnamedVirtualenvs: string[];
  /** True when more folders were found than MAX_EXCLUDED_DIRS. */
  capped: boolean;
}

/**
 * The folders under `target` (not `target` itself) to exclude: vendored names, virtualenvs, and, inside
 * a git repository, .gitignore'd folders (.gitignore files from `root` down are read; none above it).
 * Excluded folders are not descended into, so the walk costs only the project's own folders.
 */
export function findExcludedDirs(
  target: string,
  root: string,
  options: { gitignore?: boolean } = {},
): ExcludedDirs {
  if (!fs.existsSync(target) || !fs.statSync(target).isDirectory())
    return { dirs: [], unnamedVirtualenvs: [], capped: false };
  const useGitignore = options.gitignore !== false && insideGitRepository(target);
  // A long-lived server's watcher vouches for the walk while nothing it read has changed (tree-scan.ts).
  const key = JSON.stringify(["excluded-dirs", target, root, useGitignore]);
  const found = sharedTree.remember(key, () => walkExcludedDirs(target, root, useGitignore));
  return { dirs: [...found.dirs], unnamedVirtualenvs: [...found.unnamedVirtualenvs], capped: found.capped };
}

function walkExcludedDirs(target: string, root: string, useGitignore: boolean): ExcludedDirs {
  const out: ExcludedDirs = { dirs: [], unnamedVirtualenvs: [], capped: false };
  const inherited: GitignoreLayer[] = [];
  if (useGitignore)
    for (let d = target; isWithin(root, d); d = path.dirname(d)) {
      const layer = readGitignore(d, root);
      if (layer) inherited.unshift(layer);
      if (d === path.dirname(d)) break;
    }
  const walk = (dir: string, layers: GitignoreLayer[]) => {
    const own = useGitignore && dir !== target ? readGitignore(dir, root) : undefined;
    const active = own ? [...layers, own] : layers;
    // The shared scan; an unreadable folder is left to the tool, which reports it in its own words.
    const listed = sharedTree.children(dir);
    if (!listed) return;
    const { entries, paths } = listed;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as (typeof entries)[number];
      if (entry.kind !== "dir") continue;
      if (out.dirs.length >= MAX_EXCLUDED_DIRS) {
        out.capped = true;
        return;
      }
      // Joined once per listing by the shared scan.
      const abs = paths[i] as string;
      if (VENDORED_DIR_NAMES.has(entry.name) || gitignored(active, abs, true) || isCacheDir(abs))
        out.dirs.push(abs);
      else if (isVirtualenv(abs)) {
        out.dirs.push(abs);
        out.unnamedVirtualenvs.push(abs);
      } else walk(abs, active);
    }
  };
  walk(target, inherited);
  out.dirs.sort();
  out.unnamedVirtualenvs.sort();
  return out;
}

/**
 * A folder tagged as a cache (`CACHEDIR.TAG`, https://bford.info/cachedir/): cargo's `target/`, and other
 * tools' build caches. Never source.
 */
function isCacheDir(dir: string): boolean {
  const entries = sharedTree.entries(dir);
  return entries
    ? entries.some((e) => e.name === "CACHEDIR.TAG")
    : fs.existsSync(path.join(dir, "CACHEDIR.TAG"));
}

/** Whether `file` lies in a vendored folder below `base` (by name, or a virtualenv by `pyvenv.cfg`). */
export function isVendored(file: string, base: string): boolean {
  const rel = path.relative(base, file);
  if (!rel || rel.startsWith("..")) return false;
  const parts = rel.split(path.sep).slice(0, -1);
  let dir = base;
  for (const part of parts) {
    dir = path.join(dir, part);
    if (VENDORED_DIR_NAMES.has(part) || isVirtualenv(dir)) return true;
  }
  return false;
}

/**
 * The items with the project's own files first and vendored ones after, each group in its original order,
 * so that capping a list never hides the project's findings behind a virtualenv's.
 */
export function projectFirst<T>(items: readonly T[], fileOf: (item: T) => string, base: string): T[] {
  // Remembered per folder: a project's findings are in few folders, each checked once.
  const memo = new Map<string, boolean>();
  const vendored = (item: T) => {
    const dir = path.dirname(path.resolve(base, fileOf(item)));
    let v = memo.get(dir);
    if (v === undefined) memo.set(dir, (v = isVendored(path.join(dir, "x"), base)));
    return v;
  };
  return [...items.filter((i) => !vendored(i)), ...items.filter(vendored)];
}
