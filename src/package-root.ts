/**
 * Where the package's own files are, independent of which module asks: the same code runs as dist/**.js,
 * bundled into dist/bundle/*.mjs|cjs, or as src/**.ts under a test runner, so a path relative to a
 * module's own folder would differ between them. The root is found once, walking up from this module.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const NAME = "mcp-code-quality";
const CODE_DIRS = new Set(["dist", "src"]);

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown };
      if (pkg.name === NAME) return dir;
    } catch {
      // no (readable) package.json here: keep walking up
    }
    if (path.dirname(dir) === dir) break;
  }
  // A copy without its package.json (dist/ alone): the folder holding the nearest dist/ or src/, as
  // module-relative paths assumed, so what does not need the rest of the package still runs.
  for (let dir = start; path.dirname(dir) !== dir; dir = path.dirname(dir))
    if (CODE_DIRS.has(path.basename(dir))) return path.dirname(dir);
  throw new Error(`${NAME}: no package.json of ${NAME} above ${start}`);
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** The package folder (the one holding package.json, dist/, ruby/, data/, policy/). */
export const PACKAGE_ROOT: string = findRoot(here);

/**
 * The folder of the compiled modules the running code came from: dist/ (also for a bundle in
 * dist/bundle/), or src/ when the sources run under a test runner. Worker scripts are named under it.
 */
export const CODE_DIR: string = path.join(
  PACKAGE_ROOT,
  path.relative(PACKAGE_ROOT, here).split(path.sep)[0] ?? "",
);

/** A file of the compiled code, e.g. codePath("adapters/python/ruff-thread.js"). */
export function codePath(...parts: string[]): string {
  return path.join(CODE_DIR, ...parts);
}

/** A file shipped at the package's top level, e.g. packagePath("ruby", "rubocop_worker.rb"). */
export function packagePath(...parts: string[]): string {
  return path.join(PACKAGE_ROOT, ...parts);
}
