/** The one line an agent can quote: "ruff: 12 findings in 3 files, 9 fixable; F401 ×7, E501 ×5". */
import { fixesSafely, type Finding } from "./model.js";
import type { FindingTally } from "./collector.js";

const RULES_SHOWN = 5;

/** `beyond`: findings counted but not kept (collector.ts), in every number of the line. */
export function summaryText(tool: string, findings: readonly Finding[], beyond?: FindingTally): string {
  const count = findings.length + (beyond?.count ?? 0);
  if (count === 0) return `${tool}: no findings`;
  const files = new Set([...findings.map((f) => f.file), ...(beyond?.files ?? [])]).size;
  const fixable = findings.filter(fixesSafely).length + (beyond?.fixable ?? 0);
  const unsafe =
    findings.filter((f) => f.correctable && !fixesSafely(f)).length + (beyond?.unsafeFixable ?? 0);
  const byRule = new Map<string, number>(beyond?.byRule ?? []);
  for (const f of findings)
    byRule.set(f.rule_id || "(no rule)", (byRule.get(f.rule_id || "(no rule)") ?? 0) + 1);
  const rules = [...byRule].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = rules.slice(0, RULES_SHOWN).map(([rule, n]) => `${rule} ×${n}`);
  if (rules.length > RULES_SHOWN) shown.push(`${rules.length - RULES_SHOWN} more rules`);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return (
    `${tool}: ${plural(count, "finding")} in ${plural(files, "file")}` +
    (fixable ? `, ${fixable} fixable` : "") +
    (unsafe ? `, ${unsafe} more with unsafe fixes` : "") +
    `; ${shown.join(", ")}`
  );
}
