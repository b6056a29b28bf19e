/**
 * The warm ESLint worker: keeps ESLint instances (configs and plugins loaded) between requests.
 * Files are re-read on every request, so edits always show. Nothing is written here: fixed text goes
 * back to the server, which writes inside its transaction.
 */
import { loadedModules, recordLoadedModules, recordingModules } from "./loaded-modules.js";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { reportLoadedFiles, serveWorker } from "../../../exec/worker-host.js";
import { WorkerHandlerError } from "../../../exec/worker-protocol.js";
import {
  lineStarts,
  toWireCorrections,
  toWireMessage,
  type EslintFixParams,
  type EslintMessage,
  type EslintRequestParams,
  type WireConfigInputs,
  type WireFileReport,
} from "../eslint-wire.js";
import { applyEdits, type TextEdit } from "../suggestions.js";
import { loadModule } from "./load-module.js";
import { inRuleScope } from "../../rule-scope.js";
import type { RuleScope } from "../../lint-options.js";

interface EslintResult {
  filePath: string;
  messages: EslintMessage[];
  errorCount: number;
  warningCount: number;
  fatalErrorCount?: number;
  output?: string;
  /** The linted text; ESLint omits it when there are no problems or when `output` is set. */
  source?: string;
}

interface EslintInstance {
  lintFiles(patterns: string[]): Promise<EslintResult[]>;
  lintText(code: string, options: { filePath: string }): Promise<EslintResult[]>;
  calculateConfigForFile(filePath: string): Promise<ResolvedConfig | undefined>;
  getRulesMetaForResults?(results: EslintResult[]): Record<string, RuleModule["meta"] | undefined>;
}

interface RuleModule {
  meta?: {
    type?: string;
    docs?: { description?: string; url?: string; recommended?: unknown };
    fixable?: string;
    hasSuggestions?: boolean;
    deprecated?: unknown;
    schema?: unknown;
    defaultOptions?: unknown[];
  };
}

interface ResolvedConfig {
  languageOptions?: { parserOptions?: Record<string, unknown> };
  rules?: Record<string, unknown>;
  plugins?: Record<string, { meta?: { name?: string }; rules?: Record<string, RuleModule> }>;
}

type EslintClass = new (options: Record<string, unknown>) => EslintInstance;

interface EslintModule {
  ESLint: EslintClass;
  loadESLint?: (options: { useFlatConfig: boolean }) => Promise<EslintClass>;
}

/** Passes of "apply suggestions, re-fix" before giving up on convergence. */
const MAX_SUGGESTION_PASSES = 5;

const instances = new Map<string, Promise<EslintInstance>>();
let defaultConfig: Promise<unknown[]> | undefined;

