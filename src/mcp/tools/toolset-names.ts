/**
 * The tool names of each toolset, as data: enough to refuse clashing `--toolsets` at start without
 * importing every tool and adapter before `initialize` is answered (that import is most of a cold
 * start). test/engine/toolset-names.test.ts holds this table to what the toolsets really define.
 */
export const TOOLSET_TOOL_NAMES: Record<string, readonly string[]> = {
  core: [
    "format_check",
    "autoformat",
    "lint",
    "lint_fix",
    "explain_rules",
    "type_check",
    "run_tests",
    "security_scan",
    "audit_dependencies",
    "fix_all",
    "rollback",
    "check_markdown_links",
    "get_status",
    "get_audit_log",
  ],
  policy: [
    "policy_check_command",
    "policy_check_edit",
    "policy_explain",
    "skill_lookup",
    "skill_recommend",
    "remediation_explain",
    "lint_check",
    "lint_advice",
    "tool_capabilities",
    "remediation_advice",
    "sarif_risk_summary",
    "sarif_trend_analysis",
    "sarif_remediation_advice",
    "sarif_policy_feedback",
  ],
  "eslint-typescript": ["lint", "lint_fix", "typecheck", "fix_all", "rollback", "audit_log"],
  rubocop: ["rubocop_inspection", "rubocop_autocorrection", "rubocop_explain"],
};

/** The start-up error for toolsets that define the same tool name, or undefined when they do not clash. */
export function toolsetClash(toolsets: readonly string[]): string | undefined {
  const owner = new Map<string, string>();
  for (const set of toolsets)
    for (const name of TOOLSET_TOOL_NAMES[set] ?? []) {
      const clash = owner.get(name);
      if (clash) return `--toolsets: ${clash} and ${set} both define the tool "${name}"; choose one`;
      owner.set(name, set);
    }
  return undefined;
}
