/**
 * The `sarif` part of the policy toolset (seed 002): risk summary, trend analysis, remediation advice and
 * policy feedback over SARIF logs, given inline or as retained trace ids. Every input goes through one
 * normalizer (src/sarif-analytics/normalize.ts); policy advice comes from the policy advisor service.
 */
import { z } from "zod";
import { defineTool, READ_ONLY, type ToolContext, type ToolDefinition } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { projectRootOf } from "../../paths/project-root.js";
import { EMPTY_ADVISOR, POLICY_ADVISOR_SERVICE, type PolicyAdvisor } from "../../policy/advisor.js";
import { linterNames } from "../../adapters/linters.js";
import { policyFeedback } from "../../sarif-analytics/feedback.js";
import {
  normalizeSarif,
  SarifInputError,
  type NormalizedLog,
  type NormalizedResult,
} from "../../sarif-analytics/normalize.js";
import { remediationPacket, type RecordedCall } from "../../sarif-analytics/remediation.js";
import { riskSummary } from "../../sarif-analytics/risk.js";
import { adviceOf, type ResultAdvice } from "../../sarif-analytics/advice.js";
import { runTrendOffThread } from "../../sarif-analytics/off-thread.js";
import { runTrendJob, type TrendJob } from "../../sarif-analytics/trend-job.js";
import { LISTING_ARGS } from "./listing.js";
import { parseTraceId, readTrace, TRACE_PROPERTY, type TraceMeta } from "../../traces/lint-runs.js";

// Any JSON: the normalizer checks it (and names the JSON path of what is wrong), which a schema here could not.
const SARIF_ARG = z.unknown().describe("SARIF 2.1.0 log");
const TRACE_ARG = z.string().describe("Retained run id");
const PATH_ARG = z.string().optional().describe("Project of the traces");

/** Type checkers a rerun can name (type_check's `checker`). */
const CHECKERS = ["mypy", "pyright", "ty", "tsc"];

interface Loaded {
  log: NormalizedLog;
  trace?: TraceMeta;
  traceId?: string;
}

/** The project root whose .mcp-cache holds the traces: that of `path` (default the working directory). */
function projectRoot(ctx: ToolContext, given: string | undefined): string {
  const dir = ctx.allowlist.resolve(given ?? ".", { kind: "directory", label: "path" });
  return projectRootOf(dir, ctx.allowlist.rootOf(dir) ?? dir);
}

function normalized(input: unknown, label: string): NormalizedLog {
  try {
    return normalizeSarif(input);
  } catch (err) {
    if (err instanceof SarifInputError)
      throw new ToolError("invalid_input", `${label} is not valid SARIF at ${err.message}`, {
        argument: label,
        json_path: err.jsonPath,
      });
    throw err;
  }
}

function sizeOf(input: unknown): number {
  return Buffer.byteLength(typeof input === "string" ? input : JSON.stringify(input));
}

interface Raw {
  /** Parsed SARIF or its JSON text. */
  sarif: unknown;
  label: string;
  bytes: number;
  traceId?: string;
}

/** One input from `sarif` or `trace_id` (exactly one of them), read but not yet normalized. */
function fetchInput(
  ctx: ToolContext,
  sarif: unknown,
  traceId: string | undefined,
  path: string | undefined,
  labels: [string, string],
): Raw {
  if ((sarif === undefined) === (traceId === undefined))
    throw new ToolError("invalid_input", `give either ${labels[0]} or ${labels[1]}`);
  const max = ctx.config.sarifMaxBytes;
  if (traceId !== undefined) {
    const id = parseTraceId(traceId);
    const text = readTrace(projectRoot(ctx, path), id, max);
    return { sarif: text, label: `${labels[1]} ${id}`, bytes: text.length, traceId: id };
  }
  const bytes = sizeOf(sarif);
  if (bytes > max)
    throw new ToolError(
      "invalid_input",
      `${labels[0]} is ${bytes} bytes, over --sarif-max-bytes ${max}: pass a larger limit, or the log as a retained trace_id`,
    );
  return { sarif, label: labels[0], bytes };
}