/** The bundled config for projects without an eslint.config.*: @eslint/js and typescript-eslint recommended. */
async function bundledDefaultConfig(): Promise<unknown[]> {
  const js = (await loadModule("@eslint/js")) as { configs: { recommended: unknown } };
  const tseslint = (await loadModule("typescript-eslint")) as { configs: { recommended: unknown[] } };
  const globals = (await loadModule("globals")) as Record<string, Record<string, unknown>>;
  return [
    { ignores: ["**/node_modules/", "**/dist/", "**/build/", "**/coverage/", "**/.mcp-cache/"] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    { languageOptions: { globals: { ...globals.browser, ...globals.node } } },
  ];
}

/** Files left out of a run and rules turned off in it: how a run goes on past a rule that crashed. */
interface Workaround {
  ignore?: string[];
  off?: string[];
}

/**
 * ESLint without its cache deletes the cache file at its cache location (default: `<cwd>/.eslintcache`,
 * the project's own, written by `eslint --cache`): a lint that only reads would remove a project file (in
 * the sandbox it fails instead, with EROFS). So the location is a name in this process's temp folder that
 * never exists: there is nothing to delete, and ESLint (8 to 10) takes the missing file as done.
 */
const NEVER_A_CACHE = path.join(
  os.tmpdir(),
  `mcq-eslint-no-cache-${process.pid}-${randomBytes(8).toString("hex")}`,
);

async function createInstance(
  params: EslintRequestParams,
  fix: boolean,
  around?: Workaround,
): Promise<EslintInstance> {
  const mod = (await loadModule(params.entry)) as EslintModule;
  const Eslint = mod.loadESLint ? await mod.loadESLint({ useFlatConfig: true }) : mod.ESLint;
  // only/except: ESLint applies the fixes its `fix` predicate accepts.
  const scope = (params as Partial<EslintFixParams>).fixRules;
  const fixOption = fix && scope ? (m: { ruleId: string | null }) => inRuleScope(m.ruleId ?? "", scope) : fix;
  const options: Record<string, unknown> = {
    cwd: params.cwd,
    fix: fixOption,
    errorOnUnmatchedPattern: true,
    cache: false,
    cacheLocation: NEVER_A_CACHE,
  };
  const extra = around?.off?.length ? [{ rules: Object.fromEntries(around.off.map((r) => [r, "off"])) }] : [];
  if (params.configFile) {
    // Before ESLint loads the config: the loader hook sees what is loaded after it is registered (a
    // project without a config loads only packages, and pays nothing for the hook's thread).
    recordLoadedModules();
    options.overrideConfigFile = params.configFile;
    if (extra.length) options.overrideConfig = extra;
  } else {
    defaultConfig ??= bundledDefaultConfig();
    options.overrideConfigFile = true; // look for no config file: the bundled default is the config
    options.overrideConfig = [...(await defaultConfig), ...extra];
  }
  if (around?.ignore?.length) options.ignorePatterns = around.ignore;
  return new Eslint(options);
}

/** A rule that threw while linting a file: ESLint names both in the error. */
function crashOf(err: unknown): { file: string; rule: string; message: string } | undefined {
  const e = err as { ruleId?: string; message?: string };
  const file = /\nOccurred while linting (.+?):\d+/.exec(e?.message ?? "")?.[1];
  if (!e?.ruleId || !file) return undefined;
  return { file, rule: e.ruleId, message: (e.message ?? "").split("\n")[0] ?? "" };
}

/** Crashes of rules at most this many times per request before the error is the request's. */
const MAX_CRASHES = 10;

/**
 * lintFiles that goes on when a rule crashes on a file: the file is left out of the run and linted on its
 * own with the crashing rule off (again for the next one), the crash listed in its `errors`.
 */
async function lintAround(
  params: EslintRequestParams,
  fix: boolean,
): Promise<{ results: EslintResult[]; errors: Map<string, string[]> }> {
  const errors = new Map<string, string[]>();
  const off = new Map<string, string[]>();
  const crashed = (err: unknown) => {
    const c = crashOf(err);
    if (!c || [...errors.values()].flat().length >= MAX_CRASHES) throw err;
    errors.set(c.file, [...(errors.get(c.file) ?? []), `rule ${c.rule} crashed: ${c.message}`]);
    off.set(c.file, [...(off.get(c.file) ?? []), c.rule]);
  };
  for (;;) {
    try {
      const ignore = [...off.keys()].map((f) => path.relative(params.cwd, f));
      const eslint = ignore.length
        ? await createInstance(params, fix, { ignore })
        : await instance(params, fix);
      let results: EslintResult[] = [];
      try {
        results = await lintFiles(eslint, params.patterns);
      } catch (err) {
        // Only the crashed files were asked for: the rest is nothing.
        if (!(ignore.length && err instanceof WorkerHandlerError)) throw err;
      }
      for (const [file, rules] of off) {
        const alone = await createInstance(params, fix, { off: rules });
        results.push(...(await alone.lintFiles([file])));
      }
      return { results, errors };
    } catch (err) {
      crashed(err);
    }
  }
}

/** Each reported rule's documentation page, as its `meta.docs.url` says (plugin rules too); none when unknown. */
async function docsUrls(params: EslintRequestParams, results: EslintResult[]): Promise<Map<string, string>> {
  try {
    const meta = (await instance(params, false)).getRulesMetaForResults?.(results) ?? {};
    return new Map(
      Object.entries(meta).flatMap(([id, m]) => (typeof m?.docs?.url === "string" ? [[id, m.docs.url]] : [])),
    );
  } catch {
    // A rule the config no longer has (a crashed rule turned off for a file): no URLs rather than no lint.
    return new Map();
  }
}

function instance(params: EslintRequestParams, fix: boolean): Promise<EslintInstance> {
  const scope = fix ? (params as Partial<EslintFixParams>).fixRules : undefined;
  const key = JSON.stringify([params.entry, params.cwd, params.configFile, fix, scope ?? null]);
  let found = instances.get(key);
  if (!found) {
    found = createInstance(params, fix);
    instances.set(key, found);
    // A failed load (bad config, missing plugin) is retried on the next request.
    found.catch(() => instances.delete(key));
  }
  return found;
}

const NO_FILES = new Set(["file-not-found", "all-files-ignored", "all-matched-files-ignored"]);

/** ESLint's "nothing matched" errors are the caller's mistake; everything else is the tool failing. */
async function lintFiles(eslint: EslintInstance, patterns: string[]): Promise<EslintResult[]> {
  try {
    return await eslint.lintFiles(patterns);
  } catch (err) {
    const template = (err as { messageTemplate?: string }).messageTemplate;
    if (template && NO_FILES.has(template))
      throw new WorkerHandlerError("invalid_input", (err as Error).message);
    throw err;
  }
}

function report(r: EslintResult, output?: string): WireFileReport {
  const out: WireFileReport = {
    file: r.filePath,
    messages: r.messages.map(toWireMessage),
    errorCount: r.errorCount,
    warningCount: r.warningCount,
    fatal: (r.fatalErrorCount ?? 0) > 0 || r.messages.some((m) => m.fatal),
  };
  if (output !== undefined) out.output = output;
  return out;
}

/** Adds the messages' fixes and suggestions as line/column edits (only files with any carry them). */
function withCorrections(r: EslintResult, out: WireFileReport): WireFileReport {
  if (!r.messages.some((m) => m.fix || m.suggestions?.length)) return out;
  const source = r.source ?? fs.readFileSync(r.filePath, "utf8");
  const starts = lineStarts(source);
  out.corrections = r.messages.map((m) => toWireCorrections(m, starts));
  return out;
}

/**
 * ESLint stops after 10 fix passes; fixes still offered then, by rules whose fixes were being applied (in
 * the only/except scope), mean rules that undo each other. Other rules' fixes were never asked for.
 */
function loopOf(messages: EslintMessage[], scope?: RuleScope): string | undefined {
  const rules = [
    ...new Set(
      messages.filter((m) => m.fix && inRuleScope(m.ruleId ?? "", scope)).map((m) => m.ruleId ?? "?"),
    ),
  ];
  return rules.length
    ? `fix loop: ${rules.join(", ")} still offer fixes after ESLint's fix passes`
    : undefined;
}

function firstSuggestions(
  messages: EslintMessage[],
  holdBack: readonly string[],
  scope?: RuleScope,
): TextEdit[] {
  return messages.flatMap((m) =>
    m.suggestions?.[0] && !holdBack.includes(m.ruleId ?? "") && inRuleScope(m.ruleId ?? "", scope)
      ? [m.suggestions[0].fix]
      : [],
  );
}

/** Applies suggestions (but those of held-back rules) and re-runs the fixes until nothing more changes. */
async function applySuggestionPasses(
  eslint: EslintInstance,
  result: EslintResult,
  holdBack: readonly string[],
  original?: string,
  scope?: RuleScope,
): Promise<EslintResult> {
  let current = result;
  let text = result.output ?? original ?? fs.readFileSync(result.filePath, "utf8");
  for (let pass = 0; pass < MAX_SUGGESTION_PASSES; pass++) {
    const edits = firstSuggestions(current.messages, holdBack, scope);
    if (edits.length === 0) break;
    const applied = applyEdits(text, edits);
    if (applied.applied === 0 || applied.text === text) break;
    const [next] = await eslint.lintText(applied.text, { filePath: result.filePath });
    if (!next) break;
    text = next.output ?? applied.text;
    current = { ...next, output: text };
  }
  return current;
}

/** ESLint's core rules (a Map), from the same ESLint the project's config loads. */
async function builtinRules(entry: string): Promise<Map<string, RuleModule>> {
  const req = createRequire(entry);
  const mod = (await import(pathToFileURL(req.resolve("eslint/use-at-your-own-risk")).href)) as {
    builtinRules?: Map<string, RuleModule>;
    default?: { builtinRules?: Map<string, RuleModule> };
  };
  return mod.builtinRules ?? mod.default?.builtinRules ?? new Map();
}

/** The package directory of `name` in a node_modules from `dir` up (links followed, as Node resolves). */
function packageDir(dir: string, name: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    if (d === path.dirname(d)) return undefined;
  }
}

