/**
 * A minimal mypy type checker (registered as "mypy") so fix_all can verify Python fixes. mypy writes
 * no cache (`--cache-dir /dev/null`): a verification must not write into the project it verifies.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../engine/errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding, Severity } from "../../findings/model.js";
import { registerExternalTool } from "../registry.js";
import { registerTypeChecker, type TypeCheckOutcome, type TypeCheckRequest } from "../type-checkers.js";
import { resolvePythonTool } from "./resolve.js";

registerExternalTool({ name: "mypy", program: "mypy", versionArgs: ["--version"] });

export function mypyArgs(target: string, opts: { strict?: boolean; config?: string } = {}): string[] {
  return [
    "--no-color-output",
    "--no-error-summary",
    "--no-pretty",
    "--show-column-numbers",
    "--show-error-codes",
    "--cache-dir",
    "/dev/null",
    ...(opts.strict ? ["--strict"] : []),
    ...(opts.config ? ["--config-file", opts.config] : []),
    "--",
    target,
  ];
}

const LINE = /^(.+?):(\d+):(?:(\d+):)? (error|warning|note): (.*?)(?:\s{2}\[([\w-]+)\])?$/;

/** mypy's `file:line:col: severity: message  [code]` lines as findings (files resolved against cwd). */
export function parseMypy(output: string, cwd: string): Finding[] {
  const out: Finding[] = [];
  for (const raw of output.split("\n")) {
    const m = LINE.exec(raw.trimEnd());
    if (!m) continue;
    const kind = m[4] as string;
    const severity: Severity = kind === "note" ? "info" : (kind as Severity);
    out.push({
      tool: "mypy",
      file: path.resolve(cwd, m[1] as string),
      line: Number(m[2]),
      column: m[3] ? Number(m[3]) : 0,
      rule_id: m[6] ?? (kind === "note" ? "note" : "mypy"),
      severity,
      message: m[5] as string,
    });
  }
  return out;
}

async function mypyCheck(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const cli = resolvePythonTool(ctx, "mypy", req.target);
  const args = mypyArgs(req.target, { strict: req.strict, config: req.config });
  const command = displayCommand("mypy", args);
  // mypy reads mypy.ini / setup.cfg / pyproject.toml from its working directory.
  const cwd = fs.statSync(req.target).isDirectory() ? req.target : path.dirname(req.target);
  const run = await ctx.run({ program: cli.executable ?? "mypy", args, cwd });
  const findings = parseMypy(run.stdout, cwd);
  // Exit 2 with diagnostics is a blocking error in the code (e.g. a syntax error): a failed check, not a crash.
  if (run.returncode !== 0 && run.returncode !== 1 && findings.length === 0)
    throw new ToolError("tool_error", `mypy failed (exit ${run.returncode}); see output`, {
      command,
      returncode: run.returncode,
      output: combinedOutput(run.stdout, run.stderr),
      truncated: run.truncated,
    });
  return {
    findings,
    command,
    returncode: run.returncode,
    output: combinedOutput(run.stdout, run.stderr),
    truncated: run.truncated,
    notes: cli.note ? [cli.note] : [],
    passed: run.returncode === 0,
  };
}

registerTypeChecker({ name: "mypy", languages: ["python"], check: mypyCheck });
