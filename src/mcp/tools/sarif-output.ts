/** The `output` argument of the tools that report findings, and the SARIF log they add when asked. */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { DisplayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { sarifLog, SRCROOT, TOOL_URIS } from "../../findings/sarif.js";
import { registeredVersion } from "../../adapters/tool-version.js";
import type { ToolContext, ToolDefinition } from "../../engine/tool.js";
import { newTraceId, retainTrace, TRACE_PROPERTY, type TraceMeta } from "../../traces/lint-runs.js";

export const OUTPUT_ARG = z.enum(["json", "sarif"]).default("json");

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
      version: r.version ? await r.version() : await registeredVersion(ctx, r.tool),
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

export const RETAIN_ARG = z.boolean().optional().describe("Keep a trace");

/** The project root a SARIF log of ours is about (its %SRCROOT%). */
function sarifRoot(sarif: unknown): string | undefined {
  const run = (sarif as { runs?: { originalUriBaseIds?: Record<string, { uri?: string }> }[] }).runs?.[0];
  const uri = run?.originalUriBaseIds?.[SRCROOT]?.uri;
  return uri?.startsWith("file:") ? fileURLToPath(uri).replace(/\/$/, "") || "/" : undefined;
}

/**
 * A tool that reports findings, with `retain`: when it (or --retain-traces) asks, the run's SARIF log is kept
 * as a trace and the result names its `trace_id`; `sarif` stays in the result only when `output` asked for it.
 * A trace that cannot be written is a note, never a failed call.
 */
export function retainable(tool: ToolDefinition): ToolDefinition;
export function retainable(tool: ToolDefinition | undefined): ToolDefinition | undefined;
export function retainable(tool: ToolDefinition | undefined): ToolDefinition | undefined {
  if (!tool) return undefined;
  if (!("output" in tool.input.shape)) throw new Error(`${tool.name} has no output argument to retain`);
  return {
    ...tool,
    input: tool.input.extend({ retain: RETAIN_ARG }),
    async handler(args, ctx) {
      const { retain, ...rest } = args as Record<string, unknown>;
      if (!(retain ?? ctx.config.retainTraces)) return tool.handler(rest, ctx);
      const result = await tool.handler({ ...rest, output: "sarif" }, ctx);
      const sarif = result.sarif as Record<string, unknown> | undefined;
      if (!result.success || !sarif) return result;
      if (rest.output !== "sarif") delete result.sarif;
      const notes = Array.isArray(result.notes) ? [...(result.notes as string[])] : [];
      const root = sarifRoot(sarif);
      if (!root || !ctx.allowlist.rootOf(root)) {
        notes.push("the run was not retained: its project root is not inside the allowed paths");
        return { ...result, notes };
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
        return { ...result, trace_id: id, trace_file: path.relative(root, kept.file), notes };
      } catch (err) {
        notes.push(`the run was not retained: ${err instanceof Error ? err.message : String(err)}`);
        return { ...result, notes };
      }
    },
  };
}
