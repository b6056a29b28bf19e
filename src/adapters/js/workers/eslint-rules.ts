/**
 * The ESLint worker's rule catalogue: every rule a file's config can run (ESLint's core rules and its
 * plugins'), and a rule's docs page as its package ships it.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { EslintRequestParams } from "../eslint-wire.js";
import { instance, type ResolvedConfig, type RuleModule } from "./eslint-instances.js";

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
export function ruleDocs(
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
export async function knownRules(
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
