/**
 * A folder with no eslint.config.* of its own (a workspace root) whose packages have theirs: ESLint by hand
 * in each package lints its files with that package's config (as ESLint 10's lookup from each file's folder
 * does), so a run at the root is split into one run per package config, at the package, and one run of the
 * bundled default config over the rest, with the packages' folders ignored.
 */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";
import { ESLINT_CONFIG_NAMES } from "./project.js";
import { staticPrefix } from "./eslint-scope.js";

/** Folders never searched for package configs: dependencies, builds, VCS and hidden folders. */
const NOT_SEARCHED = new Set(["node_modules", "dist", "build", "coverage"]);
/** Bounds of one search (folders listed). */
const MAX_FOLDERS = 20_000;

/**
 * The folders below `dir` (not `dir` itself) that hold an eslint.config.*, shallowest first; not those inside
 * one of them (a package's own nested configs are its own run's business, as before).
 */
export function packageConfigDirs(dir: string): string[] {
  const found: string[] = [];
  let budget = MAX_FOLDERS;
  const queue = [dir];
  while (queue.length && budget-- > 0) {
    const d = queue.shift() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    if (d !== dir && entries.some((e) => e.isFile() && ESLINT_CONFIG_NAMES.includes(e.name))) {
      found.push(d);
      continue;
    }
    for (const e of entries)
      if (e.isDirectory() && !e.name.startsWith(".") && !NOT_SEARCHED.has(e.name))
        queue.push(path.join(d, e.name));
  }
  return found;
}

export interface PackagePart {
  /** The package folder (its config's). */
  dir: string;
  /** What it lints, relative to `dir`; undefined: the package's own default (its lint script, else `.`). */
  files: string[] | undefined;
}

export interface Split {
  packages: PackagePart[];
  /** The patterns of the bundled config's run (none: it has nothing to lint). */
  bundled: string[];
}

/**
 * How absolute `patterns` (files, folders, globs) split between the package folders `dirs` and the bundled
 * run: one inside a package goes to it alone (relative to it, a glob keeping its shape); a folder or glob
 * holding packages gives each its whole default and stays with the bundled run, which ignores the packages'
 * folders. Pure but for `isDir`.
 */
export function splitPatterns(
  patterns: readonly string[],
  dirs: readonly string[],
  isDir: (p: string) => boolean,
): Split {
  const parts = new Map<string, string[] | undefined>();
  const bundled: string[] = [];
  for (const p of patterns) {
    const literal = /[*?[\]{}!]/.test(p) ? staticPrefix(p) || path.sep : p;
    const own = dirs.find((d) => isWithin(d, literal));
    if (own) {
      if (parts.has(own) && parts.get(own) === undefined) continue;
      parts.set(own, [...(parts.get(own) ?? []), path.relative(own, p).split(path.sep).join("/") || "."]);
      continue;
    }
    bundled.push(p);
    if (literal !== p || isDir(p)) for (const d of dirs) if (isWithin(literal, d)) parts.set(d, undefined);
  }
  return { packages: [...parts].map(([dir, files]) => ({ dir, files })), bundled };
}
