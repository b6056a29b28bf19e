/**
 * Where a project keeps its mypy / pyright configuration, and which files that configuration checks
 * (`[tool.mypy] files`, `[tool.pyright] include`), so that a type check on the project root runs the
 * checker the way the project's own `mypy` / `pyright` does. Configs are looked for from the target up
 * to the allowed root only: nothing above it is read.
 */
import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { parse as parseToml } from "smol-toml";
import { isWithin } from "../../paths/allowlist.js";
import { iniSection } from "./ini.js";

export { iniSection };

export interface CheckerConfig {
  /** Absolute config file. */
  file: string;
  /** The directory holding it: where the checker runs, and what relative entries resolve against. */
  dir: string;
  /** The section it was read from, for notes (`[tool.mypy]`, `[mypy]`, `pyrightconfig.json`). */
  section: string;
  /** The configured targets (mypy `files`, pyright `include`), as written; undefined when none. */
  targets?: string[];
}

type Reader = (text: string) => { section: string; targets?: string[] } | undefined;

/** The table at `keys` of a TOML text; undefined when the text is not TOML or has no such table. */
export function tomlTable(text: string, ...keys: string[]): Record<string, unknown> | undefined {
  let node: unknown;
  try {
    node = parseToml(text);
  } catch {
    return undefined;
  }
  for (const k of keys) {
    if (!node || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[k];
  }
  return node && typeof node === "object" ? (node as Record<string, unknown>) : undefined;
}

function stringList(value: unknown): string[] | undefined {
  if (typeof value === "string") return splitCommaList(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  return undefined;
}

/** mypy's comma-separated lists (`files = src, tests`), empty items dropped. */
export function splitCommaList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

const iniReader =
  (section: string): Reader =>
  (text) => {
    const s = iniSection(text, section);
    if (!s) return undefined;
    return {
      section: `[${section}]`,
      targets: s.files ? splitCommaList(s.files.replace(/\n/g, ",")) : undefined,
    };
  };

/** mypy's config files, in the order mypy looks for them in its working directory. */
const MYPY_CONFIGS: [string, Reader][] = [
  ["mypy.ini", iniReader("mypy")],
  [".mypy.ini", iniReader("mypy")],
  [
    "pyproject.toml",
    (text) => {
      const t = tomlTable(text, "tool", "mypy");
      return t ? { section: "[tool.mypy]", targets: stringList(t.files) } : undefined;
    },
  ],
  ["setup.cfg", iniReader("mypy")],
];

/** pyright's: pyrightconfig.json wins over pyproject.toml. */
const PYRIGHT_CONFIGS: [string, Reader][] = [
  [
    "pyrightconfig.json",
    (text) => {
      let json: unknown;
      try {
        // pyright accepts comments and trailing commas; its include list is what matters here.
        json = JSON.parse(text.replace(/^\s*\/\/.*$/gm, "").replace(/,(\s*[}\]])/g, "$1"));
      } catch {
        return { section: "pyrightconfig.json" };
      }
      const include = (json as { include?: unknown } | null)?.include;
      return { section: "pyrightconfig.json", targets: stringList(include) };
    },
  ],
  [
    "pyproject.toml",
    (text) => {
      const t = tomlTable(text, "tool", "pyright");
      return t ? { section: "[tool.pyright]", targets: stringList(t.include) } : undefined;
    },
  ],
];

function readConfig(file: string, reader: Reader, root: string): CheckerConfig | undefined {
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    return undefined;
  }
  // A config linked from outside the allowed root is not read.
  if (!isWithin(root, real) || !fs.statSync(real).isFile()) return undefined;
  const found = reader(fs.readFileSync(real, "utf8"));
  return found ? { file, dir: path.dirname(file), ...found } : undefined;
}

