/**
 * What one check came to, from the engine's result: a status, the findings (read from the result's SARIF
 * log, so every tool is read the same way, with rule ids and docs links) and the log itself. Pure.
 */
import path from "node:path";
import type { PlannedCheck } from "./detect.js";
import { filterSarifResults, resultFile, type SarifLogLike } from "./sarif-merge.js";
import { relativeTo } from "../paths/fast-relative.js";
import { RUN_NOTE } from "../adapters/whole-program.js";

export type CheckStatus = "passed" | "findings" | "failed" | "skipped" | "nothing";
export type Level = "error" | "warning" | "note";

export interface FindingRow {
  tool: string;
  /** The file as shown: relative to the working directory when inside it, else absolute ("" for none). */
  file: string;
  line: number;
  column: number;
  rule_id: string;
  level: Level;
  message: string;
  docs_url?: string;
}

export interface CheckOutcome {
  id: string;
  kind: PlannedCheck["kind"];
  language: PlannedCheck["language"];
  target: string;
  status: CheckStatus;
  duration_ms: number;
  counts: Record<Level, number>;
  findings: FindingRow[];
  /** Why it was skipped or failed, or what it notes (nothing to check). */
  reason?: string;
  error_type?: string;
  /** The project's configuration asks for this check's tool (PlannedCheck's). */
  required?: boolean;
  /** A failed check's run, as the tool's result reports it (runReport): what to read to see why. */
  command?: string;
  returncode?: number | null;
  output?: string;
  truncated?: boolean;
  /** What the tool's result notes (which tool ran, from where, its own warnings): --json has them all. */
  notes?: string[];
  sarif?: SarifLogLike;
}

/** The tool's result, as far as check reads it. */
export interface EngineResult {
  success: boolean;
  passed?: boolean;
  formatted?: boolean;
  nothing_checked?: boolean;
  error?: string;
  error_type?: string;
  sarif?: SarifLogLike;
  notes?: string[];
  [key: string]: unknown;
}

const shown = (file: string, cwd: string) => {
  const rel = relativeTo(cwd, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
};

/** Every result of a SARIF log as a report row. */
export function findingRows(log: SarifLogLike | undefined, cwd: string): FindingRow[] {
  const rows: FindingRow[] = [];
  for (const run of log?.runs ?? []) {
    const rules = run.tool.driver.rules ?? [];
    for (const r of run.results ?? []) {
      const rule = r.ruleIndex !== undefined ? rules[r.ruleIndex] : undefined;
      const file = resultFile(run, r);
      const region = r.locations?.[0]?.physicalLocation?.region;
      rows.push({
        tool: run.tool.driver.name,
        file: file ? shown(file, cwd) : "",
        line: region?.startLine ?? 0,
        column: region?.startColumn ?? 0,
        rule_id: r.ruleId ?? rule?.id ?? run.tool.driver.name,
        level: r.level === "error" || r.level === "note" ? r.level : "warning",
        message: r.message.text,
        docs_url: rule?.helpUri,
      });
    }
  }
  return rows;
}

export function countLevels(rows: readonly FindingRow[]): Record<Level, number> {
  const counts = { error: 0, warning: 0, note: 0 };
  for (const r of rows) counts[r.level]++;
  return counts;
}

/** Why a check had nothing to do by the command's own choice (--changed, --shard): no project left unchecked. */
export const NO_CHANGED_FILES = "no changed files";
export const otherShard = (index: number, count: number) => `runs in shard ${index}/${count}`;
export const leftToOthers = (o: CheckOutcome) =>
  o.status === "nothing" &&
  (o.reason === NO_CHANGED_FILES || /^runs in shard \d+\/\d+$/.test(o.reason ?? ""));

/** A check that did not run (not installed, nothing changed...). */
export function skippedOutcome(
  check: PlannedCheck,
  reason: string,
  status: CheckStatus = "skipped",
): CheckOutcome {
  return {
    id: check.id,
    kind: check.kind,
    language: check.language,
    target: check.target,
    status,
    duration_ms: 0,
    counts: { error: 0, warning: 0, note: 0 },
    findings: [],
    reason,
    ...(check.required && { required: true }),
  };
}

/**
 * The result's notes, when it has any (strings only), but those that describe this run's processes (a warm
 * worker's pid): check's verdict reads the same from one run to the next, as a cached result does.
 */
function notesOf(result: EngineResult): Pick<CheckOutcome, "notes"> {
  const notes = (Array.isArray(result.notes) ? result.notes : []).filter(
    (n): n is string => typeof n === "string" && !RUN_NOTE.test(n),
  );
  return notes.length ? { notes } : {};
}

/** The run a failed result reports (command, exit code, output), the fields it has of them. */
function failedRun(
  result: EngineResult,
): Pick<CheckOutcome, "command" | "returncode" | "output" | "truncated"> {
  const run: Pick<CheckOutcome, "command" | "returncode" | "output" | "truncated"> = {};
  if (typeof result.command === "string") run.command = result.command;
  if (typeof result.returncode === "number" || result.returncode === null) run.returncode = result.returncode;
  if (typeof result.output === "string" && result.output !== "") run.output = result.output;
  if (result.truncated === true) run.truncated = true;
  return run;
}

/**
 * The outcome of a check from its result. `changed`, when given, keeps only the findings in those files
 * (a set, or a test: --shard's) and judges the check by them alone.
 */
export function outcomeOf(
  check: PlannedCheck,
  result: EngineResult,
  durationMs: number,
  cwd: string,
  changed?: ReadonlySet<string> | ((file: string) => boolean),
): CheckOutcome {
  if (!result.success) {
    const missing = result.error_type === "tool_not_found";
    const reason = missing ? `not installed; install: ${check.install}` : (result.error ?? "failed");
    return {
      ...skippedOutcome(check, reason, missing ? "skipped" : "failed"),
      duration_ms: durationMs,
      error_type: result.error_type,
      ...failedRun(result),
      ...notesOf(result),
    };
  }
  const keep = typeof changed === "function" ? changed : changed && ((f: string) => changed.has(f));
  const sarif = keep && result.sarif ? filterSarifResults(result.sarif, keep) : result.sarif;
  const findings = findingRows(sarif, cwd);
  let status: CheckStatus;
  if (result.nothing_checked) status = "nothing";
  else if (findings.length > 0) status = "findings";
  else if (!changed && (result.passed === false || result.formatted === false)) status = "findings";
  else status = "passed";
  return {
    ...skippedOutcome(check, ""),
    status,
    duration_ms: durationMs,
    counts: countLevels(findings),
    findings,
    reason: status === "nothing" ? result.notes?.find((n) => n.startsWith("checked nothing")) : undefined,
    ...notesOf(result),
    sarif,
  };
}