/** One log from `sarif` or `trace_id` (exactly one of them), normalized. */
function load(
  ctx: ToolContext,
  sarif: unknown,
  traceId: string | undefined,
  path: string | undefined,
  labels: [string, string],
): Loaded {
  const raw = fetchInput(ctx, sarif, traceId, path, labels);
  const log = normalized(raw.sarif, raw.label);
  if (raw.traceId === undefined) return { log };
  return { log, trace: log.properties?.[TRACE_PROPERTY] as TraceMeta | undefined, traceId: raw.traceId };
}

/** Inputs past this many bytes in all are compared in a worker thread, off the event loop. */
const OFF_THREAD_BYTES = 1024 * 1024;

function advisorOf(ctx: ToolContext): (r: NormalizedResult) => ResultAdvice {
  return adviceOf(ctx.services.get<PolicyAdvisor>(POLICY_ADVISOR_SERVICE, () => EMPTY_ADVISOR));
}

const source = (l: Loaded) => (l.traceId ? { trace_id: l.traceId } : { sarif: "argument" });

/** The remediation call for a result of a loaded log. */
function adviceCall(traceId: string | undefined, index: number, path: string | undefined) {
  return traceId
    ? {
        tool: "sarif_remediation_advice",
        arguments: { trace_id: traceId, result_index: index, ...(path ? { path } : {}) },
      }
    : { tool: "sarif_remediation_advice", arguments: { result_index: index }, note: "pass the same sarif" };
}

const INPUT = { sarif: SARIF_ARG.optional(), trace_id: TRACE_ARG.optional(), path: PATH_ARG };

export const sarifRiskSummaryTool = () =>
  defineTool({
    name: "sarif_risk_summary",
    description: "Triage a SARIF log: counts, top rules and files, groups, risk score.",
    input: z.strictObject(INPUT),
    annotations: { title: "SARIF risk summary", ...READ_ONLY },
    async handler(args, ctx) {
      const l = load(ctx, args.sarif, args.trace_id, args.path, ["sarif", "trace_id"]);
      const summary = riskSummary(l.log, advisorOf(ctx));
      return {
        success: true,
        source: source(l),
        ...summary,
        next_call: summary.top_item
          ? adviceCall(l.traceId, summary.top_item.result_index, args.path)
          : undefined,
        notes: l.log.notes,
      };
    },
  });

