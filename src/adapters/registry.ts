/**
 * The external programs the server can run, for get_status: how to find each one and ask its version.
 * Adapters add their tools here; probes run concurrently with a 10 s cap each.
 */
import { ProgramNotFoundError, runBounded } from "../exec/runner.js";
import type { SandboxRun } from "../exec/sandbox/launch.js";

export interface ExternalTool {
  /** Name shown in get_status. */
  name: string;
  program: string;
  versionArgs: string[];
  /** Extracts a version from `program versionArgs` output; default: the first x.y[.z]. */
  parseVersion?: (output: string) => string | undefined;
  /** A tool of a toolchain whose version is the toolchain's (gofmt: go's), for SARIF's driver. */
  versionFrom?: string;
}

export interface ProbeResult {
  available: boolean;
  version?: string;
  path?: string;
  reason?: string;
}

const tools: ExternalTool[] = [];

export function registerExternalTool(tool: ExternalTool): void {
  if (!tools.some((t) => t.name === tool.name)) tools.push(tool);
}

export function externalTools(): readonly ExternalTool[] {
  return tools;
}

export function firstVersion(output: string): string | undefined {
  return /\d+\.\d+(?:\.\d+)?(?:[-.+][\w.]+)?/.exec(output)?.[0];
}

export async function probe(
  tool: ExternalTool,
  cwd: string,
  sandbox?: SandboxRun,
  timeoutMs = 10_000,
): Promise<ProbeResult> {
  try {
    const run = await runBounded({
      program: tool.program,
      args: tool.versionArgs,
      cwd,
      timeoutMs,
      maxOutputBytes: 16_384,
      killGraceMs: 200,
      sandbox,
    });
    if (run.timedOut)
      return { available: false, path: run.executable, reason: `no answer within ${timeoutMs / 1000} s` };
    const version = (tool.parseVersion ?? firstVersion)(`${run.stdout}\n${run.stderr}`);
    if (run.returncode !== 0 && !version)
      return {
        available: false,
        path: run.executable,
        reason: `exited ${run.returncode}: ${run.stderr.trim().slice(0, 200)}`,
      };
    return { available: true, version: version ?? "unknown", path: run.executable };
  } catch (err) {
    if (err instanceof ProgramNotFoundError) return { available: false, reason: "not found on PATH" };
    return { available: false, reason: err instanceof Error ? err.message : String(err) };
  }
}
