/**
 * explain_rules for ruff, from ruff's own metadata: `ruff rule --all` (description, examples, fix
 * availability), `ruff linter` (the categories), and `ruff check --show-settings FILE` for how a rule
 * resolves for a path (enabled, fixable, its plugin's options, the settings file).
 */
import fs from "node:fs";
import { ToolError } from "../../errors.js";
import { combinedOutput } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { matchesRule } from "../rule-scope.js";
import {
  codeBlockAfter,
  registerRuleExplainer,
  unknownRule,
  type Autocorrect,
  type RuleExplanation,
} from "../rule-explainers.js";
import { resolvePythonTool } from "./resolve.js";
import { ruffScope } from "./ruff-fix.js";
import { RUFF_CONTEXTUAL_RULES } from "./ruff-stdin.js";

/** One entry of `ruff rule --all --output-format json` (the fields read). */
export interface RuffRuleInfo {
  name: string;
  code: string;
  linter: string;
  summary: string;
  fix_availability?: string;
  explanation: string;
  preview?: boolean;
}

export interface RuffLinterInfo {
  prefix: string;
  name: string;
  categories?: { prefix: string; name: string }[];
}

interface RuffMetadata {
  rules: RuffRuleInfo[];
  linters: RuffLinterInfo[];
}

/** The metadata of one ruff executable, read once per server. */
const metadata = new Map<string, Promise<RuffMetadata>>();

async function runJson<T>(ctx: ToolContext, executable: string, args: string[]): Promise<T> {
  const chunks: Buffer[] = [];
  const r = await ctx.run({ program: executable, args, onStdoutData: (c) => void chunks.push(c) });
  if (r.returncode !== 0)
    throw new ToolError("tool_error", `ruff ${args.join(" ")} failed (exit ${r.returncode})`, {
      output: combinedOutput(r.stdout, r.stderr),
    });
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as T;
}

function loadMetadata(ctx: ToolContext, executable: string): Promise<RuffMetadata> {
  let m = metadata.get(executable);
  if (!m) {
    m = (async () => ({
      rules: await runJson<RuffRuleInfo[]>(ctx, executable, ["rule", "--all", "--output-format", "json"]),
      linters: await runJson<RuffLinterInfo[]>(ctx, executable, ["linter", "--output-format", "json"]),
    }))();
    m.catch(() => metadata.delete(executable));
    metadata.set(executable, m);
  }
  return m;
}

/** The settings ruff resolves for one file (`--show-settings`), the parts an explanation shows. */
export interface ResolvedRuffSettings {
  file: string;
  settingsFile?: string;
  enabled: Set<string>;
  fixable: Set<string>;
  unsafeFixes?: string;
  /** `linter.<plugin>.<option> = value` lines, by plugin. */
  options: Map<string, Record<string, string>>;
}

/** Parses `ruff check --show-settings` output (its text format, stable across 0.1x releases). */
export function parseShowSettings(text: string): ResolvedRuffSettings {
  const file = /^Resolved settings for: "(.*)"$/m.exec(text)?.[1] ?? "";
  const settingsFile = /^Settings path: "(.*)"$/m.exec(text)?.[1];
  const list = (key: string) => {
    const m = new RegExp(`^${key.replace(/\./g, "\\.")} = \\[\\n([\\s\\S]*?)^\\]`, "m").exec(text);
    return new Set([...(m?.[1] ?? "").matchAll(/\(([A-Z]+[0-9]+)\)/g)].map((x) => x[1] as string));
  };
  const options = new Map<string, Record<string, string>>();
  for (const m of text.matchAll(/^linter\.([a-z0-9_]+)\.([a-z0-9_]+) = (.*)$/gm)) {
    const [, plugin, option, value] = m as unknown as [string, string, string, string];
    if (plugin === "rules") continue;
    options.set(plugin, { ...(options.get(plugin) ?? {}), [option]: value });
  }
  return {
    file,
    settingsFile,
    enabled: list("linter.rules.enabled"),
    fixable: list("linter.rules.should_fix"),
    unsafeFixes: /^unsafe_fixes = (.*)$/m.exec(text)?.[1],
    options,
  };
}

/** How safely ruff corrects a rule: from its fix availability and its docs' "Fix safety" section. */
export function ruffAutocorrect(rule: RuffRuleInfo): Autocorrect {
  if (!rule.fix_availability || rule.fix_availability === "None") return "none";
  if (RUFF_CONTEXTUAL_RULES.includes(rule.code)) return "contextual";
  const safety = /## Fix safety\s*\n([\s\S]*?)(?:\n## |$)/.exec(rule.explanation)?.[1] ?? "";
  return /marked as unsafe|fix is unsafe|unsafe fix/i.test(safety) ? "unsafe" : "safe";
}

/** The plugin options key of a ruff linter name (`flake8-bugbear` → `flake8_bugbear`). */
const pluginKey = (linter: string) => linter.toLowerCase().replace(/[-\s]/g, "_");

