/**
 * Finds and reads a project's ruff settings (ruff.toml, .ruff.toml, or pyproject.toml's [tool.ruff])
 * the way the ruff CLI does, and splits them into what the embedded build accepts and what the
 * server applies itself (file selection and per-file ignores, which need a file name). The embedded
 * build sees only a file's text, never its path or the disk, so whatever the CLI derives from those
 * (target version from `requires-python`, first-party modules from `src` and the file's package,
 * per-file target versions) is computed here into a plain options object per file:
 * `workspaceOptionsFor`, the one thing the embedded ruff's execution needs.
 */
import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { parse as parseToml } from "smol-toml";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import { sharedTree } from "../../paths/tree-scan.js";

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
  /** Absolute `src` folders (first-party modules live in them); ruff's default is the config's folder and src/. */
  srcDirs?: string[];
  /** Module names found in the `src` folders when the settings were loaded. */
  srcModules?: string[];
  /** Absolute folders that count as packages without an `__init__.py`. */
  namespacePackages?: string[];
  /** glob → target version, from per-file-target-version. */
  perFileTargetVersion?: Record<string, string>;
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

/**
 * Whether `file` exists, as a remembered settings load depends on it (tree-scan.ts): its creation, removal or
 * change makes the load run again.
 */
function present(file: string): boolean {
  sharedTree.dependsOnFile(file);
  return fs.existsSync(file);
}

