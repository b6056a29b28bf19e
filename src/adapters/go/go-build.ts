/**
 * type_check with checker "go": `go build -json -gcflags=-e -o /dev/null <pattern>` compiles every package (all
 * type errors, not go vet's first one, and -e lifts the compiler's limit of 10) and discards what it builds, so
 * nothing is written into the project; go's build cache (outside the project) keeps repeated checks fast.
 */
import os from "node:os";
import path from "node:path";
import { displayCommand, runFailed, runReport } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding } from "../../findings/model.js";
import { registerTypeChecker, type TypeCheckOutcome, type TypeCheckRequest } from "../type-checkers.js";
import { findGoModule, packagePattern, requireGoModule } from "./go-env.js";
import { parseJsonLines } from "./go-json.js";
import { runGoTool } from "./go-run.js";

/** `go build -json -gcflags=-e -buildvcs=false -o /dev/null <pattern>`. */
export function goBuildArgs(pattern: string): string[] {
  return ["build", "-json", "-gcflags=-e", "-buildvcs=false", "-o", os.devNull, pattern];
}

const COMPILER_LINE = /^(.+?\.go):(\d+):(\d+): (.*)$/;

/** Compiler diagnostics from go build -json's `build-output` events; paths resolve against `cwd`. */
export function parseGoBuildJson(stdout: string, cwd: string): Finding[] {
  const findings: Finding[] = [];
  for (const ev of parseJsonLines(stdout)) {
    if (ev.Action !== "build-output" || typeof ev.Output !== "string") continue;
    for (const line of ev.Output.split("\n")) {
      const m = COMPILER_LINE.exec(line.trimEnd());
      if (!m) continue;
      findings.push({
        tool: "go",
        file: path.resolve(cwd, m[1] as string),
        line: Number(m[2]),
        column: Number(m[3]),
        rule_id: "compile",
        severity: "error",
        message: m[4] as string,
      });
    }
  }
  return findings;
}

async function check(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const mod = requireGoModule(req.target, ctx.allowlist.rootOf(req.target) ?? req.target, "go build");
  const args = goBuildArgs(packagePattern(req.target, mod));
  const command = displayCommand("go", args);
  const run = await runGoTool(ctx, "go", args, mod, command);
  const findings = parseGoBuildJson(run.stdout, mod);
  if (run.returncode !== 0 && findings.length === 0)
    throw runFailed(
      `go build failed (exit ${run.returncode}) without a compiler error; see output`,
      command,
      run,
    );
  const notes: string[] = [];
  if (req.strict) notes.push("strict has no meaning for the Go compiler: every diagnostic is an error");
  if (req.config) notes.push("the Go compiler takes no config file: config was not used");
  return {
    findings,
    ...runReport(command, run),
    notes,
    passed: run.returncode === 0,
  };
}

registerTypeChecker({
  name: "go",
  languages: ["go"],
  claims: (target) => target.endsWith(".go") || findGoModule(target, target) !== undefined,
  check,
});
