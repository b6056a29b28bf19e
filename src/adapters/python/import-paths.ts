/**
 * The folders a Python project's configuration puts on its type checkers' import path: mypy's
 * `mypy_path`, pyright's `extraPaths` (also per execution environment), ty's `extra-paths`. A checker
 * reads the modules there as it reads the project's own, so they are part of a whole result's key
 * (whole-closure.ts); the environment's MYPYPATH and PYTHONPATH are read the same way.
 */
import os from "node:os";
import path from "node:path";
import { tomlTable } from "./checker-config.js";
import { iniSection } from "./ini.js";

/** The config files that can name such folders. */
export const IMPORT_PATH_CONFIGS =
  /^(?:pyproject\.toml|setup\.cfg|mypy\.ini|\.mypy\.ini|pyrightconfig\.json|ty\.toml)$/;

const strings = (v: unknown): string[] =>
  typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** pyright's `extraPaths`, at the top and in each `executionEnvironments` entry. */
function pyrightPaths(config: Record<string, unknown> | undefined): string[] {
  if (!config) return [];
  const envs = Array.isArray(config.executionEnvironments) ? (config.executionEnvironments as unknown[]) : [];
  return [
    ...strings(config.extraPaths),
    ...envs.flatMap((e) =>
      e && typeof e === "object" ? strings((e as Record<string, unknown>).extraPaths) : [],
    ),
  ];
}

/**
 * mypy's `mypy_path` as mypy reads it: split at commas and colons, `~` and `$VARS` expanded (with
 * $MYPY_CONFIG_FILE_DIR, the config's folder, which mypy sets while it reads the file).
 */
function mypyPaths(value: unknown, dir: string, env: NodeJS.ProcessEnv): string[] {
  const vars: Record<string, string | undefined> = { ...env, MYPY_CONFIG_FILE_DIR: dir };
  return strings(value)
    .flatMap((v) => v.split(/[,:]/))
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => p.replace(/^~(?=\/|$)/, os.homedir()))
    .map((p) => p.replace(/\$(\w+)|\$\{(\w+)\}/g, (m, a?: string, b?: string) => vars[a ?? b ?? ""] ?? m));
}

/** pyrightconfig.json, read as pyright does (comments and trailing commas allowed); undefined if unreadable. */
function jsonc(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text.replace(/^\s*\/\/.*$/gm, "").replace(/,(\s*[}\]])/g, "$1"));
    return v && typeof v === "object" ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The import-path folders a config file names (absolute; relative entries against the file's folder, where
 * the checkers run with it). `file` is the config's absolute path, `text` its content.
 */
export function configuredImportPaths(
  file: string,
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const dir = path.dirname(file);
  const name = path.basename(file);
  let found: string[];
  if (name === "pyproject.toml")
    found = [
      ...mypyPaths(tomlTable(text, "tool", "mypy")?.mypy_path, dir, env),
      ...pyrightPaths(tomlTable(text, "tool", "pyright")),
      ...strings(tomlTable(text, "tool", "ty", "environment")?.["extra-paths"]),
    ];
  else if (name === "ty.toml") found = strings(tomlTable(text, "environment")?.["extra-paths"]);
  else if (name === "pyrightconfig.json") found = pyrightPaths(jsonc(text));
  else found = mypyPaths(iniSection(text, "mypy")?.mypy_path, dir, env);
  return found.map((p) => path.resolve(dir, p));
}

/**
 * The files of the mypy plugins a config file names (its `plugins`): a `path.py` (relative to the config's
 * folder, as mypy takes it), and a module name as the file it is in the config's folder (`pkg.plug` →
 * `pkg/plug.py` and `pkg/plug/__init__.py`; one installed elsewhere is keyed by the site-packages names).
 * A `:function` suffix is dropped. The modules a plugin imports are not followed.
 */
export function configuredPluginFiles(file: string, text: string): string[] {
  const dir = path.dirname(file);
  const name = path.basename(file);
  const value =
    name === "pyproject.toml"
      ? tomlTable(text, "tool", "mypy")?.plugins
      : /^(?:setup\.cfg|mypy\.ini|\.mypy\.ini)$/.test(name)
        ? iniSection(text, "mypy")?.plugins
        : undefined;
  return strings(value)
    .flatMap((v) => v.split(","))
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (p.lastIndexOf(":") > p.lastIndexOf("/") ? p.slice(0, p.lastIndexOf(":")) : p))
    .flatMap((p) => {
      if (p.endsWith(".py")) return [path.resolve(dir, p)];
      if (!/^[\w.]+$/.test(p)) return [];
      const mod = path.join(dir, ...p.split("."));
      return [`${mod}.py`, path.join(mod, "__init__.py")];
    });
}

/** The folders of MYPYPATH and PYTHONPATH (relative ones against `cwd`, where the checker runs). */
export function envImportPaths(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [env.MYPYPATH, env.PYTHONPATH]
    .flatMap((v) => (v ? v.split(path.delimiter) : []))
    .filter(Boolean)
    .map((p) => path.resolve(cwd, p));
}