function readToml(file: string): Record<string, unknown> {
  sharedTree.dependsOnFile(file);
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

/** The nearest config file from `start` upward, not leaving `root` (remembered as loadRuffSettings is). */
export function findRuffConfig(start: string, root: string): string | undefined {
  const key = JSON.stringify(["ruff-config", start, root, isFile(start)]);
  return sharedTree.remember(key, () => ({ file: searchRuffConfig(start, root) })).file;
}

function searchRuffConfig(start: string, root: string): string | undefined {
  let dir = fs.existsSync(start) && fs.statSync(start).isFile() ? path.dirname(start) : start;
  for (;;) {
    for (const name of [".ruff.toml", "ruff.toml", "pyproject.toml"]) {
      const file = path.join(dir, name);
      if (!present(file)) continue;
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

/**
 * Settings for files under `start`: from `configFile` when given, else the nearest config. Remembered, in a
 * server and between fresh processes alike (tree-scan.ts), while every file it read or looked for keeps
 * its stat and every folder it listed its names (three TOML parses of a pyproject.toml were ~17 ms of a
 * fresh `check` of flask); never mutate the settings.
 */
export function loadRuffSettings(start: string, root: string, configFile?: string): RuffSettings {
  const key = JSON.stringify(["ruff-settings", start, root, configFile ?? null, isFile(start)]);
  return sharedTree.remember(key, () => computeRuffSettings(start, root, configFile));
}

const isFile = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;

function computeRuffSettings(start: string, root: string, configFile?: string): RuffSettings {
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
  const baseDir = source ? path.dirname(source) : startDir(start);
  const targetVersion = inferredTargetVersion(raw, source, start, root);
  if (targetVersion) options["target-version"] = targetVersion;
  const perFileTargetVersion: Record<string, string> = {};
  const perFileTv = raw["per-file-target-version"];
  if (typeof perFileTv === "object" && perFileTv !== null)
    for (const [glob, v] of Object.entries(perFileTv))
      if (typeof v === "string") perFileTargetVersion[glob] = v;
  const src = raw.src === undefined ? [".", "src"] : stringList(raw.src);
  return {
    source,
    baseDir,
    workspaceOptions: options,
    srcDirs: src.map((d) => path.resolve(baseDir, d)),
    srcModules: [...new Set(src.flatMap((d) => modulesIn(path.resolve(baseDir, d))))],
    namespacePackages: stringList(raw["namespace-packages"]).map((d) => path.resolve(baseDir, d)),
    perFileTargetVersion,
    exclude: stringList(raw.exclude),
    extendExclude: [
      ...stringList(raw["extend-exclude"]),
      ...stringList((raw.lint as RuffOptions | undefined)?.exclude),
    ],
    respectGitignore: raw["respect-gitignore"] !== false,
    perFileIgnores,
  };
}

function startDir(start: string): string {
  return fs.existsSync(start) && fs.statSync(start).isFile() ? path.dirname(start) : start;
}

/** The oldest Python a `requires-python` specifier allows, as ruff's `py3X`; undefined when it has no lower bound. */
export function targetFromRequiresPython(spec: string): string | undefined {
  let minor: number | undefined;
  for (const clause of spec.split(",")) {
    const m = /^\s*(>=|>|~=|===?)\s*3(?:\.(\d+))?/.exec(clause);
    if (!m) continue;
    const v = Number(m[2] ?? 0);
    minor = minor === undefined ? v : Math.max(minor, v);
  }
  if (minor === undefined) return undefined;
  return `py3${Math.min(Math.max(minor, 7), 14)}`;
}

function requiresPythonOf(pyproject: string, root: string): string | undefined {
  if (!present(pyproject) || !isWithin(root, fs.realpathSync.native(pyproject))) return undefined;
  try {
    const project = readToml(pyproject).project as Record<string, unknown> | undefined;
    return typeof project?.["requires-python"] === "string" ? project["requires-python"] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The target version when the settings set none, as the CLI infers it: from `[project] requires-python`
 * of the pyproject.toml holding the settings, or beside the ruff.toml holding them, or, with no ruff
 * settings at all, of the nearest pyproject.toml (inside `root`).
 */
function inferredTargetVersion(
  raw: RuffOptions,
  source: string | undefined,
  start: string,
  root: string,
): string | undefined {
  if (typeof raw["target-version"] === "string") return undefined;
  let pyproject: string | undefined;
  if (source) pyproject = path.join(path.dirname(source), "pyproject.toml");
  else
    for (let d = startDir(start); isWithin(root, d); d = path.dirname(d)) {
      if (present(path.join(d, "pyproject.toml"))) {
        pyproject = path.join(d, "pyproject.toml");
        break;
      }
      if (d === path.dirname(d)) break;
    }
  const spec = pyproject ? requiresPythonOf(pyproject, root) : undefined;
  return spec ? targetFromRequiresPython(spec) : undefined;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Module names a `src` folder provides: its sub-folders and `.py`/`.pyi` files (ruff's `match_sources`). */
function modulesIn(dir: string): string[] {
  // Through the tree scan: a remembered settings load depends on the folder's names.
  const listed = sharedTree.entries(dir);
  // Absent, or not a folder: a link is read through, and never remembered (see dependsOnFile).
  if (!listed) sharedTree.dependsOnFile(dir);
  let entries: { name: string; kind: string }[];
  try {
    entries =
      listed ??
      fs.readdirSync(dir, { withFileTypes: true }).map((e) => ({
        name: e.name,
        kind: e.isDirectory() ? "dir" : e.isFile() ? "file" : "other",
      }));
  } catch {
    return [];
  }
  const names: string[] = [];
  for (const e of entries) {
    const name =
      e.kind === "dir"
        ? e.name
        : e.kind === "file" && /\.pyi?$/.test(e.name)
          ? e.name.replace(/\.pyi?$/, "")
          : "";
    if (IDENTIFIER.test(name)) names.push(name);
  }
  return names;
}

/** The top folder of the package holding `file` (folders with `__init__.py`, or namespace packages). */
function packageRoot(file: string, namespacePackages: readonly string[]): string | undefined {
  let root: string | undefined;
  for (let d = path.dirname(file); d !== path.dirname(d); d = path.dirname(d)) {
    if (
      fs.existsSync(path.join(d, "__init__.py")) ||
      fs.existsSync(path.join(d, "__init__.pyi")) ||
      namespacePackages.includes(d)
    )
      root = d;
    else break;
  }
  return root;
}

function isortSectionNames(isort: RuffOptions, key: string): string[] {
  return stringList(isort[key]);
}

/** Options already computed per settings object: per folder, or per file when per-file target versions exist. */
const optionsCache = new WeakMap<RuffSettings, Map<string, RuffOptions>>();

/**
 * The embedded Workspace options for `file`: the settings' options plus what the CLI derives from the
 * file's path and the disk: its per-file target version, and as `isort.known-first-party` the modules
 * of the `src` folders and the file's own top package (ruff's same-package rule), unless the project
 * already places those names in another section.
 */
export function workspaceOptionsFor(settings: RuffSettings, file: string): RuffOptions {
  const key = Object.keys(settings.perFileTargetVersion ?? {}).length ? file : path.dirname(file);
  let cache = optionsCache.get(settings);
  if (!cache) optionsCache.set(settings, (cache = new Map()));
  let options = cache.get(key);
  if (!options) cache.set(key, (options = computeWorkspaceOptions(settings, file)));
  return options;
}

function computeWorkspaceOptions(settings: RuffSettings, file: string): RuffOptions {
  const options: RuffOptions = { ...settings.workspaceOptions };
  const rel = path.relative(settings.baseDir, file);
  for (const [glob, version] of Object.entries(settings.perFileTargetVersion ?? {}))
    if (picomatch(glob, { dot: true, basename: !glob.includes("/") })(rel))
      options["target-version"] = version;
  const lint =
    typeof options.lint === "object" && options.lint !== null ? { ...(options.lint as RuffOptions) } : {};
  const isort =
    typeof lint.isort === "object" && lint.isort !== null ? { ...(lint.isort as RuffOptions) } : {};
  const names = new Set<string>(settings.srcModules ?? []);
  if (isort["detect-same-package"] !== false) {
    const pkg = packageRoot(file, settings.namespacePackages ?? []);
    if (pkg && IDENTIFIER.test(path.basename(pkg))) names.add(path.basename(pkg));
  }
  const placed = new Set(
    ["known-first-party", "known-third-party", "known-local-folder", "extra-standard-library"].flatMap((k) =>
      isortSectionNames(isort, k),
    ),
  );
  const sections = isort.sections;
  if (typeof sections === "object" && sections !== null)
    for (const mods of Object.values(sections)) for (const m of stringList(mods)) placed.add(m);
  const added = [...names].filter((n) => !placed.has(n)).sort();
  if (added.length) {
    isort["known-first-party"] = [...isortSectionNames(isort, "known-first-party"), ...added];
    lint.isort = isort;
    options.lint = lint;
  }
  return options;
}
