/**
 * RuboCop's explanations of cops and departments (explain_rules, rubocop_explain), from RuboCop's own data in
 * the project's warm worker (ruby/rubocop_explain.rb): the cop's Description, its configuration as it resolves
 * for `path` (a folder's own .rubocop.yml applies), how it autocorrects, the docs URL --show-docs-url prints, and
 * the description and bad/good code of the `@example` blocks in the cop's YARD comment (what RuboCop's
 * documentation pages are generated from; 1.39 has no --explain).
 */
import type { ToolContext } from "../../engine/tool.js";
import { registerRuleExplainer } from "../rule-explainers.js";
import { rubocopRequest } from "./rubocop-worker.js";

export interface RuleExplanation {
  name: string;
  linter: "rubocop";
  /** A cop, or a department. */
  kind: "rule" | "category";
  summary: string;
  description?: string;
  bad_example?: string;
  good_example?: string;
  /** The cop's (or department's) configuration as RuboCop resolves it for the path. */
  configuration?: Record<string, unknown>;
  /** contextual: held back while code is edited (see ruby/rubocop_contextual.rb). Absent for departments. */
  autocorrect?: "safe" | "unsafe" | "contextual" | "none";
  docs_url?: string;
  /** A department's cops. */
  rules?: string[];
  /** No such cop or department: the nearest names. */
  unknown?: boolean;
  did_you_mean?: string[];
}

/**
 * Explains each name (a cop such as `Lint/UselessAssignment`, a bare cop name, or a department such as `Lint`)
 * as RuboCop resolves it for `path` (canonical, inside the allowlist; default: the first allowed root).
 */
export async function explainCops(
  ctx: ToolContext,
  names: string[],
  path?: string,
): Promise<RuleExplanation[]> {
  const target = path ?? ctx.allowlist.roots.effective[0] ?? ctx.config.cwd;
  const { result } = await rubocopRequest<Omit<RuleExplanation, "linter">[]>(
    ctx,
    target,
    "explain",
    { names, path: target },
    `rubocop --show-cops ${names.join(",")}`,
  );
  return result.map(({ name, ...rest }) => ({ name, linter: "rubocop" as const, ...rest }));
}

// explain_rules: RuboCop's answers, with an unknown cop marked as explain_rules marks it.
registerRuleExplainer({
  linter: "rubocop",
  explain: async (ctx, names, path) => ({
    items: (await explainCops(ctx, names, path)).map(({ unknown, ...item }) =>
      unknown ? { ...item, kind: "unknown" as const } : item,
    ),
  }),
});
