/**
 * One SARIF analysis (risk summary, trend, remediation packet, policy feedback) from raw inputs (parsed SARIF
 * or its JSON text): normalize, compute, answer. The same function runs on the main thread for small inputs
 * and in a worker thread (analytics-thread.ts) for large ones, so its job and reply are plain data. Pure but
 * for the advisor it is given.
 */
import type { PolicyAdvisor } from "../policy/advisor.js";
import { TRACE_PROPERTY, type TraceMeta } from "../traces/lint-runs.js";
import { adviceOf } from "./advice.js";
import { policyFeedback } from "./feedback.js";
import { normalizeSarif } from "./normalize.js";
import { SarifInputError } from "./sarif-input.js";
import type { NormalizedLog } from "./normalized.js";
import { remediationPacket, type RerunContext } from "./remediation.js";
import { riskSummary } from "./risk.js";
import { fitTrend, trendAnalysis } from "./trend.js";

export interface AnalyticsInput {
  /** The argument it came from (`sarif`, `history_trace_ids[2] <id>`), for errors. */
  label: string;
  /** Parsed SARIF or its JSON text. */
  sarif: unknown;
}

export type AnalyticsJob =
  | { op: "risk"; input: AnalyticsInput }
  | { op: "feedback"; input: AnalyticsInput }
  | {
      op: "remediation";
      input: AnalyticsInput;
      index: number;
      context: Omit<RerunContext, "recorded" | "projectRoot">;
      /** The project root of `path`, when the result's run names none. */
      fallbackRoot?: string;
      /** The log is a retained trace: the call it records is the rerun's starting point. */
      fromTrace: boolean;
    }
  | {
      op: "trend";
      baseline: AnalyticsInput;
      current: AnalyticsInput;
      history: AnalyticsInput[];
      /** The lists are cut to this many tokens (repair queue first); the counts stay full. */
      maxTokens: number;
    };

/** What a remediation packet is, or why the index names no result. */
type RemediationValue =
  { found: true; packet: ReturnType<typeof remediationPacket> } | { found: false; resultCount: number };

export type AnalyticsValue =
  | { op: "risk"; summary: ReturnType<typeof riskSummary> }
  | { op: "feedback"; feedback: ReturnType<typeof policyFeedback> }
  | { op: "remediation"; remediation: RemediationValue }
  | { op: "trend"; trend: ReturnType<typeof fitTrend<ReturnType<typeof trendAnalysis>>> };

export type AnalyticsReply =
  | { ok: true; value: AnalyticsValue; notes: string[] }
  | { ok: false; label: string; jsonPath: string; message: string };

class BadInput extends Error {
  constructor(
    readonly label: string,
    readonly inputError: SarifInputError,
  ) {
    super(inputError.message);
  }
}

function normalized(input: AnalyticsInput): NormalizedLog {
  try {
    return normalizeSarif(input.sarif);
  } catch (err) {
    if (err instanceof SarifInputError) throw new BadInput(input.label, err);
    throw err;
  }
}

function compute(job: AnalyticsJob, advisor: PolicyAdvisor): { value: AnalyticsValue; notes: string[] } {
  const advice = adviceOf(advisor);
  if (job.op === "trend") {
    const [baseline, current, ...history] = [job.baseline, job.current, ...job.history].map(normalized) as [
      NormalizedLog,
      NormalizedLog,
      ...NormalizedLog[],
    ];
    const trend = fitTrend(trendAnalysis(baseline, current, history), job.maxTokens);
    return { value: { op: "trend", trend }, notes: [...baseline.notes, ...current.notes] };
  }
  const log = normalized(job.input);
  if (job.op === "risk")
    return { value: { op: "risk", summary: riskSummary(log, advice) }, notes: log.notes };
  if (job.op === "feedback")
    return { value: { op: "feedback", feedback: policyFeedback(log, advice) }, notes: log.notes };
  const r = log.results[job.index];
  if (!r)
    return {
      value: { op: "remediation", remediation: { found: false, resultCount: log.results.length } },
      notes: log.notes,
    };
  const trace = job.fromTrace ? (log.properties?.[TRACE_PROPERTY] as TraceMeta | undefined) : undefined;
  // The root only names paths; nothing under it is read.
  const projectRoot = log.runs[r.run_index]?.root ?? job.fallbackRoot;
  const packet = remediationPacket(log, job.index, advice(r), {
    ...job.context,
    recorded: trace ? { tool: trace.tool, arguments: trace.arguments } : undefined,
    projectRoot,
  });
  return { value: { op: "remediation", remediation: { found: true, packet } }, notes: log.notes };
}

/** Runs `job` with `advisor`'s policy advice; an input that is not SARIF is an answer, not a throw. */
export function runAnalyticsJob(job: AnalyticsJob, advisor: PolicyAdvisor): AnalyticsReply {
  try {
    return { ok: true, ...compute(job, advisor) };
  } catch (err) {
    if (err instanceof BadInput)
      return {
        ok: false,
        label: err.label,
        jsonPath: err.inputError.jsonPath,
        message: err.inputError.message,
      };
    throw err;
  }
}
