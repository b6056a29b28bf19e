/**
 * The traits of every tool, listed in its tools/list `_meta` so that clients can tell advisory tools from
 * managed execution: advisory (the answer is advice from the policy bundle or a provider), reads project
 * files, runs managed tools, persists traces (transaction audit and snapshots, advice or lint-run traces
 * under `.mcp-cache/`). A tool declares them in its definition (`traits`); tools that predate the field are
 * kept here. test/policy/tool-metadata.test.ts fails when a listed tool has none.
 */
import type { ToolDefinition, ToolTraits } from "../engine/tool.js";

export const TRAITS_META_KEY = "mcp-code-quality/traits";

const t = (advisory: boolean, reads_files: boolean, runs_tools: boolean, persists_traces: boolean) =>
  ({ advisory, reads_files, runs_tools, persists_traces }) satisfies ToolTraits;

const RUNS = t(false, true, true, false);
const WRITES = t(false, true, true, true);
const ADVISES = t(true, false, false, false);

/** By tool name; the same name in two toolsets (core and eslint-typescript) does the same kind of thing. */
const KNOWN: Record<string, ToolTraits> = {
  format_check: RUNS,
  autoformat: WRITES,
  lint: RUNS,
  lint_fix: WRITES,
  type_check: RUNS,
  typecheck: RUNS,
  run_tests: RUNS,
  security_scan: RUNS,
  audit_dependencies: RUNS,
  fix_all: WRITES,
  // Restores snapshots and records the rollback; runs nothing.
  rollback: t(false, true, false, true),
  // In-process: reads Markdown files and requests links, runs no external tool.
  check_markdown_links: t(false, true, false, false),
  // Probes tool versions; with `path`, reads the project's tool configs.
  get_status: t(false, true, true, false),
  get_audit_log: t(false, true, false, false),
  audit_log: t(false, true, false, false),
  explain_rules: t(false, false, true, false),
  rubocop_inspection: RUNS,
  rubocop_autocorrection: WRITES,
  rubocop_explain: t(false, false, true, false),
  // The policy toolset of issue 18 built beside this module (seed 002): answers from the compiled bundle.
  policy_check_command: ADVISES,
  policy_check_edit: t(true, true, false, false),
  policy_explain: ADVISES,
  skill_lookup: ADVISES,
  skill_recommend: ADVISES,
  remediation_explain: ADVISES,
  // SARIF payloads come inline; a trace_id reads a retained lint-run trace.
  sarif_remediation_advice: t(true, true, false, false),
  sarif_risk_summary: t(true, true, false, false),
  sarif_trend_analysis: t(true, true, false, false),
  sarif_policy_feedback: t(true, true, false, false),
};

/** A tool's traits: its own declaration, else the table; undefined when neither knows it. */
export function traitsOf(tool: Pick<ToolDefinition, "name" | "traits">): ToolTraits | undefined {
  return tool.traits ?? KNOWN[tool.name];
}

/** The `_meta` of a tool's listing: the names of the traits it has (compact: tools/list has a budget). */
export function traitsMeta(tool: ToolDefinition): { _meta?: Record<string, string[]> } {
  const traits = traitsOf(tool);
  if (!traits) return {};
  const names = (Object.keys(traits) as (keyof ToolTraits)[]).filter((k) => traits[k]);
  return { _meta: { [TRAITS_META_KEY]: names } };
}
