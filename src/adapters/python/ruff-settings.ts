/**
 * Finds and reads a project's ruff settings (ruff.toml, .ruff.toml, or pyproject.toml's [tool.ruff])
 * the way the ruff CLI does, and splits them into what the embedded build accepts and what the
 * server applies itself (file selection and per-file ignores, which need a file name).
 */
import fs from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";

export type RuffOptions = Record<string, unknown>;

export interface RuffSettings {
  /** The file the settings came from, if any. */
  source: string | undefined;
  /** Directory relative globs are anchored at. */
  baseDir: string;
  /** Options for the embedded Workspace (file-selection keys removed). */
  workspaceOptions: RuffOptions;
  exclude: string[];
  extendExclude: string[];
  respectGitignore: boolean;
  /** glob → rule prefixes, from lint.per-file-ignores and lint.extend-per-file-ignores. */
  perFileIgnores: Record<string, string[]>;
}

/** Keys the embedded build cannot honour because they concern files on disk; the server handles them. */
const FILE_SELECTION_KEYS = [
  "exclude",
  "extend-exclude",
  "include",
  "extend-include",
  "force-exclude",
  "respect-gitignore",
  "cache-dir",
  "src",
  "extend",
  "namespace-packages",
  "builtins-file",
  "per-file-target-version",
];

function readToml(file: string): Record<string, unknown> {
  return parseToml(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}

/** The ruff options in a config file: the whole of ruff.toml, or [tool.ruff] of pyproject.toml. */
export function ruffOptionsOf(file: string): RuffOptions | undefined {
  const doc = readToml(file);
  if (path.basename(file) === "pyproject.toml") {
    const tool = doc.tool as Record<string, unknown> | undefined;
    return tool?.ruff as RuffOptions | undefined;
  }
  return doc;
}

/**
 * Refuses a settings file whose real location (symlinks and `..` resolved) is outside `root`: the server
 * reads these files itself, so a link or an `extend` must not make it read beyond the allowed paths.
 */
function checkInsideRoot(file: string, root: string, what: string): void {
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    throw new ToolError("path_validation", `${what} does not exist: ${file}`);
  }
  if (!isWithin(root, real))
    throw new ToolError("path_validation", `${what} is outside the allowed paths: ${file}`, {
      allowed_paths: [root],
    });
}

/** The nearest config file from `start` upward, not leaving `root`. */
export function findRuffConfig(start: string, root: string): string | undefined {
  let dir = fs.existsSync(start) && fs.statSync(start).isFile() ? path.dirname(start) : start;
  for (;;) {
    for (const name of [".ruff.toml", "ruff.toml", "pyproject.toml"]) {
      const file = path.join(dir, name);
      if (!fs.existsSync(file)) continue;
      checkInsideRoot(file, root, `ruff config ${name}`);
      if (name !== "pyproject.toml" || ruffOptionsOf(file) !== undefined) return file;
    }
    const parent = path.dirname(dir);
    if (parent === dir || !isWithin(root, parent)) return undefined;
    dir = parent;
  }
}

/**
 * Follows `extend` chains (relative to each file), with the extending file's keys winning. Every file
 * extended must lie inside `root`.
 */
function loadWithExtends(file: string, root: string, seen = new Set<string>()): RuffOptions {
  if (seen.has(file)) throw new Error(`circular "extend" in ${file}`);
  seen.add(file);
  const options = ruffOptionsOf(file) ?? {};
  if (typeof options.extend !== "string") return options;
  const extended = path.resolve(path.dirname(file), options.extend);
  checkInsideRoot(extended, root, `"extend" in ${file}`);
  const parent = loadWithExtends(extended, root, seen);
  return deepMerge(parent, options);
}

function deepMerge(base: RuffOptions, over: RuffOptions): RuffOptions {
  const out: RuffOptions = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      typeof v === "object" &&
      v !== null &&
      !Array.isArray(v) &&
      typeof b === "object" &&
      b !== null &&
      !Array.isArray(b)
        ? deepMerge(b as RuffOptions, v as RuffOptions)
        : v;
  }
  return out;
}

const stringList = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** Settings for files under `start`: from `configFile` when given, else the nearest config. */
export function loadRuffSettings(start: string, root: string, configFile?: string): RuffSettings {
  const source = configFile ?? findRuffConfig(start, root);
  const raw = source ? loadWithExtends(source, root) : {};
  const options: RuffOptions = { ...raw };
  for (const key of FILE_SELECTION_KEYS) delete options[key];
  const lint =
    typeof options.lint === "object" && options.lint !== null ? { ...(options.lint as RuffOptions) } : {};
  const perFileIgnores: Record<string, string[]> = {};
  for (const table of [raw["per-file-ignores"], lint["per-file-ignores"], lint["extend-per-file-ignores"]]) {
    if (typeof table !== "object" || table === null) continue;
    for (const [glob, codes] of Object.entries(table))
      perFileIgnores[glob] = [...(perFileIgnores[glob] ?? []), ...stringList(codes)];
  }
  delete options["per-file-ignores"];
  for (const key of ["per-file-ignores", "extend-per-file-ignores", "exclude"]) delete lint[key];
  if (options.lint !== undefined) options.lint = lint;
  return {
    source,
    baseDir: source ? path.dirname(source) : start,
    workspaceOptions: options,
    exclude: stringList(raw.exclude),
    extendExclude: [
      ...stringList(raw["extend-exclude"]),
      ...stringList((raw.lint as RuffOptions | undefined)?.exclude),
    ],
    respectGitignore: raw["respect-gitignore"] !== false,
    perFileIgnores,
  };
}
