/** Runs `npm audit` on a lockfile and reads its report: shared by audit_dependencies and security_scan. */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { looksLikeNetworkFailure, type Vulnerability } from "../dependency-audit.js";
import { lockVersions, npmAuditArgs, parseNpmAuditJson } from "./npm-audit.js";

export const NPM_LOCKFILES = ["package-lock.json", "npm-shrinkwrap.json"];

/** The npm lockfile in a directory, if any. */
export function npmLockfileIn(dir: string): string | undefined {
  return NPM_LOCKFILES.map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
}

/** A tool that could not reach its vulnerability service: nothing was audited. */
export function networkError(
  tool: string,
  where: string,
  caller: string,
  extra: Record<string, unknown>,
): ToolError {
  return new ToolError(
    "tool_error",
    `Network failure: ${tool} could not reach ${where}. ${caller} needs network access to the ` +
      "vulnerability database; nothing was audited.",
    { network_error: true, ...extra },
  );
}

export interface NpmAuditRun {
  command: string;
  returncode: number | null;
  vulnerabilities: Vulnerability[];
  truncated: boolean;
}

/** `npm audit --json --package-lock-only` in `projectDir`; a failure or an unreachable registry is a ToolError. */
export async function runNpmAudit(
  ctx: ToolContext,
  projectDir: string,
  lockfile: string,
  caller: string,
): Promise<NpmAuditRun> {
  const args = npmAuditArgs();
  const command = displayCommand("npm", args);
  const out: string[] = [];
  const run = await ctx.run({ program: "npm", args, cwd: projectDir, onStdoutLine: (l) => out.push(l) });
  const output = combinedOutput(run.stdout, run.stderr);
  const parsed = parseNpmAuditJson(out.join("\n"), lockVersions(fs.readFileSync(lockfile, "utf8")));
  const extra = { command, returncode: run.returncode, output, truncated: run.truncated };
  if (!parsed)
    throw new ToolError(
      "tool_error",
      `npm audit failed without a report (exit ${run.returncode}); see output`,
      extra,
    );
  if (parsed.kind === "error") {
    const registry = process.env.npm_config_registry ?? process.env.NPM_CONFIG_REGISTRY;
    if (looksLikeNetworkFailure(output))
      throw networkError(
        "npm audit",
        `the registry's audit endpoint${registry ? ` (${registry})` : ""}`,
        caller,
        extra,
      );
    throw new ToolError("tool_error", `npm audit failed: ${parsed.message}`, extra);
  }
  return {
    command,
    returncode: run.returncode,
    vulnerabilities: parsed.vulnerabilities,
    truncated: run.truncated,
  };
}