export const sarifTrendAnalysisTool = () =>
  defineTool({
    name: "sarif_trend_analysis",
    description: "Compare a SARIF log with a baseline: introduced, reopened, worsening, fixed.",
    input: z.strictObject({
      baseline: SARIF_ARG.optional().describe("Earlier SARIF log"),
      current: SARIF_ARG.optional().describe("Later SARIF log"),
      history_sarif: z.array(SARIF_ARG).max(20).optional().describe("Older logs, for reopened"),
      baseline_trace_id: TRACE_ARG.optional().describe("Or baseline as a trace"),
      current_trace_id: TRACE_ARG.optional().describe("Or current as a trace"),
      history_trace_ids: z.array(TRACE_ARG).max(20).optional().describe("Or history as traces"),
      path: PATH_ARG,
      max_result_tokens: LISTING_ARGS.max_result_tokens,
    }),
    annotations: { title: "SARIF trend analysis", ...READ_ONLY },
    async handler(args, ctx) {
      const baseline = fetchInput(ctx, args.baseline, args.baseline_trace_id, args.path, [
        "baseline",
        "baseline_trace_id",
      ]);
      const current = fetchInput(ctx, args.current, args.current_trace_id, args.path, [
        "current",
        "current_trace_id",
      ]);
      const history = [
        ...(args.history_sarif ?? []).map((s, i) =>
          fetchInput(ctx, s, undefined, args.path, [`history_sarif[${i}]`, ""]),
        ),
        ...(args.history_trace_ids ?? []).map((t, i) =>
          fetchInput(ctx, undefined, t, args.path, ["", `history_trace_ids[${i}]`]),
        ),
      ];
      const input = (r: Raw) => ({ label: r.label, sarif: r.sarif });
      const job: TrendJob = {
        baseline: input(baseline),
        current: input(current),
        history: history.map(input),
        // The lists are cut to the result budget (repair queue first); the counts stay full.
        maxTokens: (args.max_result_tokens ?? ctx.config.maxResultTokens) - 300,
      };
      const bytes = [baseline, current, ...history].reduce((n, r) => n + r.bytes, 0);
      const reply =
        bytes > OFF_THREAD_BYTES
          ? await runTrendOffThread(job, { timeoutMs: ctx.config.timeout * 1000, signal: ctx.signal })
          : runTrendJob(job);
      if (!reply.ok)
        throw new ToolError("invalid_input", `${reply.label} is not valid SARIF at ${reply.message}`, {
          argument: reply.label,
          json_path: reply.jsonPath,
        });
      const { notes: trendNotes, ...trend } = reply.trend;
      const from = (r: Raw) => (r.traceId ? { trace_id: r.traceId } : { sarif: "argument" });
      return {
        success: true,
        baseline: from(baseline),
        current: from(current),
        ...trend,
        next_call: trend.top_item
          ? adviceCall(current.traceId, trend.top_item.result_index, args.path)
          : undefined,
        notes: [...reply.notes, ...trendNotes],
      };
    },
  });

export const sarifRemediationAdviceTool = () =>
  defineTool({
    name: "sarif_remediation_advice",
    description: "Repair packet for one SARIF result: policy advice, guardrails, the rerun call.",
    input: z.strictObject({
      ...INPUT,
      result_index: z.number().int().min(0).optional().describe("Which result, across runs (default 0)"),
    }),
    annotations: { title: "SARIF remediation advice", ...READ_ONLY },
    async handler(args, ctx) {
      const l = load(ctx, args.sarif, args.trace_id, args.path, ["sarif", "trace_id"]);
      const index = args.result_index ?? 0;
      if (index >= l.log.results.length)
        throw new ToolError(
          "invalid_input",
          l.log.results.length
            ? `result_index ${index} is out of range: the log has ${l.log.results.length} results`
            : "the log has no results",
        );
      const r = l.log.results[index]!;
      const recorded: RecordedCall | undefined = l.trace
        ? { tool: l.trace.tool, arguments: l.trace.arguments }
        : undefined;
      // The root only names paths; nothing under it is read.
      const root = l.log.runs[r.run_index]?.root ?? (args.path ? projectRoot(ctx, args.path) : undefined);
      return {
        success: true,
        source: source(l),
        ...remediationPacket(l.log, index, advisorOf(ctx)(r), {
          linters: linterNames(),
          checkers: CHECKERS,
          recorded,
          projectRoot: root,
        }),
        notes: l.log.notes,
      };
    },
  });

export const sarifPolicyFeedbackTool = () =>
  defineTool({
    name: "sarif_policy_feedback",
    description: "Policy gaps in a SARIF log: unmapped, under-rated security and noisy rules.",
    input: z.strictObject(INPUT),
    annotations: { title: "SARIF policy feedback", ...READ_ONLY },
    async handler(args, ctx) {
      const l = load(ctx, args.sarif, args.trace_id, args.path, ["sarif", "trace_id"]);
      return {
        success: true,
        source: source(l),
        ...policyFeedback(l.log, advisorOf(ctx)),
        notes: l.log.notes,
      };
    },
  });

/** The four SARIF tools of the policy toolset. */
export function sarifTools(): ToolDefinition[] {
  return [
    sarifRiskSummaryTool(),
    sarifTrendAnalysisTool(),
    sarifRemediationAdviceTool(),
    sarifPolicyFeedbackTool(),
  ];
}
