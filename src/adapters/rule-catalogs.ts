/**
 * Which rule names a linter knows, so that `only` / `except` are checked against the linter's own list
 * before anything runs (as RuboCop's `--only` does): an unknown name is `invalid_input` with the nearest
 * known names, and a group name (clippy's `clippy::style`, rustc's `unused`) stands for the rules in it.
 * Linters register their catalog here (ruff's rule list, ESLint's loaded rules, clippy's lint list); one
 * without a catalog keeps its names as given.
 */
import { distance } from "fastest-levenshtein";
import type { ToolContext } from "../engine/tool.js";
import { ToolError } from "../errors.js";
import type { RuleScope } from "./lint-options.js";
import { matchesRule } from "./rule-scope.js";

export interface RuleCatalog {
  /** Every rule id, as findings name it (`F401`, `@typescript-eslint/no-explicit-any`, `clippy::eq_op`). */
  rules: readonly string[];
  /** A group name → the rule ids it holds. */
  groups?: ReadonlyMap<string, readonly string[]>;
  /** Another name of a rule (ruff's `unused-import` for F401): suggested as that rule. */
  aliases?: ReadonlyMap<string, string>;
  /** What the linter calls its rules, for the message ("lint", "rule"). */
  noun?: string;
}

type CatalogSource = (ctx: ToolContext, target: string) => Promise<RuleCatalog>;

const catalogs = new Map<string, CatalogSource>();

export function registerRuleCatalog(linter: string, source: CatalogSource): void {
  catalogs.set(linter, source);
}

export function findRuleCatalog(linter: string): CatalogSource | undefined {
  return catalogs.get(linter);
}

/** Whether a name matches some rule of the catalog: a rule id, or a prefix/category of some. */
function known(catalog: RuleCatalog, name: string): boolean {
  return catalog.rules.some((r) => matchesRule(r, name));
}

/** The nearest known names to an unknown one (a rule's other name first, then by edit distance). */
export function suggestionsFor(catalog: RuleCatalog, name: string): string[] {
  const alias = catalog.aliases?.get(name);
  if (alias) return [alias];
  // The name without its plugin or tool prefix (`needless_return` for `clippy::needless_return`).
  const withPrefix = catalog.rules.filter((r) => r.endsWith(`::${name}`) || r.endsWith(`/${name}`));
  if (withPrefix.length) return withPrefix.slice(0, 3);
  // Only names near enough to be the one meant (no far-fetched closest match), with or without their
  // tool or plugin prefix (`needles_return` is near `clippy::needless_return`).
  const limit = Math.max(2, Math.floor(name.length / 3));
  const bare = (k: string) => k.replace(/^.*(?:::|\/)/, "");
  const wanted = name.toLowerCase();
  const prefixed = bare(wanted) !== wanted;
  const near = (k: string) =>
    prefixed
      ? distance(wanted, k.toLowerCase())
      : Math.min(distance(wanted, k.toLowerCase()), distance(wanted, bare(k).toLowerCase()));
  return [...catalog.rules, ...(catalog.groups?.keys() ?? [])]
    .map((k) => ({ k, d: near(k) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .filter((x, _, all) => x.d === all[0]!.d)
    .slice(0, 3)
    .map((x) => x.k);
}

/**
 * The scope with every name checked against the catalog and every group expanded into its rules; an unknown
 * name is invalid_input naming the nearest ones.
 */
export function resolveRuleScope(linter: string, scope: RuleScope, catalog: RuleCatalog): RuleScope {
  const problems: string[] = [];
  const resolve = (names: string[] | undefined, arg: string) => {
    if (!names) return undefined;
    return names.flatMap((name) => {
      const group = catalog.groups?.get(name);
      if (group) return [...group];
      if (known(catalog, name)) return [name];
      const near = suggestionsFor(catalog, name);
      problems.push(
        `${arg}: ${linter} has no ${catalog.noun ?? "rule"} or group "${name}"${near.length ? `; did you mean ${near.join(", ")}?` : ""}`,
      );
      return [];
    });
  };
  const only = resolve(scope.only, "only");
  const except = resolve(scope.except, "except");
  if (problems.length) throw new ToolError("invalid_input", problems.join("; "));
  return { ...(only ? { only } : {}), ...(except ? { except } : {}) };
}
