/** The SARIF a log normalizes to (normalize.ts), which the keys and every analysis read: below both. */
export type SarifLevel = "error" | "warning" | "note" | "none";
export const LEVELS: readonly SarifLevel[] = ["none", "note", "warning", "error"];
/** none < note < warning < error. */
export const levelRank = (l: SarifLevel): number => LEVELS.indexOf(l);

export type BaselineState = "new" | "unchanged" | "updated" | "absent";

export interface NormalizedResult {
  /** Position among all results of the log, runs in order: the `result_index` of the tools. */
  index: number;
  run_index: number;
  tool: string;
  /** The tool's name normalized (case, version suffix): how runs of one tool are compared across logs. */
  tool_key: string;
  tool_version?: string;
  rule_id: string;
  rule_name?: string;
  level: SarifLevel;
  /** SARIF's kind when not "fail" (pass, open, review, notApplicable, informational). */
  kind?: string;
  message: string;
  /** The artifact's path as the log names it (decoded), relative to `uri_base_id` when it has one. */
  path?: string;
  uri_base_id?: string;
  /** The file's absolute path, when the log says where its base is (`originalUriBaseIds`) or gives a file: URI. */
  absolute_path?: string;
  line?: number;
  column?: number;
  end_line?: number;
  end_column?: number;
  snippet?: string;
  fingerprint: string;
  /**
   * Where the fingerprint came from: `partialFingerprints:<key>`, `fingerprints:<key>`, `computed:snippet` (the
   * region's text hashed) or `computed:message` (no text to hash: tool, rule, path and message).
   */
  fingerprint_source: string;
  group_key: string;
  group_source: "sarif" | "computed";
  /** The group's own id when the log names one (seed 002's `coding_ethos_group_id`, a finding_groups entry). */
  group_id?: string;
  /** SARIF's baselineState, as the producer set it; `absent` results are not present in this run. */
  baseline_state?: BaselineState;
  /** A suppression in effect (status accepted, or none given): not an open finding. */
  suppressed?: boolean;
  /** The policy the log maps the result to (seed 002's `properties.policy_id`, on the result or its rule). */
  policy_id?: string;
  skill_id?: string;
  /** The tool and rule code behind the result when the log is a policy layer's (seed 002's source_tool, code). */
  source_tool?: string;
  source_code?: string;
  /** CWE ids from tags, taxa and the rule's relationships (`CWE-89`). */
  cwe?: string[];
  /** Deterministic tool/rule/file/message key, the last matching resort. */
  fallback_key: string;
  security: boolean;
  security_severity?: number;
  help_uri?: string;
  /** CEL provenance, when the result or its rule records it. */
  cel?: unknown;
  properties?: Record<string, unknown>;
  rule_properties?: Record<string, unknown>;
  /** Result members SARIF does not define, kept as given. */
  extra?: Record<string, unknown>;
}

export interface NormalizedRun {
  tool: string;
  version?: string;
  result_count: number;
  /** Absolute folder of `%SRCROOT%` (or the first file: base), when the log gives one. */
  root?: string;
  properties?: Record<string, unknown>;
}

export interface NormalizedLog {
  results: NormalizedResult[];
  runs: NormalizedRun[];
  /** The log's own property bag (a retained trace's metadata lives here). */
  properties?: Record<string, unknown>;
  notes: string[];
}