/**
 * A rule's documentation page as its package ships it (`docs/rules/<rule>.md`, the convention of ESLint
 * plugins that ship their docs): the file and its text. The plugin is found by its `meta.name`.
 */
function ruleDocs(
  cwd: string,
  plugin: { meta?: { name?: string } } | undefined,
  rule: string,
): { file: string; text: string } | undefined {
  const name = plugin?.meta?.name;
  if (!name) return undefined;
  const dir = packageDir(cwd, name);
  if (!dir) return undefined;
  for (const ext of [".md", ".mdx"]) {
    const file = path.join(dir, "docs", "rules", `${rule}${ext}`);
    try {
      return { file, text: fs.readFileSync(file, "utf8").slice(0, 200_000) };
    } catch {
      // not shipped under that name
    }
  }
  return undefined;
}

/** A rule's meta and its resolved setting for the file; `undefined` meta: unknown rule. */
export interface WireRuleInfo {
  name: string;
  kind: "rule" | "category" | "unknown";
  meta?: RuleModule["meta"];
  /** As the config resolves for the file: [severity, ...options], or absent when not configured. */
  setting?: unknown;
  /** A category (a plugin prefix): its rules. */
  rules?: string[];
  /** Every known rule name, for an unknown one's suggestions. */
  known?: string[];
  /** The rule's docs page, when its package ships one. */
  docs?: { file: string; text: string };
}

