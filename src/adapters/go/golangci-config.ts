/**
 * Reading a golangci-lint config (YAML, TOML or JSON, keys in any case, as golangci-lint takes them): the Go
 * plugins it loads, and the files its settings name that golangci-lint reads besides the config (the result
 * cache keys them: closure.ts). What the server cannot read with certainty (another of viper's formats, a
 * parse error, keys that clash by case) is said (`uncertain`): its result is not cached, and golangci-lint's
 * runs are contained as the project's code whatever its config says (tool-facts.ts).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import type { Closure, ClosureDir } from "../../cache/closure.js";
import { yaml } from "../../yaml-lazy.js";

/** What a config says, as golangci-lint reads it, and whether the server read it with certainty. */
export interface GolangciRead {
  /** Keys lower-cased at every level (viper ignores key case: `Linters:` is `linters:`). */
  doc: unknown;
  /** Why the server cannot be sure it read what golangci-lint reads; undefined when it is. */
  uncertain?: string;
}

/** The formats the server reads as golangci-lint does (viper picks the codec by the file's extension). */
const READ_FORMATS = new Set(["json", "toml", "yaml", "yml"]);

/** The last config read, by its name and text: a run reads it for its plugins and for the files it names. */
let lastRead: { file: string; text: string; read: GolangciRead } | undefined;

/**
 * The config as golangci-lint reads it: parsed by its extension (YAML with its merge keys, as yaml.v3
 * resolves them), every key lower-cased (viper's, so `Linters: {Settings: {Custom: ...}}` loads plugins:
 * a red team's config did). Uncertain: a format the server does not parse (viper also reads `.properties`,
 * `.env`, `.hcl`, `.ini`... and a `.golangci.properties` loads plugins), a config that does not parse, or
 * two keys of one mapping that differ only in case (viper keeps one of them, in Go's map order); their
 * values are merged, so that a plugin under either is seen. Read only (the same object is handed to every
 * caller that reads the same text: a YAML config's parse is ~8 ms, twice before each golangci-lint run).
 */
export function readGolangciConfig(text: string, file: string): GolangciRead {
  if (lastRead?.file === file && lastRead.text === text) return lastRead.read;
  const ext = path.extname(file).slice(1);
  let read: GolangciRead;
  if (!READ_FORMATS.has(ext)) read = { doc: undefined, uncertain: `a .${ext || "(none)"} config` };
  else {
    try {
      const parsed =
        ext === "json"
          ? (JSON.parse(text) as unknown)
          : ext === "toml"
            ? parseToml(text)
            : (yaml().parse(text, { merge: true }) as unknown);
      const clash: string[] = [];
      const doc = lowerKeys(parsed, "", clash);
      read = clash.length ? { doc, uncertain: `keys that differ only in case (${clash[0]})` } : { doc };
    } catch {
      read = { doc: undefined, uncertain: "a config the server cannot parse" };
    }
  }
  lastRead = { file, text, read };
  return read;
}

/** The parsed config with its keys lower-cased, or undefined when it does not parse (readGolangciConfig). */
export function parseGolangciConfig(text: string, file: string): unknown {
  return readGolangciConfig(text, file).doc;
}

/** `value` with every mapping's keys lower-cased; keys that clash are merged, and listed in `clash`. */
function lowerKeys(value: unknown, at: string, clash: string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => lowerKeys(v, at, clash));
  if (!value || typeof value !== "object" || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const lower = key.toLowerCase();
    const low = lowerKeys(v, `${at}${lower}.`, clash);
    if (Object.hasOwn(out, lower)) {
      clash.push(`${at}${lower}`);
      out[lower] = merged(out[lower], low);
    } else out[lower] = low;
  }
  return out;
}

function merged(a: unknown, b: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> =>
    !!v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
  if (!isMap(a) || !isMap(b)) return b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = Object.hasOwn(out, k) ? merged(out[k], v) : v;
  return out;
}

const at = (o: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>(
    (v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined),
    o,
  );

/**
 * The Go plugins a golangci-lint config loads (`linters.settings.custom.<name>`, v1's
 * `linters-settings.custom`, of type `goplugin` or none: a `.so` golangci-lint opens, whose constructors run
 * as it opens it), by name, keys in any case. Module plugins (any other type) need a binary of their own
 * (`golangci-lint custom`, `.custom-gcl.yml`), which the server never builds: this one does not load them.
 */
export function goPluginsOf(text: string, file: string): string[] {
  const doc = parseGolangciConfig(text, file);
  const names: string[] = [];
  for (const custom of [at(doc, "linters", "settings", "custom"), at(doc, "linters-settings", "custom")]) {
    if (!custom || typeof custom !== "object") continue;
    for (const [name, v] of Object.entries(custom as Record<string, unknown>)) {
      const type = at(v, "type");
      // golangci-lint's test is `type == "goplugin" || type == ""`; anything not a string is taken for one.
      if (typeof type !== "string" || type === "" || type === "goplugin") names.push(name);
    }
  }
  return [...new Set(names)];
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
  const { doc, uncertain } = readGolangciConfig(text, config);
  // What an unread config names is not known: its result is not kept.
  if (uncertain) return { files, watch: [config], uncached: `golangci-lint's config is ${uncertain}` };
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
