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
import { parse as parseToml } from "smol-toml";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import { sharedTree } from "../../paths/tree-scan.js";
import { selectorCovers } from "./ruff-selectors.js";
import { packagePath } from "../../package-root.js";
import { excludeGlobs, perFileApplies, perFilePattern, type PerFilePattern } from "./ruff-globs.js";

export type RuffOptions = Record<string, unknown>;

export interface RuffSettings {
  /** The file the settings came from, if any. */
  source: string | undefined;
  /** The config files read for them: `source` and the files it extends, in that order. */
  chain?: string[];
  /**
   * Whether files below may have settings of their own (ruff's hierarchical discovery: each file gets its
   * nearest config); false when a config file was given, which then holds for every file.
   */
  hierarchical?: boolean;
  /** Directory relative globs are anchored at. */
  baseDir: string;
  /** Options for the embedded Workspace (file-selection keys removed). */
  workspaceOptions: RuffOptions;
  /**
   * Exclude globs (see ruff-globs.ts: absolute ones, and bare ones tried on a file's name too), each anchored
   * at the folder of the config that set it; empty for ruff's default excludes.
   */
  exclude: string[];
  extendExclude: string[];
  /**
   * `lint.exclude` and `format.exclude` (globs as for `exclude`): files found in a folder that only the linter
   * or only the formatter skips, tried on the file's path and name (not its folders), as ruff does.
   */
  lintExclude?: string[];
  formatExclude?: string[];
  respectGitignore: boolean;
  /** From lint.per-file-ignores and lint.extend-per-file-ignores: patterns and the rule prefixes they drop. */
  perFileIgnores: { pattern: PerFilePattern; codes: string[] }[];
  /** Absolute `src` folders (first-party modules live in them); ruff's default is the config's folder and src/. */
  srcDirs?: string[];
  /** Module names found in the `src` folders when the settings were loaded. */
  srcModules?: string[];
  /** Absolute folders that count as packages without an `__init__.py`. */
  namespacePackages?: string[];
  /** From per-file-target-version. */
  perFileTargetVersion?: { pattern: PerFilePattern; version: string }[];
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
    const found = ruffConfigIn(dir, root);
    if (found) return found;
    const parent = path.dirname(dir);
    if (parent === dir || !isWithin(root, parent)) return undefined;
    dir = parent;
  }
}

/** The config file of the folder `dir` itself, by ruff's precedence: .ruff.toml, ruff.toml, pyproject.toml with [tool.ruff]. */
export function ruffConfigIn(dir: string, root: string): string | undefined {
  for (const name of [".ruff.toml", "ruff.toml", "pyproject.toml"]) {
    const file = path.join(dir, name);
    if (!present(file)) continue;
    checkInsideRoot(file, root, `ruff config ${name}`);
    if (name !== "pyproject.toml" || ruffOptionsOf(file) !== undefined) return file;
  }
  return undefined;
}

/**
 * The settings for `file` under a run whose settings are `base`: with a config file given, those; else, as
 * ruff's hierarchical discovery, the settings of the nearest config above the file (a nested config does
 * not inherit from its parent unless it `extend`s it), or `base` when that is base's own or there is none.
 */
export function ruffSettingsFor(file: string, root: string, base: RuffSettings): RuffSettings {
  if (!base.hierarchical) return base;
  const config = findRuffConfig(path.dirname(file), root);
  if (config === undefined || config === base.source) return base;
  return loadRuffSettings(path.dirname(config), root);
}

/** One config file of an `extend` chain: its ruff options and the folder its relative paths start from. */
interface ChainLink {
  file: string;
  dir: string;
  options: RuffOptions;
}

/**
 * The `extend` chain from `file` (relative to each file), the extending file first. Every file extended
 * must lie inside `root`.
 */
function extendChain(file: string, root: string): ChainLink[] {
  const chain: ChainLink[] = [];
  for (let next: string | undefined = file; next !== undefined;) {
    if (chain.some((l) => l.file === next)) throw new Error(`circular "extend" in ${next}`);
    const options = ruffOptionsOf(next) ?? {};
    chain.push({ file: next, dir: path.dirname(next), options });
    if (typeof options.extend !== "string") break;
    const extended = path.resolve(path.dirname(next), options.extend);
    checkInsideRoot(extended, root, `"extend" in ${next}`);
    next = extended;
  }
  return chain;
}

/** A table (lint, lint.isort, ...) of options, or an empty one. */
const tableOf = (v: unknown): RuffOptions =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as RuffOptions) : {};

/** The first link of the chain (the extending file first) that sets `get`'s value: ruff's `a.or(b)` merge. */
function firstSet<T>(
  chain: readonly ChainLink[],
  get: (o: RuffOptions) => T | undefined,
): { value: T; dir: string } | undefined {
  for (const link of chain) {
    const value = get(link.options);
    if (value !== undefined) return { value, dir: link.dir };
  }
  return undefined;
}

