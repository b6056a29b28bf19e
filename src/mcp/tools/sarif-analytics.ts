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
import {
  runAnalyticsJob,
  type AnalyticsInput,
  type AnalyticsJob,
  type AnalyticsValue,
} from "../../sarif-analytics/analytics-job.js";
import { runAnalyticsOffThread } from "../../sarif-analytics/off-thread.js";
import { LISTING_ARGS } from "./listing.js";
import { parseTraceId, readTrace } from "../../traces/lint-runs.js";

// Any JSON: the normalizer checks it (and names the JSON path of what is wrong), which a schema here could not.
const SARIF_ARG = z.unknown().describe("SARIF 2.1.0 log");
const TRACE_ARG = z.string().describe("Retained run id");
const PATH_ARG = z.string().optional().describe("Project of the traces");

/** Type checkers a rerun can name (type_check's `checker`). */
const CHECKERS = ["mypy", "pyright", "ty", "tsc"];

/** The project root whose .mcp-cache holds the traces: that of `path` (default the working directory). */
function projectRoot(ctx: ToolContext, given: string | undefined): string {
  const dir = ctx.allowlist.resolve(given ?? ".", { kind: "directory", label: "path" });
  return projectRootOf(dir, ctx.allowlist.rootOf(dir) ?? dir);
}

interface Raw {
  /** Parsed SARIF or its JSON text. */
  sarif: unknown;
  /** Its JSON text: what a worker thread is sent (one string, not a graph of objects to clone). */
  text: string;
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
    return { sarif: text, text, label: `${labels[1]} ${id}`, bytes: text.length, traceId: id };
  }
  const text = typeof sarif === "string" ? sarif : JSON.stringify(sarif);
  const bytes = Buffer.byteLength(text);
  if (bytes > max)
    throw new ToolError(
      "invalid_input",
      `${labels[0]} is ${bytes} bytes, over --sarif-max-bytes ${max}: pass a larger limit, or the log as a retained trace_id`,
    );
  return { sarif, text, label: labels[0], bytes };
}

/** Inputs past this many bytes in all are analysed in a worker thread, off the event loop. */
const OFF_THREAD_BYTES = 256 * 1024;

const inline = (r: Raw): AnalyticsInput => ({ label: r.label, sarif: r.sarif });
const asText = (i: AnalyticsInput, r: Raw): AnalyticsInput => ({ label: i.label, sarif: r.text });

/**
 * Runs one analysis: in a worker thread when its inputs are large (the server keeps answering; a timeout or a
 * cancellation ends the thread), inline otherwise. An input that is not SARIF is invalid_input naming it. The
 * answer is checked to be the one to the job's question, and typed as that.
 */
async function analyze<J extends AnalyticsJob>(
  ctx: ToolContext,
  job: J,
  raws: readonly Raw[],
): Promise<{ value: Extract<AnalyticsValue, { op: J["op"] }>; notes: string[] }> {
  const advisor = ctx.services.get<PolicyAdvisor>(POLICY_ADVISOR_SERVICE, () => EMPTY_ADVISOR);
  const bytes = raws.reduce((n, r) => n + r.bytes, 0);
  // An advisor that cannot say where its bundle comes from answers on this thread only.
  const offThread = bytes > OFF_THREAD_BYTES && (advisor.spec !== undefined || advisor === EMPTY_ADVISOR);
  const reply = offThread
    ? await runAnalyticsOffThread(
        { job: withTexts(job, raws), ...(advisor.spec ? { advisor: advisor.spec } : {}) },
        { timeoutMs: ctx.config.timeout * 1000, signal: ctx.signal },
      )
    : runAnalyticsJob(job, advisor);
  if (!reply.ok)
    throw new ToolError("invalid_input", `${reply.label} is not valid SARIF at ${reply.message}`, {
      argument: reply.label,
      json_path: reply.jsonPath,
    });
  if (reply.value.op !== job.op) throw new Error("the analysis answered another question");
  return { value: reply.value as Extract<AnalyticsValue, { op: J["op"] }>, notes: reply.notes };
}

/** The job with each input as its JSON text, in the order the job names them. */
function withTexts(job: AnalyticsJob, raws: readonly Raw[]): AnalyticsJob {
  if (job.op !== "trend") return { ...job, input: asText(job.input, raws[0]!) };
  const [b, c, ...h] = raws;
  return {
    ...job,
    baseline: asText(job.baseline, b!),
    current: asText(job.current, c!),
    history: job.history.map((x, i) => asText(x, h[i]!)),
  };
}

const source = (r: Raw) => (r.traceId ? { trace_id: r.traceId } : { sarif: "argument" });

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

/** The one log of a tool with INPUT's arguments: `sarif` or `trace_id` (of the project at `path`). */
function fetchLog(ctx: ToolContext, args: { sarif?: unknown; trace_id?: string; path?: string }): Raw {
  return fetchInput(ctx, args.sarif, args.trace_id, args.path, ["sarif", "trace_id"]);
}

export const sarifRiskSummaryTool = () =>
  defineTool({
    name: "sarif_risk_summary",
    description: "Triage a SARIF log: counts, top rules and files, groups, risk score.",
    input: z.strictObject(INPUT),
    annotations: { title: "SARIF risk summary", ...READ_ONLY },
    async handler(args, ctx) {
      const raw = fetchLog(ctx, args);
      const reply = await analyze(ctx, { op: "risk", input: inline(raw) }, [raw]);
      const summary = reply.value.summary;
      return {
        success: true,
        source: source(raw),
        ...summary,
        next_call: summary.top_item
          ? adviceCall(raw.traceId, summary.top_item.result_index, args.path)
          : undefined,
        notes: reply.notes,
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
      const job = {
        op: "trend" as const,
        baseline: inline(baseline),
        current: inline(current),
        history: history.map(inline),
        // The lists are cut to the result budget (repair queue first); the counts stay full.
        maxTokens: (args.max_result_tokens ?? ctx.config.maxResultTokens) - 300,
      };
      const reply = await analyze(ctx, job, [baseline, current, ...history]);
      const { notes: trendNotes, ...trend } = reply.value.trend;
      return {
        success: true,
        baseline: source(baseline),
        current: source(current),
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
      const raw = fetchLog(ctx, args);
      const index = args.result_index ?? 0;
      const job = {
        op: "remediation" as const,
        input: inline(raw),
        index,
        context: { linters: linterNames(), checkers: CHECKERS },
        fromTrace: raw.traceId !== undefined,
        ...(args.path ? { fallbackRoot: projectRoot(ctx, args.path) } : {}),
      };
      const reply = await analyze(ctx, job, [raw]);
      const found = reply.value.remediation;
      if (!found.found)
        throw new ToolError(
          "invalid_input",
          found.resultCount
            ? `result_index ${index} is out of range: the log has ${found.resultCount} results`
            : "the log has no results",
        );
      return { success: true, source: source(raw), ...found.packet, notes: reply.notes };
    },
  });

export const sarifPolicyFeedbackTool = () =>
  defineTool({
    name: "sarif_policy_feedback",
    description: "Policy gaps in a SARIF log: unmapped, under-rated security and noisy rules.",
    input: z.strictObject(INPUT),
    annotations: { title: "SARIF policy feedback", ...READ_ONLY },
    async handler(args, ctx) {
      const raw = fetchLog(ctx, args);
      const reply = await analyze(ctx, { op: "feedback", input: inline(raw) }, [raw]);
      return { success: true, source: source(raw), ...reply.value.feedback, notes: reply.notes };
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
