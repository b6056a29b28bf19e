/**
 * Where the ruff CLI, black and flake8 get their configuration. Left alone, each searches beyond the
 * allowed root: ruff in every ancestor of the files and then the user's config, black from the nearest
 * `.git`/`.hg`/`pyproject.toml` however far up (and its .gitignore), flake8 from the server's working
 * directory. The server finds the configuration itself, walking up from the target only to the allowed
 * root, and tells the tool which one to use (or to use none).
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import { iniSection } from "./ini.js";
import { findRuffConfig } from "./ruff-settings.js";

/** The directory to start from: the target if a directory, else its folder. */
function startDir(target: string): string {
  return fs.existsSync(target) && fs.statSync(target).isFile() ? path.dirname(target) : target;
}

/** `dir`, then its parents up to and including `root`. */
function* upToRoot(target: string, root: string): Generator<string> {
  for (let dir = startDir(target); isWithin(root, dir); dir = path.dirname(dir)) {
    yield dir;
    if (dir === path.dirname(dir)) return;
  }
}

/** True when `file` exists and its real location is inside `root`. */
function existsInside(file: string, root: string): boolean {
  try {
    return isWithin(root, fs.realpathSync.native(file));
  } catch {
    return false;
  }
}

/**
 * ruff CLI options that keep its configuration inside `root`: the explicit `config` when given; nothing
 * when a config lies between the target and `root` (then every file's nearest config is inside the root);
 * otherwise `--isolated`, so that neither a parent's config nor the user's is read.
 */
export function ruffConfigArgs(target: string, root: string, config?: string): string[] {
  if (config) return ["--config", config];
  return findRuffConfig(target, root) ? [] : ["--isolated"];
}

/** black's project root: the nearest folder from `target` up holding `.git`, `.hg` or pyproject.toml. */
function blackProjectRoot(target: string): string {
  let dir = startDir(target);
  for (;;) {
    const hg = path.join(dir, ".hg");
    const pyproject = path.join(dir, "pyproject.toml");
    if (
      fs.existsSync(path.join(dir, ".git")) ||
      (fs.existsSync(hg) && fs.statSync(hg).isDirectory()) ||
      (fs.existsSync(pyproject) && fs.statSync(pyproject).isFile())
    )
      return dir;
    if (dir === path.dirname(dir)) return dir;
    dir = path.dirname(dir);
  }
}

/**
 * black's `--config`. black takes its project root from the nearest folder holding `.git`, `.hg` or
 * pyproject.toml, however far up, reads that folder's .gitignore and pyproject.toml, else the user's
 * config. The explicit `config`, or the project root's pyproject.toml inside `root`, is passed; otherwise
 * `emptyConfig()`, so that neither a parent's pyproject.toml nor the user's config is read. A project root
 * above `root` with a .gitignore (which black would read) is refused. Only existence is checked above
 * `root`; nothing there is read.
 */
export function blackConfigArgs(
  target: string,
  root: string,
  config: string | undefined,
  emptyConfig: () => string,
): string[] {
  const projectRoot = blackProjectRoot(target);
  const inside = isWithin(root, projectRoot);
  if (!inside && fs.existsSync(path.join(projectRoot, ".gitignore")))
    throw new ToolError(
      "invalid_input",
      `black would read its configuration from ${projectRoot}, above the allowed root ${root} (black ` +
        "takes the nearest folder holding .git, .hg or pyproject.toml): add a pyproject.toml to the project",
      { allowed_paths: [root] },
    );
  if (config) return ["--config", config];
  const pyproject = path.join(projectRoot, "pyproject.toml");
  if (inside && fs.existsSync(pyproject)) {
    if (!existsInside(pyproject, root))
      throw new ToolError("path_validation", `black config is outside the allowed paths: ${pyproject}`, {
        allowed_paths: [root],
      });
    return ["--config", pyproject];
  }
  return ["--config", emptyConfig()];
}

/** flake8's config files, in its order, and the sections that make them one. */
const FLAKE8_CONFIGS = ["setup.cfg", "tox.ini", ".flake8"];
const FLAKE8_SECTIONS = ["flake8", "flake8:local-plugins"];

/** The nearest flake8 config from the target up to `root` (flake8 itself searches from its cwd up). */
export function findFlake8Config(target: string, root: string): string | undefined {
  for (const dir of upToRoot(target, root))
    for (const name of FLAKE8_CONFIGS) {
      const file = path.join(dir, name);
      if (!fs.existsSync(file)) continue;
      if (!existsInside(file, root))
        throw new ToolError("path_validation", `flake8 config is outside the allowed paths: ${file}`, {
          allowed_paths: [root],
        });
      const text = fs.readFileSync(file, "utf8");
      if (FLAKE8_SECTIONS.some((section) => iniSection(text, section) !== undefined)) return file;
    }
  return undefined;
}

/** flake8 options: the explicit config, the one found inside the root, or `--isolated` (none). */
export function flake8ConfigArgs(target: string, root: string, config?: string): string[] {
  const file = config ?? findFlake8Config(target, root);
  return file ? ["--config", file] : ["--isolated"];
}