/** Every rule the config resolved for `file` can run: ESLint's core rules and its plugins' rules. */
async function knownRules(
  params: EslintRequestParams & { file: string },
): Promise<{ config: ResolvedConfig; core: Map<string, RuleModule>; names: string[] }> {
  const eslint = await instance(params, false);
  const config = (await eslint.calculateConfigForFile(params.file)) ?? {};
  const core = await builtinRules(params.entry);
  const plugins = config.plugins ?? {};
  const names = [
    ...core.keys(),
    ...Object.keys(plugins)
      .filter((p) => p !== "@")
      .flatMap((p) => Object.keys(plugins[p]?.rules ?? {}).map((r) => `${p}/${r}`)),
  ];
  return { config, core, names };
}

/** This server's own compiled code (the worker, its helpers): never part of a project's config. */
const OWN_CODE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The modules loaded outside any node_modules and this server's code: project configs and their imports. */
async function configModules(): Promise<string[]> {
  if (!recordingModules()) return [];
  return (await loadedModules()).filter(
    (f) => !f.split(path.sep).includes("node_modules") && !f.startsWith(OWN_CODE + path.sep),
  );
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
async function configFilePatterns(params: EslintRequestParams): Promise<string[] | null> {
  let config: unknown;
  if (!params.configFile) config = await (defaultConfig ??= bundledDefaultConfig());
  else {
    if (!/\.[cm]?js$/.test(params.configFile)) return null;
    const url = pathToFileURL(params.configFile);
    url.searchParams.append("mtime", String(fs.statSync(params.configFile).mtime.getTime()));
    config = await ((await import(url.href)) as { default?: unknown }).default;
  }
  const out = new Set<string>();
  return collectFilePatterns(config, out) ? [...out] : null;
}

// A change of a module the config loaded ends the worker: ESLint reloads a changed config file, but Node
// keeps the modules it imported.
reportLoadedFiles(configModules);

serveWorker({
  /**
   * What the config of `params` reads, once ESLint has loaded it for these files: the modules this process
   * loaded (ES modules through the loader hook, CommonJS from the require cache) outside node_modules and
   * the server's own code, and its `files` patterns.
   */
  async configInputs(params: EslintRequestParams & { files: string[] }): Promise<WireConfigInputs> {
    const eslint = await instance(params, false);
    for (const file of params.files) await eslint.calculateConfigForFile(file);
    const modules = await configModules();
    const typescriptConfig = params.configFile !== null && /\.[cm]?ts$/.test(params.configFile);
    const incomplete = typescriptConfig
      ? "the ESLint config is TypeScript, which ESLint loads through jiti: the modules it imports cannot be listed"
      : params.configFile === null || recordingModules()
        ? undefined
        : "this Node.js has no module.register: the modules the ESLint config imports cannot be listed";
    return { modules, ...(incomplete && { incomplete }), patterns: await configFilePatterns(params) };
  },

  async rules(params: EslintRequestParams & { file: string }): Promise<string[]> {
    return (await knownRules(params)).names;
  },

  async explain(params: EslintRequestParams & { file: string; names: string[] }): Promise<WireRuleInfo[]> {
    const { config, core, names: known } = await knownRules(params);
    const plugins = config.plugins ?? {};
    const pluginRules = (prefix: string) =>
      Object.keys(plugins[prefix]?.rules ?? {}).map((r) => `${prefix}/${r}`);
    const all = () => known;
    return params.names.map((name): WireRuleInfo => {
      const plugin = name.replace(/\/$/, "");
      if (plugin !== "@" && plugins[plugin] && !core.has(name))
        return { name: plugin, kind: "category", rules: pluginRules(plugin) };
      const slash = name.lastIndexOf("/");
      const rule = slash > 0 ? plugins[name.slice(0, slash)]?.rules?.[name.slice(slash + 1)] : core.get(name);
      if (!rule) return { name, kind: "unknown", known: all() };
      const docs =
        slash > 0
          ? ruleDocs(params.cwd, plugins[name.slice(0, slash)], name.slice(slash + 1))
          : ruleDocs(params.cwd, { meta: { name: "eslint" } }, name);
      return {
        name,
        kind: "rule",
        meta: rule.meta ?? {},
        setting: config.rules?.[name],
        ...(docs && { docs }),
      };
    });
  },

  /** Inline code as if it were `file`: lint, or fix (the corrected text comes back as output). */
  async lintText(
    params: EslintFixParams & { file: string; code: string; fix: boolean },
  ): Promise<WireFileReport[]> {
    const eslint = await instance(params, params.fix);
    const [r] = await eslint.lintText(params.code, { filePath: params.file });
    if (!r) return [];
    if (!params.fix) return [withCorrections({ ...r, source: params.code }, report(r))];
    const final = params.unsafe
      ? await applySuggestionPasses(eslint, r, params.holdBack ?? [], params.code, params.fixRules)
      : r;
    const text = final.output ?? params.code;
    return [withCorrections({ ...final, source: text }, report(final, text))];
  },

  /**
   * Whether the config gives any of these files type information (typescript-eslint's `project`,
   * `projectService` or `programs`): its findings then depend on other files, so the result cache
   * does not keep them per file.
   */
  async typeAware(params: EslintRequestParams & { files: string[] }): Promise<boolean> {
    const eslint = await instance(params, false);
    for (const file of params.files) {
      const options = (await eslint.calculateConfigForFile(file))?.languageOptions?.parserOptions;
      if (options && (options.project || options.projectService || options.programs)) return true;
    }
    return false;
  },

  async lint(params: EslintRequestParams): Promise<WireFileReport[]> {
    const { results, errors } = await lintAround(params, false);
    const docs = await docsUrls(params, results);
    return results.map((r) => {
      const out = params.corrections ? withCorrections(r, report(r)) : report(r);
      for (const m of out.messages) {
        const url = m.rule_id ? docs.get(m.rule_id) : undefined;
        if (url) m.docs_url = url;
      }
      if (errors.has(r.filePath)) out.errors = errors.get(r.filePath);
      return out;
    });
  },

  async fix(params: EslintFixParams): Promise<WireFileReport[]> {
    const eslint = await instance(params, true);
    const { results, errors } = await lintAround(params, true);
    const out: WireFileReport[] = [];
    for (const r of results) {
      const final = params.unsafe
        ? await applySuggestionPasses(eslint, r, params.holdBack ?? [], undefined, params.fixRules)
        : r;
      const original = final.output !== undefined ? fs.readFileSync(r.filePath, "utf8") : undefined;
      const loop = final.output !== undefined ? loopOf(final.messages, params.fixRules) : undefined;
      let file: WireFileReport;
      if (loop) {
        // Fixes that go back and forth: the file is left as it was, with the offenses it has.
        const [again] = await (
          await instance(params, false)
        ).lintText(original ?? "", { filePath: r.filePath });
        file = report(again ?? r);
        file.errors = [loop];
      } else {
        // What is left, with the corrections ESLint still offers, located in the fixed text.
        const text = final.output ?? fs.readFileSync(r.filePath, "utf8");
        file = withCorrections(
          { ...final, source: text },
          report(final, final.output !== original ? final.output : undefined),
        );
      }
      if (errors.has(r.filePath)) file.errors = [...(file.errors ?? []), ...(errors.get(r.filePath) ?? [])];
      out.push(file);
    }
    return out;
  },
});
