/**
 * type_check with checker "go": `go build -json -gcflags=-e -o /dev/null <pattern>` compiles every package (all
 * type errors, not go vet's first one, and -e lifts the compiler's limit of 10) and discards what it builds, so
 * nothing is written into the project; go's build cache (outside the project) keeps repeated checks fast.
 */
import os from "node:os";
import { displayCommand, runFailed, runReport } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding } from "../../findings/model.js";
import { registerTypeChecker, type TypeCheckOutcome, type TypeCheckRequest } from "../type-checkers.js";
import { findGoModule, packagePattern, requireGoModule } from "./go-env.js";
import { parseJsonLines } from "../json-lines.js";
import { runGoTool } from "./go-run.js";
import { COMPILER_LINE, positionLineFindings } from "./position-lines.js";

/** `go build -json -gcflags=-e -buildvcs=false -o /dev/null <pattern>`. */
export function goBuildArgs(pattern: string): string[] {
  return ["build", "-json", "-gcflags=-e", "-buildvcs=false", "-o", os.devNull, pattern];
}

/** How the compiler's diagnostics are reported: every one is an error that stops the build. */
const COMPILE_ERROR = { tool: "go", rule_id: "compile", severity: "error" } as const;

/** Compiler diagnostics from go build -json's `build-output` events; paths resolve against `cwd`. */
export function parseGoBuildJson(stdout: string, cwd: string): Finding[] {
  return parseJsonLines(stdout).flatMap((ev) =>
    ev.Action === "build-output" && typeof ev.Output === "string"
      ? positionLineFindings(ev.Output, cwd, COMPILER_LINE, COMPILE_ERROR)
      : [],
  );
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