/** Per-file tables (glob → value) of every link that sets them, anchored at each link's folder. */
function perFileEntries(
  chain: readonly ChainLink[],
  get: (o: RuffOptions) => unknown,
): { pattern: PerFilePattern; value: unknown }[] {
  return chain.flatMap((link) =>
    Object.entries(tableOf(get(link.options))).map(([glob, value]) => ({
      pattern: perFilePattern(glob, link.dir),
      value,
    })),
  );
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
export function loadRuffSettings(
  start: string,
  root: string,
  configFile?: string,
  /**
   * The working directory of the CLI the run stands for: with a config file given, ruff resolves every path
   * in it (and in the files it extends) from there, not from the file's folder. Unset: the file's folder.
   */
  cwd?: string,
): RuffSettings {
  const from = configFile === undefined ? undefined : cwd;
  const key = JSON.stringify(["ruff-settings", start, root, configFile ?? null, from ?? null, isFile(start)]);
  return sharedTree.remember(key, () => computeRuffSettings(start, root, configFile, from));
}

const isFile = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;

function computeRuffSettings(start: string, root: string, configFile?: string, cwd?: string): RuffSettings {
  const source = configFile ?? findRuffConfig(start, root);
  const found = source ? extendChain(source, root) : [];
  // A config given (the CLI's --config): its paths, and its extended files', are the working directory's.
  const chain = cwd === undefined ? found : found.map((link) => ({ ...link, dir: cwd }));
  // The options the embedded Workspace gets: each extending file's keys win.
  const raw = chain.reduceRight<RuffOptions>((merged, link) => deepMerge(merged, link.options), {});
  const options: RuffOptions = { ...raw };
  for (const key of FILE_SELECTION_KEYS) delete options[key];
  const lint = { ...tableOf(options.lint) };
  // Rule selection is not a key-by-key merge: each file of the chain refines the set its base selected.
  for (const keys of SELECTION_KEYS) {
    const folded = foldSelection(chain, keys);
    for (const key of [keys.select, keys.extend, ...keys.ignore]) {
      delete options[key];
      delete lint[key];
    }
    if (folded.select !== undefined) lint[keys.select] = folded.select;
    if (folded.extend.length) lint[keys.extend] = folded.extend;
    if (folded.ignore.length) lint[keys.ignore[0] as string] = folded.ignore;
  }
  delete options["per-file-ignores"];
  for (const key of ["per-file-ignores", "extend-per-file-ignores", "exclude"]) delete lint[key];
  if (options.lint !== undefined || Object.keys(lint).length) options.lint = lint;
  if (options.format !== undefined) {
    const format = { ...tableOf(options.format) };
    delete format.exclude;
    options.format = format;
  }
  const baseDir = cwd ?? (source ? path.dirname(source) : startDir(start));
  const targetVersion = inferredTargetVersion(raw, source, start, root);
  if (targetVersion) options["target-version"] = targetVersion;
  // Paths in each file are relative to that file's folder, as ruff resolves every link of the chain.
  const lintOf = (o: RuffOptions) => tableOf(o.lint);
  const ignoresOf = (o: RuffOptions) => lintOf(o)["per-file-ignores"] ?? o["per-file-ignores"];
  const ignoresLink = chainLinkSetting(chain, ignoresOf);
  const perFileIgnores = [
    // per-file-ignores: the nearest link's table (top-level is its older spelling); extend-: every link's.
    ...(ignoresLink ? perFileEntries([ignoresLink], ignoresOf) : []),
    ...perFileEntries(chain, (o) => lintOf(o)["extend-per-file-ignores"] ?? o["extend-per-file-ignores"]),
  ].map(({ pattern, value }) => ({ pattern, codes: stringList(value) }));
  const targetLink = chainLinkSetting(chain, (o) => o["per-file-target-version"]);
  const perFileTargetVersion = (
    targetLink ? perFileEntries([targetLink], (o) => o["per-file-target-version"]) : []
  )
    .filter((e): e is { pattern: PerFilePattern; value: string } => typeof e.value === "string")
    .map(({ pattern, value }) => ({ pattern, version: value }));
  const src = firstSet(chain, (o) => (o.src === undefined ? undefined : stringList(o.src)));
  const srcDirs = src ? src.value.map((d) => path.resolve(src.dir, d)) : [baseDir, path.join(baseDir, "src")];
  const namespace = firstSet(chain, (o) =>
    o["namespace-packages"] === undefined ? undefined : stringList(o["namespace-packages"]),
  );
  const exclude = firstSet(chain, (o) => (o.exclude === undefined ? undefined : stringList(o.exclude)));
  const lintExclude = firstSet(chain, (o) => {
    const l = lintOf(o).exclude;
    return l === undefined ? undefined : stringList(l);
  });
  const formatExclude = firstSet(chain, (o) => {
    const f = tableOf(o.format).exclude;
    return f === undefined ? undefined : stringList(f);
  });
  return {
    source,
    chain: chain.map((l) => l.file),
    hierarchical: configFile === undefined,
    baseDir,
    workspaceOptions: options,
    srcDirs,
    srcModules: [...new Set(srcDirs.flatMap((d) => modulesIn(d)))],
    namespacePackages: namespace ? namespace.value.map((d) => path.resolve(namespace.dir, d)) : [],
    perFileTargetVersion,
    exclude: exclude ? exclude.value.flatMap((p) => excludeGlobs(p, exclude.dir)) : [],
    extendExclude: [
      // extend-exclude adds up along the chain; lint.exclude is the nearest link's.
      ...chain.flatMap((l) => stringList(l.options["extend-exclude"]).flatMap((p) => excludeGlobs(p, l.dir))),
    ],
    // Each the nearest link's, as `exclude`.
    lintExclude: lintExclude ? lintExclude.value.flatMap((p) => excludeGlobs(p, lintExclude.dir)) : [],
    formatExclude: formatExclude
      ? formatExclude.value.flatMap((p) => excludeGlobs(p, formatExclude.dir))
      : [],
    respectGitignore: raw["respect-gitignore"] !== false,
    perFileIgnores,
  };
}

/** The option names of one kind of rule selection: the rules checked, or those fixed. */
interface SelectionKeys {
  select: string;
  extend: string;
  /** The first is the current name; the others are older spellings that add to it. */
  ignore: string[];
}

const SELECTION_KEYS: readonly SelectionKeys[] = [
  { select: "select", extend: "extend-select", ignore: ["ignore", "extend-ignore"] },
  { select: "fixable", extend: "extend-fixable", ignore: ["unfixable"] },
];

/** A selection option of one file: under `[lint]`, else at the top level (its older place). */
function selectionList(options: RuffOptions, key: string): string[] | undefined {
  const value = tableOf(options.lint)[key] ?? options[key];
  return value === undefined ? undefined : stringList(value);
}

/**
 * One selection equivalent to the chain's, as ruff applies them in turn (the extended file first): a
 * `select` starts afresh, `extend-select` adds to what the files below left, `ignore` takes away. A rule an
 * earlier file ignored and a later one selects again is selected, so that ignore is dropped.
 */
export function foldSelection(
  chain: readonly { options: RuffOptions }[],
  keys: SelectionKeys,
): { select: string[] | undefined; extend: string[]; ignore: string[] } {
  let select: string[] | undefined;
  let extend: string[] = [];
  let ignore: string[] = [];
  for (const { options } of [...chain].reverse()) {
    const own = selectionList(options, keys.select);
    if (own !== undefined) {
      select = own;
      extend = [];
      ignore = [];
    }
    const added = selectionList(options, keys.extend) ?? [];
    const reselected = [...(own ?? []), ...added];
    ignore = ignore.filter((code) => !reselected.some((s) => selectorCovers(s, code)));
    extend = [...extend, ...added];
    ignore = [...ignore, ...keys.ignore.flatMap((k) => selectionList(options, k) ?? [])];
  }
  return { select, extend, ignore };
}

/** The first link of the chain that sets `get`'s value (ruff's `a.or(b)` for a whole table). */
function chainLinkSetting(
  chain: readonly ChainLink[],
  get: (o: RuffOptions) => unknown,
): ChainLink | undefined {
  return chain.find((link) => get(link.options) !== undefined);
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

let stdlibByTarget: Record<string, string[]> | undefined;
const stdlibSets = new Map<string, Set<string>>();

/**
 * The modules ruff counts as the standard library for a target version (`default` when none is set), as
 * data/ruff/stdlib.json records them for the embedded version (scripts/generate-ruff-rules.mjs).
 */
function standardModules(target: unknown): Set<string> {
  const key = typeof target === "string" ? target : "default";
  let set = stdlibSets.get(key);
  if (!set) {
    stdlibByTarget ??= (
      JSON.parse(fs.readFileSync(packagePath("data", "ruff", "stdlib.json"), "utf8")) as {
        versions: Record<string, string[]>;
      }
    ).versions;
    set = new Set(stdlibByTarget[key] ?? stdlibByTarget.default ?? []);
    stdlibSets.set(key, set);
  }
  return set;
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
  const key = settings.perFileTargetVersion?.length ? file : path.dirname(file);
  let cache = optionsCache.get(settings);
  if (!cache) optionsCache.set(settings, (cache = new Map()));
  let options = cache.get(key);
  if (!options) cache.set(key, (options = computeWorkspaceOptions(settings, file)));
  return options;
}

function computeWorkspaceOptions(settings: RuffSettings, file: string): RuffOptions {
  const options: RuffOptions = { ...settings.workspaceOptions };
  for (const { pattern, version } of settings.perFileTargetVersion ?? [])
    if (perFileApplies(pattern, file)) options["target-version"] = version;
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
  // ruff tries the standard library before the file's package and the `src` folders: a package named
  // `json` still imports the standard `json` (poetry's src/poetry/json/__init__.py).
  const standard = standardModules(options["target-version"]);
  const added = [...names].filter((n) => !placed.has(n) && !standard.has(n)).sort();
  if (added.length) {
    isort["known-first-party"] = [...isortSectionNames(isort, "known-first-party"), ...added];
    lint.isort = isort;
    options.lint = lint;
  }
  return options;
}
