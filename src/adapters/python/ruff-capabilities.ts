/** What ruff does of seed 003's options (LinterCapabilities), for its linter and its fixer. */
export const RUFF_CAPABILITIES = {
  inlineSource: true,
  ruleScope: true,
  contextual: true,
  explain: true,
  corrections: true,
} as const;
