/**
 * explain_rules for ESLint, from the project's own ESLint and plugins (in its warm worker): each rule's
 * `meta` (description, docs URL, fixable, suggestions, deprecation) and its setting as the flat config
 * resolves for the path (`calculateConfigForFile`). ESLint's meta has no examples, so none are given.
 */
import fs from "node:fs";
import path from "node:path";
import type { ToolContext } from "../../engine/tool.js";
import { projectLanguages } from "../project-languages.js";
import { registerRuleCatalog } from "../rule-catalogs.js";
import {
  registerRuleExplainer,
  unknownRule,
  type Autocorrect,
  type RuleExplanation,
} from "../rule-explainers.js";
import { eslintCall, ESLINT_CONTEXTUAL_RULES, inlineScope, params } from "./eslint.js";
import type { WireRuleInfo } from "./workers/eslint-worker.js";

const SEVERITIES = ["off", "warn", "error"];

/** How lint_fix corrects a rule: fixes are safe, suggestions unsafe, no-unused-vars' contextual. */
export function eslintAutocorrect(name: string, meta: WireRuleInfo["meta"]): Autocorrect {
  if (meta?.fixable) return "safe";
  if (!meta?.hasSuggestions) return "none";
  return ESLINT_CONTEXTUAL_RULES.includes(name) ? "contextual" : "unsafe";
}

/** The file whose config stands for `target`: itself, or an example file in the folder. */
function configFileFor(target: string): string {
  // A file, or the file inline code is linted as (it need not exist).
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) return target;
  const ts = projectLanguages(target).includes("typescript");
  return path.join(target, ts ? "example.ts" : "example.js");
}

export function explanationOf(info: WireRuleInfo, file: string): RuleExplanation {
  if (info.kind === "category")
    return {
      name: info.name,
      linter: "eslint",
      kind: "category",
      summary: `the ${info.name} plugin: ${info.rules?.length ?? 0} rules`,
      rules: info.rules,
    };
  const meta = info.meta ?? {};
  const setting = Array.isArray(info.setting)
    ? info.setting
    : info.setting === undefined
      ? undefined
      : [info.setting];
  const severity = setting ? (typeof setting[0] === "number" ? SEVERITIES[setting[0]] : setting[0]) : "off";
  return {
    name: info.name,
    linter: "eslint",
    kind: "rule",
    summary: `${meta.docs?.description ?? info.name}${meta.deprecated ? " (deprecated)" : ""}`,
    description: meta.type ? `type: ${meta.type}` : undefined,
    configuration: { for_file: file, severity, options: setting?.slice(1) ?? [] },
    autocorrect: eslintAutocorrect(info.name, meta),
    docs_url: meta.docs?.url,
  };
}

/** What only/except take for ESLint: the rules the project's config loads (core and plugins'). */
registerRuleCatalog("eslint", async (ctx, target) => {
  const file = configFileFor(target);
  const scope = inlineScope(ctx, file, undefined);
  const { result } = await eslintCall<string[]>(
    ctx,
    scope,
    "rules",
    { ...params(scope), file },
    "eslint --print-config",
  );
  return { rules: result };
});

registerRuleExplainer({
  linter: "eslint",
  async explain(ctx: ToolContext, names: string[], target: string) {
    const file = configFileFor(target);
    const scope = inlineScope(ctx, file, undefined);
    const { result, note } = await eslintCall<WireRuleInfo[]>(
      ctx,
      scope,
      "explain",
      { ...params(scope), file, names },
      "eslint --print-config",
    );
    const items = result.map((info) =>
      info.kind === "unknown"
        ? unknownRule("eslint", info.name, info.known ?? [])
        : explanationOf(info, file),
    );
    return { items, notes: [note, "ESLint's rule meta has no bad/good examples"].filter(Boolean) };
  },
});
