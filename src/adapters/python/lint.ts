/** Python linters: ruff (CLI, else embedded) and flake8, their findings read from the whole output. */
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding } from "../../findings/model.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { cachedVersion } from "../tool-version.js";
import { flake8Args } from "./flake8.js";
import { parseFlake8Line } from "./flake8-findings.js";
import { embeddedNote, embeddedRuff } from "./format.js";
import { parseRuffJsonLine, ruffCheckArgs } from "./ruff-cli.js";
import { checkRuffCliScope } from "./ruff-cli-scope.js";
import { resolvePythonTool } from "./resolve.js";

/**
 * Shared shape of a CLI linter run: every stdout line goes to the parser as it arrives, so counts are
 * exact however long the output; a failure with no finding parsed is a tool_error.
 */
async function runStreamingLinter(
  ctx: ToolContext,
  program: string,
  args: string[],
  target: string,
  parseLine: (line: string, cwd: string) => Finding | undefined,
): Promise<LintOutcome> {
  const cli = resolvePythonTool(ctx, program, target);
  const command = displayCommand(program, args);
  const findings: Finding[] = [];
  const cwd = ctx.config.cwd;
  const run = await ctx.run({
    program: cli.executable ?? program,
    args,
    onStdoutLine: (line) => {
      const f = parseLine(line, cwd);
      if (f) findings.push(f);
    },
  });
  if (run.returncode !== 0 && findings.length === 0)
    throw new ToolError(
      "tool_error",
      `${program} failed (exit ${run.returncode}) without reporting issues; see output`,
      {
        command,
        returncode: run.returncode,
        output: combinedOutput(run.stdout, run.stderr),
        truncated: run.truncated,
      },
    );
  const executable = run.executable;
  return {
    findings,
    tool: program,
    version: () => cachedVersion(ctx, executable),
    command,
    returncode: run.returncode,
    // Findings were read in full; no raw output is returned, so nothing shown was cut.
    notes: cli.note ? [cli.note] : [],
  };
}

async function ruffLint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const cli = resolvePythonTool(ctx, "ruff", req.target);
  if (cli.executable) {
    checkRuffCliScope(req.target, ctx.allowlist.rootOf(req.target) ?? req.target, req.config);
    return runStreamingLinter(
      ctx,
      "ruff",
      ruffCheckArgs(req.target, req.config),
      req.target,
      parseRuffJsonLine,
    );
  }
  const ruff = embeddedRuff(ctx);
  const result = ruff.lint(req.target, ctx.allowlist.rootOf(req.target) ?? req.target, req.config);
  const notes = [
    embeddedNote(ruff),
    "the embedded build does not say which fixes are safe, so issues carry no [*] marker",
  ];
  if (result.settingsSource) notes.push(`settings from ${result.settingsSource}`);
  return {
    findings: result.findings,
    tool: "ruff",
    version: () => Promise.resolve(ruff.version()),
    command: `${displayCommand("ruff", ruffCheckArgs(req.target, req.config))} (embedded)`,
    returncode: result.findings.length ? 1 : 0,
    notes,
  };
}

registerLinter({ name: "ruff", languages: ["python"], lint: ruffLint });
registerLinter({
  name: "flake8",
  languages: ["python"],
  lint: (ctx, req) =>
    runStreamingLinter(ctx, "flake8", flake8Args(req.target, req.config), req.target, parseFlake8Line),
});
