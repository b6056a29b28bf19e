/** The `output` argument of the tools that report findings, and the SARIF log they add when asked. */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { DisplayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { sarifLog, SRCROOT, TOOL_URIS } from "../../findings/sarif.js";
import { registeredVersion } from "../../adapters/tool-version.js";
import type { ToolContext, ToolDefinition, ToolResult } from "../../engine/tool.js";
import { fitSarif } from "../../findings/sarif-fit.js";
import type { SarifLogLike } from "../../findings/sarif-log.js";
import type { RetainMode } from "../../config.js";
import { traitsOf } from "../tool-traits.js";
import { newTraceId, retainTrace, TRACE_PROPERTY, type TraceMeta } from "../../traces/lint-runs.js";

export const OUTPUT_ARG = z.enum(["json", "sarif"]).default("json").describe("sarif: add a SARIF log");

export interface SarifRunSource {
  tool: string;
  version?: () => Promise<string | undefined>;
  /** Every finding (not only the listed ones), shaped by findingsView with fingerprints. */
  findings: readonly Finding[];
  executionSuccessful?: boolean;
  notes?: readonly string[];
  crash?: string;
  command?: string;
}

/** `{sarif}` when SARIF was asked for, else `{}` (so it spreads into a result). */
export async function sarifField(
  ctx: ToolContext,
  output: "json" | "sarif" | undefined,
  display: DisplayPaths,
  runs: readonly SarifRunSource[],
): Promise<{ sarif?: ReturnType<typeof sarifLog> }> {
  if (output !== "sarif") return {};
  const inputs = await Promise.all(
    runs.map(async (r) => ({
      tool: r.tool,
      // The adapter's own answer, else the registered tool's (the copy on PATH).
      version: (await r.version?.()) ?? (await registeredVersion(ctx, r.tool)),
      informationUri: TOOL_URIS[r.tool] ?? "https://github.com/",
      findings: r.findings,
      root: display.root,
      executionSuccessful: r.executionSuccessful ?? true,
      notes: r.notes,
      crash: r.crash,
      commandLine: r.command,
    })),
  );
  return { sarif: sarifLog(inputs) };
}

export const RETAIN_ARG = z.boolean().optional().describe("Keep a SARIF trace");

/** The project root a SARIF log of ours is about (its %SRCROOT%). */
function sarifRoot(sarif: unknown): string | undefined {
  const run = (sarif as { runs?: { originalUriBaseIds?: Record<string, { uri?: string }> }[] }).runs?.[0];
  const uri = run?.originalUriBaseIds?.[SRCROOT]?.uri;
  return uri?.startsWith("file:") ? fileURLToPath(uri).replace(/\/$/, "") || "/" : undefined;
}

const RETAIN_HINT =
  "call again with retain: true to keep them all in a trace (trace_id) for the sarif_* tools";
/** A read-only tool takes `retain` only when the server offers it (see retainable). */
const RETAIN_OFF_HINT =
  "a server started with --retain-traces per-call takes retain: true, which keeps them all in a trace (trace_id) for the sarif_* tools";

/** Bytes kept free beside the SARIF log for the rest of the result and the engine's own additions. */
const RESULT_RESERVE_BYTES = 4096;

/**
 * `sarif` fitted to the call's result cap, saying so: a log that would not fit keeps its most severe results,
 * and the result gains `truncated: true` and `sarif_truncated` (counts, and the trace that holds them all).
 * Without this the engine's generic cap would drop results from the log's end with only a note.
 */
function fitSarifField(
  result: ToolResult,
  maxBytes: number | undefined,
  traceId: string | undefined,
  hint = RETAIN_HINT,
): ToolResult {
  const sarif = result.sarif as SarifLogLike | undefined;
  if (!sarif || maxBytes === undefined || !Number.isFinite(maxBytes)) return result;
  const { sarif: _sarif, ...rest } = result;
  const others = Buffer.byteLength(JSON.stringify(rest));
  // The rest of the result is cut by the engine when it is too large itself: the log gets at least half.
  const budget = Math.max(Math.floor(maxBytes / 2), maxBytes - others - RESULT_RESERVE_BYTES);
  const { log, fit } = fitSarif(sarif, budget, {
    trace_id: traceId,
    capBytes: maxBytes,
    hint,
  });
  if (!fit) return result;
  const notes = Array.isArray(result.notes) ? [...(result.notes as string[])] : [];
  notes.push(
    `sarif holds ${fit.results_kept} of ${fit.results_total} results (the most severe) to fit --max-result-bytes ${maxBytes}: ${traceId ? `trace ${traceId} holds them all` : hint === RETAIN_HINT ? "retain: true keeps them all in a trace" : hint}`,
  );
  return { ...rest, sarif: log, truncated: true, sarif_truncated: fit, notes };
}

/**
 * A tool that reports findings, with `retain`: when it (or --retain-traces) asks, the run's SARIF log is kept
 * as a trace and the result names its `trace_id`; `sarif` stays in the result only when `output` asked for it,
 * fitted to the result cap (the trace keeps every result). A trace that cannot be written is a note, never a
 * failed call.
 *
 * A trace is a write under `.mcp-cache/`, and annotations are the tool's, not the call's: a read-only tool
 * takes `retain` only when --retain-traces is `per-call` or `true`, and is then listed as not read-only
 * (`persists_traces`); with `false` it stays read-only and has no `retain` (its `sarif` is fitted all the
 * same). Tools that write take it always.
 */
export function retainable(tool: ToolDefinition, mode?: RetainMode): ToolDefinition;
export function retainable(tool: ToolDefinition | undefined, mode?: RetainMode): ToolDefinition | undefined;
export function retainable(
  tool: ToolDefinition | undefined,
  mode: RetainMode = "off",
): ToolDefinition | undefined {
  if (!tool) return undefined;
  if (!("output" in tool.input.shape)) throw new Error(`${tool.name} has no output argument to retain`);
  const readOnly = tool.annotations.readOnlyHint === true;
  if (readOnly && mode === "off")
    return {
      ...tool,
      async handler(args, ctx) {
        return fitSarifField(await tool.handler(args, ctx), ctx.maxResultBytes, undefined, RETAIN_OFF_HINT);
      },
    };
  const traits = traitsOf(tool);
  return {
    ...tool,
    ...(readOnly && {
      // Each retained call writes a new trace: not read-only, not idempotent, destroys nothing.
      annotations: {
        ...tool.annotations,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
      },
    }),
    ...(traits && { traits: { ...traits, persists_traces: true } }),
    input: tool.input.extend({ retain: RETAIN_ARG }),
    async handler(args, ctx) {
      const { retain, ...rest } = args as Record<string, unknown>;
      if (!(retain ?? ctx.config.retainTraces === "all"))
        return fitSarifField(await tool.handler(rest, ctx), ctx.maxResultBytes, undefined);
      const result = await tool.handler({ ...rest, output: "sarif" }, ctx);
      const sarif = result.sarif as Record<string, unknown> | undefined;
      if (!result.success || !sarif) return result;
      if (rest.output !== "sarif") delete result.sarif;
      const notes = Array.isArray(result.notes) ? [...(result.notes as string[])] : [];
      const root = sarifRoot(sarif);
      if (!root || !ctx.allowlist.rootOf(root)) {
        notes.push("the run was not retained: its project root is not inside the allowed paths");
        return fitSarifField({ ...result, notes }, ctx.maxResultBytes, undefined);
      }
      const { output: _output, ...called } = rest;
      const id = newTraceId(tool.name, new Date());
      const meta: TraceMeta = {
        trace_id: id,
        created: new Date().toISOString(),
        tool: tool.name,
        arguments: called,
      };
      const content = JSON.stringify({
        ...sarif,
        properties: { ...(sarif.properties as object | undefined), [TRACE_PROPERTY]: meta },
      });
      try {
        const kept = await retainTrace(root, id, content, {
          maxCount: ctx.config.traceMaxCount,
          maxBytes: ctx.config.traceMaxBytes,
        });
        if (kept.dropped.length)
          notes.push(`${kept.dropped.length} older trace(s) dropped to stay within the retention limits`);
        return fitSarifField(
          { ...result, trace_id: id, trace_file: path.relative(root, kept.file), notes },
          ctx.maxResultBytes,
          id,
        );
      } catch (err) {
        notes.push(`the run was not retained: ${err instanceof Error ? err.message : String(err)}`);
        return fitSarifField({ ...result, notes }, ctx.maxResultBytes, undefined);
      }
    },
  };
}
