/**
 * Reading a golangci-lint config (YAML, TOML or JSON, as golangci-lint takes them): the Go plugins it loads,
 * and the files its settings name that golangci-lint reads besides the config (the result cache keys them:
 * closure.ts). A config that does not parse names nothing (golangci-lint refuses it itself).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import type { Closure, ClosureDir } from "../../cache/closure.js";
import { yaml } from "../../yaml-lazy.js";

/** The last config parsed, by its name and text: a run reads it for its plugins and for the files it names. */
let lastParsed: { file: string; text: string; doc: unknown } | undefined;

/**
 * The parsed config, or undefined when it does not parse. Read only (the same object is handed to every
 * caller that parses the same text: a YAML config's parse is ~8 ms, twice before each golangci-lint run).
 */
export function parseGolangciConfig(text: string, file: string): unknown {
  if (lastParsed?.file === file && lastParsed.text === text) return lastParsed.doc;
  let doc: unknown;
  try {
    doc = file.endsWith(".json")
      ? JSON.parse(text)
      : file.endsWith(".toml")
        ? parseToml(text)
        : (yaml().parse(text) as unknown);
  } catch {
    doc = undefined;
  }
  lastParsed = { file, text, doc };
  return doc;
}

const at = (o: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>(
    (v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined),
    o,
  );

/**
 * The Go plugins a golangci-lint config loads (`linters.settings.custom.<name>` of type `goplugin`, the
 * default: a `.so` golangci-lint opens and runs), by name; module plugins need a binary of their own and
 * are not loaded by this one.
 */
export function goPluginsOf(text: string, file: string): string[] {
  const custom = at(parseGolangciConfig(text, file), "linters", "settings", "custom");
  if (!custom || typeof custom !== "object") return [];
  return Object.entries(custom as Record<string, unknown>)
    .filter(([, v]) => at(v, "type") !== "module")
    .map(([name]) => name);
}

/**
 * A path a setting names, as golangci-lint opens it: `${config-path}` and `${base-path}` (the config's
 * folder, where v2's default relative-path-mode puts the base) expanded, a relative path taken from the
 * folder golangci-lint runs in (`cwd`: measured with 2.15.0, goheader's `template-path: hdr.txt` beside a
 * config one folder up is "no such file").
 */
function settingPath(value: string, config: string, cwd: string): string {
  const expanded = value.replace(/\$\{(?:config-path|base-path)\}/g, path.dirname(config));
  return path.resolve(cwd, expanded);
}

const GLOB = /[*?[]/;

/** A file-name glob (`*.go`, `rules?.go`) as a RegExp source on whole names. */
function globSource(glob: string): string {
  const body = glob
    .split("")
    .map((c) => (c === "*" ? "[^/]*" : c === "?" ? "[^/]" : /[\\^$.|+(){}[\]]/.test(c) ? `\\${c}` : c))
    .join("");
  return `^${body}$`;
}

/**
 * The files a config names (golangci-config's closure without the config itself): golangci-lint's own
 * analysis cache keys a package's result by its sources and settings, not by these files' content
 * (measured with 2.15.0: a goheader template edited, the cached "missed header" stays), so a run whose
 * config names files uses a cache folder of their content's own (golangci-lint.ts).
 */
export function namedFilesKey(config: string, cwd: string): string | undefined {
  const closure = golangciConfigClosure(config, cwd);
  const named = closure.files.filter((f) => f !== config);
  if (!named.length && !closure.dirs?.length) return undefined;
  const hash = createHash("sha256");
  for (const f of named) hash.update(`${f}\0${contentOf(f)}\0`);
  for (const d of closure.dirs ?? []) {
    const names = new RegExp(d.names);
    let entries: string[] = [];
    try {
      entries = fs
        .readdirSync(d.dir)
        .filter((n) => names.test(n))
        .sort();
    } catch {
      // No folder: nothing of it.
    }
    for (const n of entries) hash.update(`${path.join(d.dir, n)}\0${contentOf(path.join(d.dir, n))}\0`);
  }
  return hash.digest("hex").slice(0, 16);
}

function contentOf(file: string): string {
  try {
    return fs.readFileSync(file, "latin1");
  } catch {
    return "";
  }
}

/**
 * What golangci-lint reads because of its config `config` (run in `cwd`): the config itself; goheader's
 * `template-path`; gocritic's ruleguard `rules` (a comma-separated list of files or globs: a glob is its
 * folder's matching files). Resolving is a parse of the config, remembered by its content (closure.ts).
 */
export function golangciConfigClosure(config: string, cwd: string): Closure {
  const files = [config];
  const dirs: ClosureDir[] = [];
  let text: string;
  try {
    text = fs.readFileSync(config, "utf8");
  } catch {
    return { files, watch: [config] };
  }
  const doc = parseGolangciConfig(text, config);
  const settings = (...keys: string[]) => at(doc, "linters", "settings", ...keys);
  const template = settings("goheader", "template-path");
  if (typeof template === "string" && template) files.push(settingPath(template, config, cwd));
  const rules = settings("gocritic", "settings", "ruleguard", "rules");
  if (typeof rules === "string")
    for (const entry of rules
      .split(",")
      .map((r) => r.trim())
      .filter(Boolean)) {
      const file = settingPath(entry, config, cwd);
      if (!GLOB.test(file)) files.push(file);
      else if (!GLOB.test(path.dirname(file)))
        dirs.push({ dir: path.dirname(file), names: globSource(path.basename(file)) });
      else return { files, uncached: `golangci-lint's ruleguard rules ${entry} is a glob over folders` };
    }
  return { files, dirs, watch: [config] };
}

/**
 * The formatters a golangci-lint v2 config enables (`version: "2"`, `formatters.enable`: gofumpt, goimports,
 * gci, golines, gofmt), which `golangci-lint fmt` runs with its `formatters.settings` and
 * `formatters.exclusions`; empty for a v1 config (no `formatters` section), one that enables none, or one
 * that does not parse or cannot be read.
 */
export function golangciFormatters(config: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(config, "utf8");
  } catch {
    return [];
  }
  const doc = parseGolangciConfig(text, config);
  if (String(at(doc, "version")) !== "2") return [];
  const enable = at(doc, "formatters", "enable");
  return Array.isArray(enable) ? enable.filter((n): n is string => typeof n === "string" && n !== "") : [];
}