function findConfig(readers: [string, Reader][], start: string, root: string): CheckerConfig | undefined {
  let dir = fs.existsSync(start) && fs.statSync(start).isDirectory() ? start : path.dirname(start);
  while (isWithin(root, dir)) {
    for (const [name, reader] of readers) {
      const config = readConfig(path.join(dir, name), reader, root);
      if (config) return config;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** The mypy config nearest to `start` (up to `root`), or the one given explicitly. */
export function mypyConfig(start: string, root: string, explicit?: string): CheckerConfig | undefined {
  if (explicit) {
    const reader = MYPY_CONFIGS.find(([n]) => n === path.basename(explicit))?.[1] ?? iniReader("mypy");
    return readConfig(explicit, reader, root) ?? { file: explicit, dir: path.dirname(explicit), section: "" };
  }
  return findConfig(MYPY_CONFIGS, start, root);
}

/** The pyright config nearest to `start` (up to `root`), or the one given explicitly. */
export function pyrightConfig(start: string, root: string, explicit?: string): CheckerConfig | undefined {
  if (explicit) {
    const reader = PYRIGHT_CONFIGS.find(([n]) => n === path.basename(explicit))?.[1];
    return (
      (reader && readConfig(explicit, reader, root)) ?? {
        file: explicit,
        dir: path.dirname(explicit),
        section: "",
      }
    );
  }
  return findConfig(PYRIGHT_CONFIGS, start, root);
}

export interface CheckPlan {
  /** Where the checker runs. */
  cwd: string;
  /** Positional targets to pass (empty: the config's own files/include decide). */
  targets: string[];
  /** Findings outside this path are not shown (summary.scope "filtered"); undefined: all are shown. */
  viewWithin?: string;
  /** Says how the scope was chosen. */
  note?: string;
  /** Folders holding what is checked (the targets' folders, else the configured entries' bases). */
  sourceDirs: string[];
  /** Checking flags the project's CI passes the checker (ci-targets.ts). */
  flags?: string[];
}

/** The static part of a glob (`src/**\/*.py` → `src`), so that a path can be compared with it. */
export function staticBase(entry: string): string {
  return picomatch.scan(entry).base || ".";
}

/**
 * How to run a checker on `target` given the project's config: when the config lists what it checks
 * and `target` is the config's directory (or inside what it lists), the checker runs on that list from
 * the config's directory, as the project runs it, and a narrower target only filters the view.
 * Otherwise `target` is passed as given, from the config's directory (or the target's own).
 */
export function planCheck(target: string, config: CheckerConfig | undefined, key: string): CheckPlan {
  const ownDir = fs.statSync(target).isDirectory() ? target : path.dirname(target);
  const dirOf = (p: string) => (fs.statSync(p).isDirectory() ? p : path.dirname(p));
  if (!config) return { cwd: ownDir, targets: [target], sourceDirs: [ownDir] };
  const where = `${path.basename(config.file)} ${config.section}`.trim();
  const listed = config.targets?.map((t) => path.resolve(config.dir, staticBase(t)));
  if (!listed?.length) return { cwd: config.dir, targets: [target], sourceDirs: [dirOf(target)] };
  const shown = `${key} = ${JSON.stringify(config.targets)}`;
  if (target === config.dir)
    return {
      cwd: config.dir,
      targets: [],
      note: `checked as the project runs it: ${where} ${shown}`,
      sourceDirs: listed.filter((l) => fs.existsSync(l)).map(dirOf),
    };
  if (listed.some((l) => isWithin(l, target) || isWithin(target, l)))
    return {
      cwd: config.dir,
      targets: [],
      viewWithin: target,
      note: `checked as the project runs it (${where} ${shown}); only diagnostics in ${path.relative(config.dir, target)} are shown`,
      sourceDirs: listed.filter((l) => fs.existsSync(l)).map(dirOf),
    };
  return {
    cwd: config.dir,
    targets: [target],
    note: `${path.relative(config.dir, target)} is outside ${where} ${shown}: checked as given`,
    sourceDirs: [dirOf(target)],
  };
}