function ruleItem(rule: RuffRuleInfo, settings: ResolvedRuffSettings | undefined): RuleExplanation {
  const description = rule.explanation.split(/\n## Example/)[0]?.trim();
  const item: RuleExplanation = {
    name: rule.code,
    linter: "ruff",
    kind: "rule",
    summary: `${rule.name} (${rule.linter})${rule.preview ? ", preview" : ""}: ${rule.summary}`,
    description: description && description.length > 2000 ? `${description.slice(0, 2000)}…` : description,
    bad_example: codeBlockAfter(rule.explanation, /^## Example\s*$/m),
    good_example: codeBlockAfter(rule.explanation, /^Use instead:?\s*$/m),
    autocorrect: ruffAutocorrect(rule),
    docs_url: `https://docs.astral.sh/ruff/rules/${rule.name}/`,
  };
  if (settings)
    item.configuration = {
      for_file: settings.file,
      settings_file: settings.settingsFile ?? null,
      enabled: settings.enabled.has(rule.code),
      fixable: settings.fixable.has(rule.code),
      unsafe_fixes: settings.unsafeFixes,
      options: settings.options.get(pluginKey(rule.linter)) ?? {},
    };
  return item;
}

/** The file whose settings stand for `target`: itself, or the first Python file ruff would check there. */
function settingsFileFor(ctx: ToolContext, target: string): string | undefined {
  if (fs.statSync(target, { throwIfNoEntry: false })?.isFile()) return target;
  if (!fs.existsSync(target)) return undefined;
  return ruffScope(ctx, { target })[0];
}

async function showSettings(
  ctx: ToolContext,
  executable: string,
  file: string,
): Promise<ResolvedRuffSettings | undefined> {
  const lines: string[] = [];
  const r = await ctx.run({
    program: executable,
    args: ["check", "--no-cache", "--show-settings", "--", file],
    onStdoutLine: (l) => void lines.push(l),
  });
  return r.returncode === 0 ? parseShowSettings(lines.join("\n")) : undefined;
}

export async function explainRuffRules(ctx: ToolContext, names: string[], target: string) {
  const cli = resolvePythonTool(ctx, "ruff", target);
  if (!cli.executable)
    throw new ToolError(
      "tool_not_found",
      "explain_rules for ruff reads `ruff rule`, which the embedded build lacks: install the ruff CLI",
    );
  const meta = await loadMetadata(ctx, cli.executable);
  // Rules still without a code (ruff's newest preview rules) cannot be selected by one: left out.
  const rules = meta.rules.filter((r) => typeof r.code === "string" && r.code);
  const linters = meta.linters;
  const notes: string[] = [];
  const file = settingsFileFor(ctx, target);
  const settings = file ? await showSettings(ctx, cli.executable, file) : undefined;
  if (!settings)
    notes.push(`no Python file under ${target} to resolve ruff's settings for: configuration left out`);
  const byCode = new Map(rules.map((r) => [r.code.toUpperCase(), r]));
  const byName = new Map(rules.map((r) => [r.name, r]));
  // A linter is a category (F: Pyflakes), and so are its own (PLC: Pylint Convention); pycodestyle has no
  // prefix of its own, only E and W.
  const categories = linters.flatMap((l) => [
    {
      prefixes: l.prefix ? [l.prefix] : (l.categories ?? []).map((c) => c.prefix),
      name: l.name,
    },
    ...(l.categories ?? []).map((c) => ({ prefixes: [l.prefix + c.prefix], name: `${l.name} ${c.name}` })),
  ]);
  const known = [...rules.map((r) => r.code), ...rules.map((r) => r.name), ...linters.map((l) => l.name)];
  const items = names.map((name): RuleExplanation => {
    const rule = byCode.get(name.toUpperCase()) ?? byName.get(name.toLowerCase());
    if (rule) return ruleItem(rule, settings);
    const upper = name.toUpperCase();
    const category =
      categories.find((c) => c.prefixes.length === 1 && c.prefixes[0] === upper) ??
      categories.find((c) => c.name.toLowerCase() === name.toLowerCase());
    const prefixes = category?.prefixes ?? [upper];
    const members = rules.filter((r) => prefixes.some((p) => matchesRule(r.code, p))).map((r) => r.code);
    if (members.length === 0 || (!category && !/^[A-Z]+[0-9]+$/.test(upper)))
      return unknownRule("ruff", name, known);
    const enabled = settings ? members.filter((c) => settings.enabled.has(c)) : undefined;
    const label = category ? category.name : `rules ${upper}*`;
    return {
      name:
        category?.prefixes.length === 1 ? (category.prefixes[0] as string) : category ? category.name : upper,
      linter: "ruff",
      kind: "category",
      summary: `${label}: ${members.length} rules${enabled ? `, ${enabled.length} enabled for ${settings!.file}` : ""}`,
      rules: members,
      ...(enabled
        ? {
            configuration: {
              for_file: settings!.file,
              settings_file: settings!.settingsFile ?? null,
              enabled,
            },
          }
        : {}),
      docs_url: "https://docs.astral.sh/ruff/rules/",
    };
  });
  return { items, notes };
}

registerRuleExplainer({ linter: "ruff", explain: explainRuffRules });
