/** Python linters: ruff (CLI, else embedded) and flake8. */
import path from "node:path";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { parseLintLines } from "../lint-lines.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { flake8Args } from "./flake8.js";
import { embeddedCall, embeddedNote, embeddedRuff } from "./format.js";
import { ruffCheckArgs } from "./ruff-cli.js";
import { checkRuffCliScope } from "./ruff-cli-scope.js";
import { displayPath } from "./ruff-embedded.js";
import { resolvePythonTool } from "./resolve.js";

/** Shared shape of a CLI linter run: issues parsed from lines; a failure with none parsed is a tool_error. */
async function runLineLinter(
  ctx: ToolContext,
  program: string,
  args: string[],
  target: string,
): Promise<LintOutcome> {
  const cli = resolvePythonTool(ctx, program, target);
  const command = displayCommand(program, args);
  const run = await ctx.run({ program: cli.executable ?? program, args });
  const output = combinedOutput(run.stdout, run.stderr);
  // Paths are shown relative to the server's working directory, as ruff prints them.
  const issues = parseLintLines(run.stdout).map((l) =>
    path.isAbsolute(l.file) ? `${displayPath(l.file, ctx.config.cwd)}${l.text.slice(l.file.length)}` : l.text,
  );
  if (run.returncode !== 0 && issues.length === 0)
    throw new ToolError(
      "tool_error",
      `${program} failed (exit ${run.returncode}) without reporting issues; see output`,
      {
        command,
        returncode: run.returncode,
        output,
        truncated: run.truncated,
      },
    );
  return {
    issues,
    command,
    returncode: run.returncode,
    truncated: run.truncated,
    notes: cli.note ? [cli.note] : [],
  };
}

async function ruffLint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const cli = resolvePythonTool(ctx, "ruff", req.target);
  if (cli.executable) {
    checkRuffCliScope(req.target, ctx.allowlist.rootOf(req.target) ?? req.target, req.config);
    return runLineLinter(ctx, "ruff", ruffCheckArgs(req.target, req.config), req.target);
  }
  const ruff = embeddedRuff(ctx);
  const result = await ruff.lint(
    req.target,
    ctx.allowlist.rootOf(req.target) ?? req.target,
    ctx.config.cwd,
    req.config,
    embeddedCall(ctx),
  );
  const notes = [
    embeddedNote(ruff),
    "the embedded build does not say which fixes are safe, so issues carry no [*] marker",
  ];
  if (result.settingsSource) notes.push(`settings from ${result.settingsSource}`);
  return {
    issues: result.issues,
    command: `${displayCommand("ruff", ruffCheckArgs(req.target, req.config))} (embedded)`,
    returncode: result.issues.length ? 1 : 0,
    notes,
  };
}

registerLinter({ name: "ruff", languages: ["python"], lint: ruffLint });
registerLinter({
  name: "flake8",
  languages: ["python"],
  lint: (ctx, req) => runLineLinter(ctx, "flake8", flake8Args(req.target, req.config), req.target),
});
