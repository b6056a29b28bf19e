/**
 * The registry behind `explain_rules`: each linter that has rule metadata (ruff's `ruff rule`, ESLint's
 * rule `meta`, clippy's lint list, RuboCop's cop docs) registers how it explains names, from its own data.
 */
import { closest, distance } from "fastest-levenshtein";
import type { ToolContext } from "../engine/tool.js";

export type Autocorrect = "safe" | "unsafe" | "contextual" | "none";

export interface RuleExplanation {
  name: string;
  linter: string;
  kind: "rule" | "category" | "unknown";
  summary: string;
  description?: string;
  bad_example?: string;
  good_example?: string;
  /** The rule's configuration as it resolves for the path asked about (enabled, options, settings file). */
  configuration?: Record<string, unknown>;
  autocorrect?: Autocorrect;
  docs_url?: string;
  /** A category: the rules in it. */
  rules?: string[];
  /** An unknown name: the nearest known ones. */
  did_you_mean?: string[];
}

export interface RuleExplainer {
  linter: string;
  /** `path` is canonical inside the allowlist (a file or a directory); names as the caller gave them. */
  explain(
    ctx: ToolContext,
    names: string[],
    path: string,
  ): Promise<{ items: RuleExplanation[]; notes?: string[] }>;
}

const explainers: RuleExplainer[] = [];

export function registerRuleExplainer(explainer: RuleExplainer): void {
  explainers.push(explainer);
}

export function findRuleExplainer(linter: string): RuleExplainer | undefined {
  return explainers.find((e) => e.linter === linter);
}

export function explainerNames(): string[] {
  return explainers.map((e) => e.linter);
}

/** The known names nearest to an unknown one (edit distance, case-insensitive), best first. */
export function didYouMean(name: string, known: readonly string[], max = 3): string[] {
  const lower = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 3));
  const near = known
    .map((k) => ({ k, d: distance(lower, k.toLowerCase()) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, max)
    .map((x) => x.k);
  return near.length ? near : known.length ? [closest(name, known as string[])] : [];
}

/** An unknown name's item. */
export function unknownRule(linter: string, name: string, known: readonly string[]): RuleExplanation {
  const did = didYouMean(name, known);
  return {
    name,
    linter,
    kind: "unknown",
    summary: `${linter} has no rule or category named "${name}"${did.length ? `; did you mean ${did.join(", ")}?` : ""}`,
    did_you_mean: did,
  };
}

/** The first fenced code block after a heading or phrase in Markdown docs (ruff's, clippy's). */
export function codeBlockAfter(markdown: string, marker: RegExp): string | undefined {
  const m = marker.exec(markdown);
  if (!m) return undefined;
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(markdown.slice(m.index + m[0].length));
  return block?.[1];
}
