/**
 * The allowed root `check` gives a path when no --allowed-paths is given: the project the path is part of,
 * so that its tools find the configuration they find by hand. `check src` in a repository whose
 * pyproject.toml is at its top must lint with that pyproject.toml (ruff walks up to it); an allowed root at
 * `src` hid it, and ruff linted with the embedded defaults (flask's `src/flask`: 44 findings of rules the
 * project does not select, where `ruff check src/flask` passes).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Files whose folder is a project's top for some tool (where its configuration is looked up to): used
 * outside a git work tree only, where nothing else says where the project ends.
 */
const PROJECT_MARKERS = [
  "pyproject.toml",
  "setup.cfg",
  "setup.py",
  "ruff.toml",
  ".ruff.toml",
  "package.json",
  "tsconfig.json",
  "go.mod",
  "go.work",
  "Cargo.toml",
  "Gemfile",
  ".rubocop.yml",
];

const folderOf = (p: string) => (fs.statSync(p).isDirectory() ? p : path.dirname(p));

/** The nearest folder at or above `dir` that holds `.git` (a folder, or a worktree's file), as spelled. */
export function workTreeAbove(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, ".git"))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/**
 * The nearest folder at or above `dir` holding a project marker, below the file system's root and the home
 * folder (a stray ~/package.json makes no project of everything under ~).
 */
function markedProjectAbove(dir: string, home: string): string | undefined {
  for (let d = dir; d !== path.dirname(d) && d !== home; d = path.dirname(d))
    if (PROJECT_MARKERS.some((m) => fs.existsSync(path.join(d, m)))) return d;
  return undefined;
}

/**
 * The default allowed root of a path given to `check` (absolute, as resolved from the working directory):
 * the git work tree around it; outside one, the nearest project above it; else its folder (a file's
 * folder for a file).
 */
export function defaultRootOf(p: string, home = os.homedir()): string {
  const dir = folderOf(p);
  return workTreeAbove(dir) ?? markedProjectAbove(dir, home) ?? dir;
}
