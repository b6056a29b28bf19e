/**
 * type_check with checker "go": `go build -json -o /dev/null <pattern>` compiles every package (all type
 * errors, not go vet's first one) and discards what it builds, so nothing is written into the project; go's
 * build cache (outside the project) keeps repeated checks fast. The compiler stops after 10 errors of a
 * package ("too many errors"): only then is the build repeated with -gcflags=-e, which lifts that limit. Not
 * always: -e makes other cache keys than every other go command's, so a build after golangci-lint or go vet
 * compiled all that they had just compiled (issue 42: 1.1 s of a fresh check of spf13/cobra after an edit,
 * ~0.1 s without).
 */
import os from "node:os";
import { displayCommand, runFailed, runReport } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding } from "../../findings/model.js";
import { registerTypeChecker, type TypeCheckOutcome, type TypeCheckRequest } from "../type-checkers.js";
import { findGoModule, packagePattern, requireGoModule } from "./go-env.js";
import { parseJsonLines } from "../json-lines.js";
import { goComplaint, runGoTool } from "./go-run.js";
import { COMPILER_LINE, positionLineFindings } from "./position-lines.js";

/** `go build -json -buildvcs=false -o /dev/null <pattern>`, with `-gcflags=-e` when `allErrors`. */
export function goBuildArgs(pattern: string, allErrors = false): string[] {
  return [
    "build",
    "-json",
    ...(allErrors ? ["-gcflags=-e"] : []),
    "-buildvcs=false",
    "-o",
    os.devNull,
    pattern,
  ];
}

/** The compiler's last line when it stopped at its limit of errors (`./a.go:12:2: too many errors`). */
const TOO_MANY = /^\S+:\d+(?::\d+)?: too many errors$/m;

/** Did the compiler stop reporting a package's errors at its limit? */
export function stoppedAtErrorLimit(stdout: string): boolean {
  return parseJsonLines(stdout).some(
    (ev) => ev.Action === "build-output" && typeof ev.Output === "string" && TOO_MANY.test(ev.Output),
  );
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
  const pattern = packagePattern(req.target, mod);
  let args = goBuildArgs(pattern);
  let command = displayCommand("go", args);
  let run = await runGoTool(ctx, "go", args, mod, command);
  if (run.returncode !== 0 && stoppedAtErrorLimit(run.stdout)) {
    args = goBuildArgs(pattern, true);
    command = displayCommand("go", args);
    run = await runGoTool(ctx, "go", args, mod, command);
  }
  const findings = parseGoBuildJson(run.stdout, mod);
  if (run.returncode !== 0 && findings.length === 0) {
    const why = goComplaint(run.stderr);
    throw runFailed(
      `go build failed (exit ${run.returncode}) without a compiler error${why ? `: ${why}` : "; see output"}`,
      command,
      run,
    );
  }
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
