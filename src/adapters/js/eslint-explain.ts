/**
 * explain_rules for ESLint, from the project's own ESLint and plugins (in its warm worker): each rule's
 * `meta` (description, docs URL, fixable, suggestions, deprecation) and its setting as the flat config
 * resolves for the path (`calculateConfigForFile`). ESLint's meta has no examples, so none are given.
 */
import fs from "node:fs";
import path from "node:path";
import type { ToolContext } from "../../engine/tool.js";
import { firstFileOf, projectLanguages } from "../project-languages.js";
import { registerRuleCatalog } from "../rule-catalogs.js";
import {
  codeBlockAfter,
  registerRuleExplainer,
  unknownRule,
  type Autocorrect,
  type RuleExplanation,
} from "../rule-explainers.js";
import { eslintCall, ESLINT_CONTEXTUAL_RULES, inlineScope, params } from "./eslint.js";
import type { WireRuleInfo } from "./workers/eslint-rules.js";

const SEVERITIES = ["off", "warn", "error"];

/**
 * The boolean options of a rule's schema that switch its fixes on (`fixToUnknown` of
 * @typescript-eslint/no-explicit-any): a rule with such options fixes only when one is on.
 */
function fixSwitches(schema: unknown): string[] {
  const objects = (Array.isArray(schema) ? schema : [schema]).filter(
    (s): s is { properties?: Record<string, { type?: unknown }> } => Boolean(s) && typeof s === "object",
  );
  return objects.flatMap((o) =>
    Object.entries(o.properties ?? {})
      .filter(([key, p]) => /^fix/i.test(key) && p?.type === "boolean")
      .map(([key]) => key),
  );
}

/** The options a rule runs with: its `meta.defaultOptions` under what the config sets. */
export function effectiveOptions(meta: WireRuleInfo["meta"], given: readonly unknown[]): unknown[] {
  const defaults = meta?.defaultOptions ?? [];
  return Array.from({ length: Math.max(defaults.length, given.length) }, (_, i) => {
    const d = defaults[i];
    const g = given[i];
    if (d && g && typeof d === "object" && typeof g === "object" && !Array.isArray(d) && !Array.isArray(g))
      return { ...d, ...g };
    return g ?? d;
  });
}

/**
 * How lint_fix corrects a rule with the options it resolves to: fixes are safe (none when the options
 * leave every fix switched off), suggestions unsafe, no-unused-vars' contextual.
 */
export function eslintAutocorrect(
  name: string,
  meta: WireRuleInfo["meta"],
  options: readonly unknown[] = [],
): Autocorrect {
  const switches = fixSwitches(meta?.schema);
  const effective = effectiveOptions(meta, options);
  const fixes =
    Boolean(meta?.fixable) &&
    (switches.length === 0 ||
      effective.some(
        (o) =>
          o !== null &&
          typeof o === "object" &&
          switches.some((k) => (o as Record<string, unknown>)[k] === true),
      ));
  // An unused name's fix or suggestion removes it, though it may be about to be used: contextual, whatever
  // else the rule can fix (typescript-eslint's no-unused-vars is `fixable` for imports, when asked to be).
  if (ESLINT_CONTEXTUAL_RULES.includes(name)) return fixes || meta?.hasSuggestions ? "contextual" : "none";
  if (fixes) return "safe";
  if (!meta?.hasSuggestions) return "none";
  return "unsafe";
}

/**
 * The bad and good examples of a rule's docs page: the first code block after a line naming incorrect code
 * (`Examples of **incorrect** code`, `❌`, "considered problems", "bad", "fail") and after one naming
 * correct code.
 */
export function docsExamples(markdown: string): { bad_example?: string; good_example?: string } {
  const bad = codeBlockAfter(
    markdown,
    /^.*(?:\bincorrect\b|❌|are considered problems|\bbad\b|\bfail\b).*$/im,
  );
  const good = codeBlockAfter(
    markdown,
    /^.*(?:(?<!in)\bcorrect\b|✅|not considered problems|\bgood\b|\bpass\b).*$/im,
  );
  return { ...(bad && { bad_example: bad }), ...(good && { good_example: good }) };
}

/**
 * The file whose config stands for `target`: itself, or an existing TypeScript (else JavaScript) file of the
 * folder, named in a note (a flat config's `files` patterns decide per path, so it should be a real one).
 */
function configFileFor(target: string): { file: string; note?: string } {
  // A file, or the file inline code is linted as (it need not exist).
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) return { file: target };
  const language = projectLanguages(target).includes("typescript") ? "typescript" : "javascript";
  const found = firstFileOf(target, language);
  if (found)
    return {
      file: found,
      note: `configuration: the settings the config resolves for ${found}, a ${language} file of ${target}`,
    };
  const file = path.join(target, language === "typescript" ? "example.ts" : "example.js");
  return {
    file,
    note: `configuration: the settings the config resolves for ${file} (${target} has no ${language} file; it does not exist)`,
  };
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
  const options = setting?.slice(1) ?? [];
  return {
    name: info.name,
    linter: "eslint",
    kind: "rule",
    summary: `${meta.docs?.description ?? info.name}${meta.deprecated ? " (deprecated)" : ""}`,
    description: meta.type ? `type: ${meta.type}` : undefined,
    ...(info.docs && docsExamples(info.docs.text)),
    configuration: { for_file: file, severity, options },
    autocorrect: eslintAutocorrect(info.name, meta, options),
    docs_url: meta.docs?.url,
  };
}

/** What only/except take for ESLint: the rules the project's config loads (core and plugins'). */
registerRuleCatalog("eslint", async (ctx, target) => {
  const { file } = configFileFor(target);
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
    const { file, note: fileNote } = configFileFor(target);
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
    const withoutDocs = result.filter((i) => i.kind === "rule" && !i.docs).map((i) => i.name);
    return {
      items,
      // The config's notes: which one (the bundled default, when the project lints with a wrapper: not its).
      notes: [
        ...scope.notes,
        fileNote,
        note,
        ...(withoutDocs.length
          ? [
              `no bad/good examples for ${withoutDocs.join(", ")}: their package ships no docs page (docs/rules/<rule>.md), ` +
                "and ESLint's rule meta has none; see docs_url",
            ]
          : []),
      ].filter((n): n is string => Boolean(n)),
    };
  },
});
