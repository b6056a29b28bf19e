/** The `output` argument of the tools that report findings, and the SARIF log they add when asked. */
import { z } from "zod";
import type { DisplayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { sarifLog, TOOL_URIS } from "../../findings/sarif.js";
import { registeredVersion } from "../../adapters/tool-version.js";
import type { ToolContext } from "../../engine/tool.js";

export const OUTPUT_ARG = z
  .enum(["json", "sarif"])
  .default("json")
  .describe("json, or sarif (adds a SARIF 2.1.0 log)");

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
