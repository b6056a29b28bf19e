/**
 * Which of a language's tools a project is configured for, read from its manifests and config files (small
 * files only, never above the allowed root): the Python formatter, linter and type checkers, whether it
 * formats with Prettier, and what its package.json scripts run. tool-choice.ts decides from these.
 */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import { sharedTree } from "../paths/tree-scan.js";
import { iniSection } from "./python/ini.js";
import { parsePreCommitConfig, PRE_COMMIT_CONFIG } from "./pre-commit-config.js";

/** A small config or manifest file's text; "" when it is missing, not a file, or 1 MiB or more. */
export function readConfigText(file: string): string {
  try {
    // Config files are small; a huge one is not a config we need to read.
    const st = fs.statSync(file);
    return st.isFile() && st.size < 1024 * 1024 ? fs.readFileSync(file, "utf8") : "";
  } catch {
    return "";
  }
}

const exists = (dir: string, ...names: string[]) => names.some((n) => fs.existsSync(path.join(dir, n)));

/** The directory of a target: itself, or a file's folder. */
export function dirOf(target: string): string {
  return fs.statSync(target, { throwIfNoEntry: false })?.isDirectory() ? target : path.dirname(target);
}

/** The nearest directory from `target` up to `root` holding one of `names`, else undefined. */
export function nearestWith(target: string, root: string, names: readonly string[]): string | undefined {
  for (let d = dirOf(target); isWithin(root, d); d = path.dirname(d)) {
    if (exists(d, ...names)) return d;
    if (path.dirname(d) === d) break;
  }
  return undefined;
}

const PYTHON_CONFIGS = [
  "pyproject.toml",
  "setup.cfg",
  "tox.ini",
  "setup.py",
  "ruff.toml",
  ".ruff.toml",
  ".flake8",
  "mypy.ini",
  ".mypy.ini",
  "pyrightconfig.json",
];

export interface PythonTools {
  formatter: "ruff" | "black";
  linter: "ruff" | "flake8";
  /** Each type checker the project configures (mypy, pyright), else ty: check runs each one. */
  checkers: string[];
}

/** pre-commit hook ids that name a Python tool, by the tool. */
const PYTHON_HOOKS: Record<string, string> = {
  "ruff-format": "ruff",
  black: "black",
  "black-jupyter": "black",
  mypy: "mypy",
};

/**
 * The ids of the hooks the project's pre-commit runs (the nearest `.pre-commit-config.yaml` from `target` up
 * to `root`) among those that say which Python tools it uses: a project may lint with ruff and format with
 * black (pylint, termcolor), or type-check with mypy through its hook alone (termcolor's `mypy --strict`):
 * its `[tool.ruff]` says nothing of its formatter, its hooks do.
 */
function preCommitPythonHooks(target: string, root: string): ReadonlySet<string> {
  const dir = nearestWith(target, root, [PRE_COMMIT_CONFIG]);
  if (!dir) return new Set();
  const file = path.join(dir, PRE_COMMIT_CONFIG);
  // A YAML parse costs 8-17 ms (flask, pylint): remembered while the file and its folder's names keep
  // their stat, in a server and between fresh processes alike (tree-scan.ts); a linked file never is.
  return sharedTree.remember(JSON.stringify(["pre-commit-python-hooks", file]), () => {
    if (sharedTree.entries(dir) && !fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink())
      sharedTree.dependsOnFile(file);
    else sharedTree.dependsOnUntracked();
    const text = readConfigText(file);
    // Most configs name none of them: no YAML parse for those.
    if (!/\b(?:ruff-format|black|mypy)\b/.test(text)) return new Set<string>();
    return new Set(
      parsePreCommitConfig(text)
        ?.hooks.map((h) => h.id)
        .filter((id) => id in PYTHON_HOOKS),
    );
  });
}

/** pyproject.toml: a table or any table below it (`[tool.ruff]`, `[tool.ruff.lint]`). */
const hasTable = (text: string, name: string) =>
  new RegExp(`^\\[${name.replace(/\./g, "\\.")}[\\].]`, "m").test(text);

/**
 * The Python tools a project is configured for, from the nearest Python config between `target` and `root`
 * (pyproject.toml, setup.cfg, tox.ini, the tools' own files) and its pre-commit hooks: the formatter its
 * pre-commit runs, else black when configured and ruff is not; flake8 when configured and ruff is not; mypy
 * (configured or run by a hook) and pyright each when configured, else ty.
 */
