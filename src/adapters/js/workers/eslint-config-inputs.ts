/**
 * What an ESLint config reads, as the ESLint worker can tell: the modules this process loaded besides the
 * server's own code and its bundled packages (project configs and their imports, and the plugins and shared
 * configs they load from node_modules), and the config's `files` patterns.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { EslintRequestParams } from "../eslint-wire.js";
import { defaultEslintConfig } from "./eslint-instances.js";
import { loadedModules, recordingModules } from "./loaded-modules.js";

/** This server's own compiled code (the worker, its helpers): never part of a project's config. */
const OWN_CODE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** A folder and its real location (node loads a module by its real path), each ending in a separator. */
function prefixesOf(dir: string): string[] {
  let real = dir;
  try {
    real = fs.realpathSync.native(dir);
  } catch {
    // not there
  }
  return [...new Set([dir, real])].map((d) => d + path.sep);
}

/**
 * The server's compiled code and the packages it ships (the bundled ESLint and its dependencies): keyed by
 * the server's build, never a project's input.
 */
const OWN = [...prefixesOf(OWN_CODE), ...prefixesOf(path.join(path.dirname(OWN_CODE), "node_modules"))];

/**
 * The modules this process loaded besides the server's own: project configs, what they import, and the
 * plugins and shared configs loaded from node_modules (each file: an edit or upgrade of a plugin's rule
 * kept the cached verdict, and the warm worker the old rule, while only modules outside node_modules were
 * named).
 */
export async function configModules(): Promise<string[]> {
  if (!recordingModules()) return [];
  return (await loadedModules()).filter((f) => !OWN.some((p) => f.startsWith(p)));
}

/** The `files` patterns of a config's objects (nested arrays too); false where one is not a string. */
function collectFilePatterns(config: unknown, out: Set<string>, depth = 0): boolean {
  if (depth > 64) return false;
  if (Array.isArray(config)) return config.every((c) => collectFilePatterns(c, out, depth + 1));
  if (!config || typeof config !== "object") return true;
  const files = (config as { files?: unknown }).files;
  if (files === undefined) return true;
  if (!Array.isArray(files)) return false;
  for (const f of files.flat()) {
    if (typeof f !== "string") return false;
    out.add(f);
  }
  return true;
}

/**
 * The `files` patterns of the config ESLint loaded: the module ESLint imported (the same URL, with its
 * `mtime` query, so Node's module cache hands back the same module) or the bundled default. Null when
 * they cannot be known (a TypeScript config, loaded through jiti; a pattern that is a function).
 */
export async function configFilePatterns(params: EslintRequestParams): Promise<string[] | null> {
  let config: unknown;
  if (!params.configFile) config = await defaultEslintConfig();
  else {
    if (!/\.[cm]?js$/.test(params.configFile)) return null;
    const url = pathToFileURL(params.configFile);
    url.searchParams.append("mtime", String(fs.statSync(params.configFile).mtime.getTime()));
    config = await ((await import(url.href)) as { default?: unknown }).default;
  }
  const out = new Set<string>();
  return collectFilePatterns(config, out) ? [...out] : null;
}
