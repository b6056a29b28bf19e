/** Rule scopes (`only`/`except`): which rule ids an id, a prefix or a category covers, for every linter. */
import type { RuleScope } from "./lint-options.js";

/** Whether the text of a finding's rule id, `id`, is covered by `pattern` (an id, a prefix or a category). */
export function matchesRule(id: string, pattern: string): boolean {
  if (id === pattern) return true;
  // Departments and plugins: `Lint` covers `Lint/Foo`, `@typescript-eslint/` covers its rules, `clippy::`.
  if (/[/:]$/.test(pattern)) return id.startsWith(pattern);
  if (id.startsWith(`${pattern}/`) || id.startsWith(`${pattern}::`)) return true;
  // ruff-style codes: the letters name the linter exactly (F is not FBT), the digits are a prefix (E5: E501).
  const p = /^([A-Z]+)([0-9]*)$/.exec(pattern);
  const c = /^([A-Z]+)([0-9]+)$/.exec(id);
  return Boolean(p && c && p[1] === c[1] && (c[2] as string).startsWith(p[2] as string));
}

/** Whether a finding's rule is in scope. */
export function inRuleScope(id: string, scope: RuleScope | undefined): boolean {
  if (!scope) return true;
  if (scope.only?.length && !scope.only.some((p) => matchesRule(id, p))) return false;
  return !scope.except?.some((p) => matchesRule(id, p));
}

/**
 * The scope a lint call's options give findings (rules, changed files), as a predicate for reading a stream;
 * undefined when everything is in scope. The tool layer applies the same filter (scopeFindings).
 */
export function inLintScope(
  options: { rules?: RuleScope; changedFiles?: readonly string[] } | undefined,
): ((f: { rule_id: string; file: string }) => boolean) | undefined {
  if (!options?.rules && !options?.changedFiles) return undefined;
  const changed = options.changedFiles ? new Set(options.changedFiles) : undefined;
  return (f) => inRuleScope(f.rule_id, options.rules) && (!changed || changed.has(f.file));
}
