/**
 * The ESLint worker's unsafe fixes: suggestions applied pass by pass until nothing more changes, and fix
 * loops (rules whose fixes undo each other) named.
 */
import fs from "node:fs";
import type { EslintMessage } from "../eslint-wire.js";
import { applyEdits, type TextEdit } from "../suggestions.js";
import { inRuleScope } from "../../rule-scope.js";
import type { RuleScope } from "../../lint-options.js";
import type { EslintInstance, EslintResult } from "./eslint-instances.js";

/** Passes of "apply suggestions, re-fix" before giving up on convergence. */
const MAX_SUGGESTION_PASSES = 5;

/**
 * ESLint stops after 10 fix passes; fixes still offered then, by rules whose fixes were being applied (in
 * the only/except scope), mean rules that undo each other. Other rules' fixes were never asked for.
 */
export function loopOf(messages: EslintMessage[], scope?: RuleScope): string | undefined {
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
export async function applySuggestionPasses(
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