export function pythonTools(target: string, root = dirOf(target)): PythonTools {
  const dir = nearestWith(target, root, PYTHON_CONFIGS) ?? dirOf(target);
  const pyproject = readConfigText(path.join(dir, "pyproject.toml"));
  const iniFiles = [readConfigText(path.join(dir, "setup.cfg")), readConfigText(path.join(dir, "tox.ini"))];
  const inIni = (name: string) => iniFiles.some((text) => iniSection(text, name) !== undefined);
  const ruffConfigured = exists(dir, "ruff.toml", ".ruff.toml") || hasTable(pyproject, "tool.ruff");
  const hooks = preCommitPythonHooks(target, root);
  const formatter = hooks.has("ruff-format")
    ? "ruff"
    : hooks.has("black") ||
        hooks.has("black-jupyter") ||
        (!ruffConfigured && hasTable(pyproject, "tool.black"))
      ? "black"
      : "ruff";
  const linter = !ruffConfigured && (exists(dir, ".flake8") || inIni("flake8")) ? "flake8" : "ruff";
  const configured = typeCheckersConfiguredIn(dir);
  const checkers = configured.filter((c) => c !== "ty");
  if (hooks.has("mypy") && !checkers.includes("mypy")) checkers.unshift("mypy");
  return { formatter, linter, checkers: checkers.length ? checkers : ["ty"] };
}

/**
 * The Python type checkers whose configuration the folder `dir` itself holds (not its parents): mypy
 * (`mypy.ini`, `.mypy.ini`, `[tool.mypy]`, a `[mypy]` section of setup.cfg or tox.ini), pyright
 * (`pyrightconfig.json`, `[tool.pyright]`), ty (`ty.toml`, `[tool.ty]`). A nested project with any of them
 * is type-checked at its own root (type-check-units.ts), as by hand in its folder.
 */
export function typeCheckersConfiguredIn(dir: string): string[] {
  const pyproject = readConfigText(path.join(dir, "pyproject.toml"));
  const inIni = (name: string) =>
    ["setup.cfg", "tox.ini"].some((f) => iniSection(readConfigText(path.join(dir, f)), name) !== undefined);
  const out: string[] = [];
  if (exists(dir, "mypy.ini", ".mypy.ini") || hasTable(pyproject, "tool.mypy") || inIni("mypy"))
    out.push("mypy");
  if (exists(dir, "pyrightconfig.json") || hasTable(pyproject, "tool.pyright")) out.push("pyright");
  if (exists(dir, "ty.toml") || hasTable(pyproject, "tool.ty")) out.push("ty");
  return out;
}

interface PackageJson {
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  prettier?: unknown;
}

/** A package.json's content, or undefined when it is missing or not JSON. */
export function readPackageJson(dir: string): PackageJson | undefined {
  const text = readConfigText(path.join(dir, "package.json"));
  if (!text) return undefined;
  try {
    const json = JSON.parse(text) as unknown;
    return json && typeof json === "object" ? (json as PackageJson) : undefined;
  } catch {
    return undefined;
  }
}

const PRETTIER_CONFIG = /^\.?prettierrc(?:\.\w+)?$|^prettier\.config\.[cm]?[jt]s$/;

/**
 * Whether a JavaScript/TypeScript project formats with Prettier: a Prettier config, or Prettier in its
 * package.json (a `prettier` key, a dependency, or a script running it), in the nearest package.json's
 * directory between `target` and `root` or in `target`'s own folder.
 */
export function usesPrettier(target: string, root = dirOf(target)): boolean {
  const dirs = new Set([dirOf(target), nearestWith(target, root, ["package.json"]) ?? dirOf(target)]);
  for (const dir of dirs) {
    try {
      if (fs.readdirSync(dir).some((n) => PRETTIER_CONFIG.test(n))) return true;
    } catch {
      continue;
    }
    const pkg = readPackageJson(dir);
    if (!pkg) continue;
    if (pkg.prettier !== undefined || pkg.dependencies?.prettier !== undefined) return true;
    if (pkg.devDependencies?.prettier !== undefined) return true;
    if (Object.values(pkg.scripts ?? {}).some((s) => typeof s === "string" && /(^|[\s/])prettier\s/.test(s)))
      return true;
  }
  return false;
}

/**
 * golangci-lint's config file names, in the order it tries them in one folder: every extension viper reads
 * (measured with 2.15.0: a `.golangci.properties`, `.props`, `.prop`, `.env` or `.dotenv` alone is its config
 * and may load plugins; the server reads the first four, golangci-config.ts).
 */
export const GOLANGCI_CONFIGS = [
  "json",
  "toml",
  "yaml",
  "yml",
  "properties",
  "props",
  "prop",
  "hcl",
  "tfvars",
  "dotenv",
  "env",
  "ini",
].map((ext) => `.golangci.${ext}`);

/**
 * The config file golangci-lint reads when run in the Go module `moduleDir` on `target` (with no --config):
 * the module folder's own first, then the nearest from the target's folder up to `root` (golangci-lint goes
 * on to `/` and $HOME, which the sandbox does not show it). Undefined when there is none.
 */
export function golangciConfig(moduleDir: string, target: string, root: string): string | undefined {
  const first = (dir: string) =>
    GOLANGCI_CONFIGS.map((n) => path.join(dir, n)).find((f) =>
      fs.statSync(f, { throwIfNoEntry: false })?.isFile(),
    );
  const own = first(moduleDir);
  if (own) return own;
  const dir = nearestWith(target, root, GOLANGCI_CONFIGS);
  return dir ? first(dir) : undefined;
}
