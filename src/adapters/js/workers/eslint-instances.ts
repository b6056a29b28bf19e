/**
 * The ESLint worker's ESLint instances: the shapes it uses of ESLint's API, the bundled default config for
 * projects without one, and one instance per (ESLint, project, config, fix scope), kept between requests
 * with its config and plugins loaded.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { EslintFixParams, EslintMessage, EslintRequestParams } from "../eslint-wire.js";
import { inRuleScope } from "../../rule-scope.js";
import { loadModule } from "./load-module.js";
import { recordLoadedModules } from "./loaded-modules.js";

export interface EslintResult {
  filePath: string;
  messages: EslintMessage[];
  errorCount: number;
  warningCount: number;
  fatalErrorCount?: number;
  output?: string;
  /** The linted text; ESLint omits it when there are no problems or when `output` is set. */
  source?: string;
}

export interface EslintInstance {
  lintFiles(patterns: string[]): Promise<EslintResult[]>;
  lintText(code: string, options: { filePath: string }): Promise<EslintResult[]>;
  calculateConfigForFile(filePath: string): Promise<ResolvedConfig | undefined>;
  getRulesMetaForResults?(results: EslintResult[]): Record<string, RuleModule["meta"] | undefined>;
}

export interface RuleModule {
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

export interface ResolvedConfig {
  languageOptions?: { parserOptions?: Record<string, unknown> };
  rules?: Record<string, unknown>;
  plugins?: Record<string, { meta?: { name?: string }; rules?: Record<string, RuleModule> }>;
}

type EslintClass = new (options: Record<string, unknown>) => EslintInstance;

interface EslintModule {
  ESLint: EslintClass;
  loadESLint?: (options: { useFlatConfig: boolean }) => Promise<EslintClass>;
}

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
export interface Workaround {
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

/** A .gitignore the bundled default config follows at most, in bytes (a larger one is not a gitignore). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** The text of the project's own .gitignore (a file, not a link), or "" when it has none. */
export function projectGitignore(cwd: string): string {
  const file = path.join(cwd, ".gitignore");
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  return st?.isFile() && st.size < MAX_GITIGNORE_BYTES ? fs.readFileSync(file, "utf8") : "";
}

/**
 * The bundled default config's ignores from the project's .gitignore, as @eslint/compat converts its
 * patterns: a project without an ESLint config gets what git, ruff and Prettier leave out (sindresorhus/ky's
 * build output `distribution/`, 60 files and 30 findings of its 140). A project's own config decides for itself.
 */
async function gitignoreConfig(text: string): Promise<unknown[]> {
  const patterns = text
    .split(/\r?\n/)
    .map((l) => l.replace(/(?<!\\)\s+$/, ""))
    .filter((l) => l !== "" && !l.startsWith("#"));
  if (patterns.length === 0) return [];
  const compat = (await loadModule("@eslint/compat")) as {
    convertIgnorePatternToMinimatch(pattern: string): string;
  };
  return [
    {
      name: "the project's .gitignore",
      ignores: patterns.map((p) => compat.convertIgnorePatternToMinimatch(p)),
    },
  ];
}

/** The bundled default config, loaded once. */
export function defaultEslintConfig(): Promise<unknown[]> {
  return (defaultConfig ??= bundledDefaultConfig());
}

export async function createInstance(
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
    options.overrideConfigFile = true; // look for no config file: the bundled default is the config
    options.overrideConfig = [
      ...(await defaultEslintConfig()),
      ...(await gitignoreConfig(projectGitignore(params.cwd))),
      // The project's disable comments were written for its own config: a fix must not delete those this
      // one finds unused (a lint reports them, and the adapter leaves them out, counted).
      ...(fix ? [{ linterOptions: { reportUnusedDisableDirectives: "off" } }] : []),
      ...extra,
    ];
  }
  const ignore = [...(params.ignore ?? []), ...(around?.ignore ?? [])];
  if (ignore.length) options.ignorePatterns = ignore;
  return new Eslint(options);
}

export function instance(params: EslintRequestParams, fix: boolean): Promise<EslintInstance> {
  const scope = fix ? (params as Partial<EslintFixParams>).fixRules : undefined;
  // Without a config, the .gitignore is part of it: an edited one makes another instance.
  const gitignore = params.configFile ? "" : projectGitignore(params.cwd);
  const key = JSON.stringify([
    params.entry,
    params.cwd,
    params.configFile,
    fix,
    scope ?? null,
    gitignore,
    params.ignore ?? [],
  ]);
  let found = instances.get(key);
  if (!found) {
    found = createInstance(params, fix);
    instances.set(key, found);
    // A failed load (bad config, missing plugin) is retried on the next request.
    found.catch(() => instances.delete(key));
  }
  return found;
}
