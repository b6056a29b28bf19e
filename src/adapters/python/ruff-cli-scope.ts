/**
 * What the server checks before the ruff CLI runs on a target, since ruff then reads on its own: its
 * settings (config files and `extend`s) and the Python files it finds, which include symlinks it follows.
 */
import fs from "node:fs";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import { discoverPythonFiles, RUFF_DEFAULT_EXCLUDES } from "./python-files.js";
import { sharedTree } from "../../paths/tree-scan.js";

const DEFAULT_EXCLUDES = new Set(RUFF_DEFAULT_EXCLUDES);
import { loadRuffSettings, type RuffSettings } from "./ruff-settings.js";
import { ruffConfigArgs } from "./config-discovery.js";
import type { RuffCliScope } from "./ruff-cli.js";
import { findExcludedDirs } from "./tree-excludes.js";

/** Whether a link leads out of `root` (a dangling link does not: ruff reports it itself). */
function leavesRoot(link: string, root: string): boolean {
  try {
    return !isWithin(root, fs.realpathSync.native(link));
  } catch {
    return false;
  }
}

/** Symlinked Python files under `target` that ruff would follow out of `root` (to read or rewrite them). */
function linksOutside(target: string, settings: RuffSettings, root: string): string[] {
  const links: string[] = [];
  discoverPythonFiles(target, settings, root, links);
  return links.filter((l) => leavesRoot(l, root));
}

/**
 * Throws path_validation when the ruff CLI would read a config or a Python file outside `root`. A config
 * that does not parse is left for ruff to report in its own words.
 */
export function checkRuffCliScope(target: string, root: string, configFile?: string): void {
  let settings: RuffSettings;
  try {
    settings = loadRuffSettings(target, root, configFile);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    return;
  }
  // No link anywhere ruff walks by default leads out of the root (the shared scan, which skips only ruff's
  // default excludes and so sees at least what ruff sees): ruff can follow none out, and the walk below,
  // ruff's own file discovery with its excludes and .gitignore tests, is spared. A tree with links
  // inside itself (pylint's tests link a module to another) no longer pays for that walk (issue 42).
  if (
    settings.exclude.length === 0 &&
    !sharedTree
      .walk(target, (name) => DEFAULT_EXCLUDES.has(name), "ruff-default-excludes")
      .links.some((l) => leavesRoot(l, root))
  )
    return;
  const outside = linksOutside(target, settings, root);
  if (outside.length)
    throw new ToolError(
      "path_validation",
      `ruff would follow symbolic links out of the allowed paths: ${outside.slice(0, 20).join(", ")}`,
      { allowed_paths: [root] },
    );
}

/**
 * The config and exclude options of a ruff CLI run on `target`: its configuration from inside `root` only
 * (see ruffConfigArgs), and virtualenvs that ruff does not exclude by name (found by `pyvenv.cfg`).
 */
export function ruffCliScope(target: string, root: string, configFile?: string): RuffCliScope {
  return {
    configArgs: ruffConfigArgs(target, root, configFile),
    extendExclude: findExcludedDirs(target, root).unnamedVirtualenvs,
  };
}
