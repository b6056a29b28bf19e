/** The project root a call is about: where transactions lock and what display paths are relative to. */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { isWithinPath as isWithin } from "./fast-relative.js";

/** Files or folders that mark a project root. */
const PROJECT_MARKERS = [
  ".mcp-cache",
  ".git",
  "pyproject.toml",
  "package.json",
  "setup.cfg",
  "setup.py",
  "tsconfig.json",
  "ruff.toml",
  ".ruff.toml",
  "mypy.ini",
  "Cargo.toml",
  "go.mod",
  "Gemfile",
  ".rubocop.yml",
];

/**
 * The project root of a canonical target: the outermost directory from the target (itself, if a directory)
 * up to `allowedRoot` that holds a project marker, so that a monorepo package and the repository around it
 * share one lock; `allowedRoot` when none has one.
 */
export function projectRootOf(target: string, allowedRoot: string): string {
  let dir = existsSync(target) && statSync(target).isFile() ? path.dirname(target) : target;
  let outermost: string | undefined;
  while (isWithin(allowedRoot, dir)) {
    if (PROJECT_MARKERS.some((m) => existsSync(path.join(dir, m)))) outermost = dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return outermost ?? allowedRoot;
}
