/**
 * The finding remediation_advice is about, from one of its three sources: a finding (as lint_check and the
 * findings model give it), one result of a SARIF log, or one result of a retained lint-run trace
 * (`.mcp-cache/lint-runs/<trace_id>.json`, read by a bare name only).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { ToolContext } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { lintRunsDir, parseTraceId, readTrace } from "../../../traces/lint-runs.js";
import type { AdviceFinding } from "../../../policy/advice/prompt.js";

/** Lines are bounded so the schema stays short (no 2^53 maximum). */
const lineNumber = z.number().int().min(0).max(10_000_000);

/** Other fields of a finding (column, severity, fingerprint...) are accepted and left out. */
export const FindingArg = z.object({
  tool: z.string().min(1),
  rule_id: z.string().min(1),
  message: z.string().optional(),
  path: z.string().optional(),
  line: lineNumber.optional(),
  end_line: lineNumber.optional(),
});

export interface LocatedFinding {
  finding: AdviceFinding;
  /** The file's path as given (resolved through the allowlist before anything reads it). */
  file?: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The file path a SARIF artifact location names: file URIs as paths, relative ones against their base. */
function sarifPath(location: Json | undefined, run: Json): string | undefined {
  const uri = typeof location?.uri === "string" ? location.uri : undefined;
  if (!uri) return undefined;
  if (uri.startsWith("file:")) return fileURLToPath(uri);
  const baseId = typeof location?.uriBaseId === "string" ? location.uriBaseId : undefined;
  const base = baseId ? obj(obj(run.originalUriBaseIds)?.[baseId])?.uri : undefined;
  if (typeof base === "string" && base.startsWith("file:"))
    return path.join(fileURLToPath(base), decodeURI(uri));
  return decodeURI(uri);
}

/** Result `index` of a SARIF log, counted across its runs in order. */
export function fromSarif(log: Json, index: number): LocatedFinding {
  let seen = 0;
  for (const r of arr(log.runs)) {
    const run = obj(r) ?? {};
    const results = arr(run.results);
    if (index >= seen + results.length) {
      seen += results.length;
      continue;
    }
    const result = obj(results[index - seen]) ?? {};
    const driver = obj(obj(run.tool)?.driver) ?? {};
    const rules = arr(driver.rules);
    const ruleIndex = typeof result.ruleIndex === "number" ? result.ruleIndex : -1;
    const rule =
      (typeof result.ruleId === "string" ? result.ruleId : undefined) ??
      (obj(rules[ruleIndex])?.id as string | undefined);
    const physical = obj(obj(arr(result.locations)[0])?.physicalLocation);
    const region = obj(physical?.region);
    const file = sarifPath(obj(physical?.artifactLocation), run);
    const num = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined);
    if (!rule) throw new ToolError("invalid_input", `SARIF result ${index} names no rule`);
    return {
      finding: {
        tool: typeof driver.name === "string" ? driver.name : "unknown",
        rule_id: rule,
        message:
          typeof obj(result.message)?.text === "string" ? (obj(result.message)?.text as string) : undefined,
        path: file,
        line: num(region?.startLine),
        end_line: num(region?.endLine),
        column: num(region?.startColumn),
        severity: typeof result.level === "string" ? result.level : undefined,
      },
      file,
    };
  }
  throw new ToolError("invalid_input", `result_index ${index} is past the ${seen} results of the SARIF log`);
}

/**
 * A retained lint-run trace (`.mcp-cache/lint-runs/<trace_id>.json`, a SARIF log the `retain` argument
 * writes), read by the SARIF tools' own reader: a bare id only, no link followed, size capped. The first
 * allowed root that has it answers.
 */
export function fromTrace(ctx: ToolContext, traceId: string, index: number): LocatedFinding {
  const id = parseTraceId(traceId);
  for (const root of ctx.allowlist.roots.effective) {
    if (!fs.existsSync(path.join(lintRunsDir(root), `${id}.json`))) continue;
    let log: Json | undefined;
    try {
      log = obj(JSON.parse(readTrace(root, id, ctx.config.sarifMaxBytes)));
    } catch (e) {
      if (e instanceof SyntaxError) throw new ToolError("invalid_input", `lint-run trace ${id} is not JSON`);
      throw e;
    }
    if (!log || !Array.isArray(log.runs))
      throw new ToolError("invalid_input", `lint-run trace ${id} is not a SARIF log`);
    return fromSarif(log, index);
  }
  throw new ToolError(
    "invalid_input",
    `no lint-run trace ${id} in .mcp-cache/lint-runs/ of the allowed paths`,
  );
}
