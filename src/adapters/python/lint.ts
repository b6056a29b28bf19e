/** Python linters: ruff (CLI, else embedded) and flake8. */
import path from "node:path";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { parseLintLines } from "../lint-lines.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { flake8ConfigArgs } from "./config-discovery.js";
import { selectPythonFiles } from "./file-selection.js";
import { flake8Args } from "./flake8.js";
import { embeddedCall, embeddedNote, embeddedRuff } from "./format.js";
import { discoverPythonFiles, RUFF_DEFAULT_EXCLUDES } from "./python-files.js";
import { ruffCheckArgs } from "./ruff-cli.js";
import { checkRuffCliScope, ruffCliScope } from "./ruff-cli-scope.js";
import { displayPath } from "./ruff-embedded.js";
import { ruffScope } from "./ruff-fix.js";
import { resolvePythonTool } from "./resolve.js";
import { parseToolWarnings } from "./tool-warnings.js";
import { findExcludedDirs, projectFirst, VENDORED_DIR_NAMES } from "./tree-excludes.js";

/**
 * Arguments of `lint` that only ESLint understands. Given to a Python linter they are refused rather
 * than silently ignored.
 */
function refuseUnsupported(req: LintRequest, linter: string): void {
  if (req.args.format !== undefined)
    throw new ToolError(
      "invalid_input",
      `argument "format" is not supported by ${linter} (it shapes eslint's files[] view); leave it out`,
    );
}

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
  const parsed = parseLintLines(run.stdout).map((l) =>
    path.isAbsolute(l.file)
      ? { file: l.file, text: `${displayPath(l.file, ctx.config.cwd)}${l.text.slice(l.file.length)}` }
      : { file: path.resolve(ctx.config.cwd, l.file), text: l.text },
  );
  const base = ctx.allowlist.rootOf(target) ?? target;
  const issues = projectFirst(parsed, (p) => p.file, base).map((p) => p.text);
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
    notes: [...(cli.note ? [cli.note] : []), ...parseToolWarnings(run.stderr, program)],
  };
}

/** The targets of a ruff run: the `files` given (resolved and checked), else the path. */
function ruffTargets(ctx: ToolContext, req: LintRequest): string[] {
  const files = req.args.files as string[] | undefined;
  if (!files?.length) return [req.target];
  return ruffScope(ctx, { target: req.target, files, config: req.config });
}

async function ruffLint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  refuseUnsupported(req, "ruff");
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const targets = ruffTargets(ctx, req);
  const cli = resolvePythonTool(ctx, "ruff", req.target);
  if (cli.executable) {
    checkRuffCliScope(req.target, root, req.config);
    const args = ruffCheckArgs(targets, ruffCliScope(req.target, root, req.config));
    return runLineLinter(ctx, "ruff", args, req.target);
  }
  const ruff = embeddedRuff(ctx);
  const result = await ruff.lint(req.target, root, ctx.config.cwd, req.config, embeddedCall(ctx), targets);
  const notes = [
    embeddedNote(ruff),
    "the embedded build does not say which fixes are safe, so issues carry no [*] marker",
  ];
  if (result.settingsSource) notes.push(`settings from ${result.settingsSource}`);
  const issues = projectFirst(
    result.issues,
    (i) => path.resolve(ctx.config.cwd, parseLintLines(i)[0]?.file ?? i),
    root,
  );
  return {
    issues,
    command: `${displayCommand("ruff", ruffCheckArgs(targets, { configArgs: req.config ? ["--config", req.config] : [] }))} (embedded)`,
    returncode: result.issues.length ? 1 : 0,
    notes,
  };
}

/** Python files under a folder as flake8 would walk them, with the server's default excludes. */
function flake8Files(dir: string, root: string): string[] {
  const settings = {
    source: undefined,
    baseDir: dir,
    workspaceOptions: {},
    exclude: [...new Set([...RUFF_DEFAULT_EXCLUDES, ...VENDORED_DIR_NAMES])],
    extendExclude: [],
    respectGitignore: true,
    perFileIgnores: {},
  };
  return discoverPythonFiles(dir, settings, root);
}

async function flake8Lint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  refuseUnsupported(req, "flake8");
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const files = req.args.files as string[] | undefined;
  const targets = files?.length
    ? selectPythonFiles(ctx, req.target, files, (d) => flake8Files(d, root), "flake8")
    : [req.target];
  const excluded = findExcludedDirs(req.target, root);
  const args = flake8Args(targets, {
    configArgs: flake8ConfigArgs(req.target, root, req.config),
    extendExclude: excluded.dirs,
  });
  const outcome = await runLineLinter(ctx, "flake8", args, req.target);
  if (excluded.capped)
    outcome.notes.push(`more than ${excluded.dirs.length} folders to exclude: the rest are left to flake8`);
  return outcome;
}

registerLinter({ name: "ruff", languages: ["python"], lint: ruffLint });
registerLinter({ name: "flake8", languages: ["python"], lint: flake8Lint });
