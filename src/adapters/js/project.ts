/**
 * Finding a JavaScript project's root, config files and its own copy of a tool (eslint, typescript,
 * prettier), without looking above the allowed root. The bundled copy is the fallback.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";

export const ESLINT_CONFIG_NAMES = [
  "eslint.config.js",
  "eslint.config.mjs",
  "eslint.config.cjs",
  "eslint.config.ts",
  "eslint.config.mts",
  "eslint.config.cts",
];

/** Directories from `start` up to and including `stopAt` (start must lie inside stopAt). */
export function ancestorsWithin(start: string, stopAt: string): string[] {
  const out: string[] = [];
  let dir = start;
  for (;;) {
    out.push(dir);
    if (dir === stopAt || !isWithin(stopAt, dir)) break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return out;
}

/**
 * Returns a config file found inside `stopAt`, or throws path_validation when it is a symlink whose real
 * location is outside: the tools would read (or, for a JS config, run) it from there.
 */
export function foundInside(candidate: string, stopAt: string): string {
  if (!isWithin(stopAt, fs.realpathSync.native(candidate)))
    throw new ToolError("path_validation", `${candidate} is a link to a file outside the allowed paths`, {
      allowed_paths: [stopAt],
    });
  return candidate;
}

/** The first of `names` found in `start` or an ancestor up to `stopAt`, as an absolute path. */
export function findUp(names: readonly string[], start: string, stopAt: string): string | undefined {
  for (const dir of ancestorsWithin(start, stopAt))
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (fs.existsSync(candidate)) return foundInside(candidate, stopAt);
    }
  return undefined;
}

/** The directory a target denotes: itself when a directory, else its parent. */
export function directoryOf(target: string): string {
  try {
    return fs.statSync(target).isDirectory() ? target : path.dirname(target);
  } catch {
    return path.dirname(target);
  }
}

/** The nearest directory with a package.json from `start` up to `stopAt`, else `start`. */
export function packageRoot(start: string, stopAt: string): string {
  const pkg = findUp(["package.json"], start, stopAt);
  return pkg ? path.dirname(pkg) : start;
}

export interface ToolModule {
  name: string;
  version: string;
  /** Absolute path of the module's entry file (what the worker imports); undefined when it has no "main". */
  entry: string | undefined;
  /** The package directory. */
  dir: string;
  source: "project" | "bundled";
}

function readVersion(pkgJson: string): string {
  try {
    return String(
      (JSON.parse(fs.readFileSync(pkgJson, "utf8")) as { version?: unknown }).version ?? "unknown",
    );
  } catch {
    return "unknown";
  }
}

/** The project's own copy of a package: node_modules/<name> in `start` or an ancestor up to `stopAt`. */
export function projectPackage(name: string, start: string, stopAt: string): ToolModule | undefined {
  for (const dir of ancestorsWithin(start, stopAt)) {
    const pkgDir = path.join(dir, "node_modules", name);
    const pkgJson = path.join(pkgDir, "package.json");
    if (!fs.existsSync(pkgJson)) continue;
    let entry: string | undefined;
    try {
      // A directory path resolves through the package's "main".
      entry = createRequire(pkgJson).resolve(pkgDir);
    } catch {
      entry = undefined; // e.g. TypeScript 7, which has no JS API
    }
    return { name, version: readVersion(pkgJson), entry, dir: fs.realpathSync(pkgDir), source: "project" };
  }
  return undefined;
}

const bundledRequire = createRequire(import.meta.url);

/** The copy shipped with this server (a dependency in its package.json). */
export function bundledPackage(name: string): ToolModule {
  const pkgJson = bundledRequire.resolve(`${name}/package.json`);
  const dir = path.dirname(pkgJson);
  return { name, version: readVersion(pkgJson), entry: bundledRequire.resolve(name), dir, source: "bundled" };
}

/** The project's copy when it has one that can be loaded, else the bundled one. */
export function resolveTool(name: string, start: string, stopAt: string): ToolModule {
  const own = projectPackage(name, start, stopAt);
  return own?.entry ? own : bundledPackage(name);
}

/** The entry file a worker imports; a module without one (TypeScript 7) cannot run in a worker. */
export function loadableEntry(mod: ToolModule): string {
  if (!mod.entry) throw new Error(`${mod.name} ${mod.version} at ${mod.dir} has no JavaScript entry to load`);
  return mod.entry;
}

/** The notes line that says which copy of a tool ran. */
export function toolNote(mod: ToolModule): string {
  return mod.source === "project"
    ? `${mod.name} ${mod.version} from the project (${mod.dir})`
    : `${mod.name} ${mod.version} bundled with mcp-code-quality (the project has none in node_modules)`;
}

export function majorVersion(version: string): number {
  return Number.parseInt(version, 10);
}
