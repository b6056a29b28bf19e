/** Python linters: ruff (CLI, else embedded) and flake8, their findings read from the whole output. */
import path from "node:path";
import { ToolError } from "../../errors.js";
import { byPosition } from "../../findings/model.js";
import { FINDINGS_ONLY, type InlineSource } from "../lint-options.js";
import { wasmFinding } from "./ruff-embedded.js";
import { loadRuffSettings } from "./ruff-settings.js";
import { ruffStdinArgs } from "./ruff-stdin.js";
import { combinedOutput, displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding } from "../../findings/model.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { FindingCollector, keptFor, overflowNote } from "../../findings/collector.js";
import { inLintScope } from "../rule-scope.js";
import { cachedVersion } from "../tool-version.js";
import { flake8ConfigArgs, ruffConfigArgs } from "./config-discovery.js";
import { RUFF_CAPABILITIES } from "./ruff-capabilities.js";
import { selectPythonFiles } from "./file-selection.js";
import { flake8Args } from "./flake8.js";
import { isPythonFile, preCommitFiles } from "../pre-commit-files.js";
import { parseFlake8Line } from "./flake8-findings.js";
import { embeddedCall, embeddedNote, embeddedRuff, embeddedStubNote } from "./format.js";
import { discoverPythonFiles, RUFF_DEFAULT_EXCLUDES } from "./python-files.js";
import { parseRuffJsonLine, ruffCheckArgs } from "./ruff-cli.js";
import { checkRuffCliScope, ruffCliScope } from "./ruff-cli-scope.js";
import { ruffScope } from "./ruff-fix-results.js";
import { resolvePythonTool } from "./resolve.js";
import { cachedRuffLint } from "./ruff-cached.js";
import { cachedEmbeddedLint, embeddedRuffJob } from "./ruff-embedded-cached.js";
import { resultCacheOf } from "../../cache/service.js";
import { parseToolWarnings } from "./tool-warnings.js";
import { findExcludedDirs, projectFirst, VENDORED_DIR_NAMES } from "./tree-excludes.js";

/**
 * Shared shape of a CLI linter run: every stdout line goes to the parser as it arrives, so counts are
 * exact however long the output; a failure with no finding parsed is a tool_error.
 */
export async function runStreamingLinter(
  ctx: ToolContext,
  program: string,
  args: string[],
  req: LintRequest,
  parseLine: (line: string, cwd: string) => Finding | undefined,
): Promise<LintOutcome> {
  const target = req.target;
  const cli = resolvePythonTool(ctx, program, target);
  const command = displayCommand(program, args);
  // Memory stays bounded however much the tool prints: what a result can list is kept, the rest counted.
  const found = new FindingCollector(keptFor(req.args), inLintScope(req.options));
  const cwd = ctx.config.cwd;
  const run = await ctx.run({
    program: cli.executable ?? program,
    args,
    onStdoutLine: (line) => {
      const f = parseLine(line, cwd);
      if (f) found.push(f);
    },
  });
  const base = ctx.allowlist.rootOf(target) ?? target;
  // The project's own files first, vendored copies after.
  const findings = projectFirst(found.kept, (f) => f.file, base);
  const beyond = found.overflow();
  if (run.returncode !== 0 && found.total === 0)
    throw runFailed(
      `${program} failed (exit ${run.returncode}) without reporting issues; see output`,
      command,
      run,
    );
  const executable = run.executable;
  return {
    findings,
    ...(beyond && { beyond }),
    tool: program,
    version: () => cachedVersion(ctx, executable),
    command,
    returncode: run.returncode,
    // Findings were read in full; no raw output is returned, so nothing shown was cut.
    notes: [
      ...(cli.note ? [cli.note] : []),
      ...parseToolWarnings(run.stderr, program),
      ...overflowNote(program, findings.length, beyond),
    ],
  };
}

/** The targets of a ruff run: the `files` given (resolved and checked), else the path. */
function ruffTargets(ctx: ToolContext, req: LintRequest): string[] {
  const files = req.args.files as string[] | undefined;
  if (!files?.length) return [req.target];
  return ruffScope(ctx, { target: req.target, files, config: req.config });
}

/** Inline code, linted as the file it names (that file's settings and per-file ignores apply). */
async function ruffLintInline(
  ctx: ToolContext,
  req: LintRequest,
  source: InlineSource,
): Promise<LintOutcome> {
  const root = ctx.allowlist.rootOf(source.path) ?? path.dirname(source.path);
  const cli = resolvePythonTool(ctx, "ruff", req.target);
  if (cli.executable) {
    const args = ruffStdinArgs(source.path, {
      mode: "report",
      configArgs: ruffConfigArgs(source.path, root, req.config),
    });
    const found: Finding[] = [];
    const run = await ctx.run({
      program: cli.executable,
      args,
      stdin: source.code,
      onStdoutLine: (line) => {
        const f = parseRuffJsonLine(line, ctx.config.cwd);
        if (f) found.push(f);
      },
    });
    const command = displayCommand("ruff", args);
    if (run.returncode !== 0 && run.returncode !== 1)
      throw new ToolError(
        "tool_error",
        `ruff failed on the inline code (exit ${run.returncode}); see output`,
        {
          command,
          returncode: run.returncode,
          output: combinedOutput(run.stdout, run.stderr),
        },
      );
    const executable = run.executable;
    return {
      findings: found.map((f) => ({ ...f, file: source.path })),
      tool: "ruff",
      version: () => cachedVersion(ctx, executable),
      command,
      returncode: run.returncode,
      notes: [...(cli.note ? [cli.note] : []), ...parseToolWarnings(run.stderr, "ruff")],
    };
  }
  const ruff = embeddedRuff(ctx);
  const settings = loadRuffSettings(source.path, root, req.config, ctx.config.cwd);
  const diagnostics = await ruff.check(settings, source.path, source.code, embeddedCall(ctx));
  const findings = diagnostics.map((d) => wasmFinding(source.path, d)).sort(byPosition);
  return {
    findings,
    tool: "ruff",
    version: () => Promise.resolve(ruff.version()),
    command: `${displayCommand("ruff", ruffStdinArgs(source.path, { mode: "report", configArgs: req.config ? ["--config", req.config] : [] }))} (embedded)`,
    returncode: findings.length ? 1 : 0,
    notes: [embeddedNote(ruff), ...(settings.source ? [`settings from ${settings.source}`] : [])],
  };
}

async function ruffLint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  if (req.options?.source) return ruffLintInline(ctx, req, req.options.source);
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const targets = ruffTargets(ctx, req);
  const cli = resolvePythonTool(ctx, "ruff", req.target);
  if (cli.executable) {
    checkRuffCliScope(req.target, root, req.config);
    const scope = ruffCliScope(req.target, root, req.config);
    const cache = resultCacheOf(ctx);
    if (!cache) return runStreamingLinter(ctx, "ruff", ruffCheckArgs(targets, scope), req, parseRuffJsonLine);
    const run = { executable: cli.executable, note: cli.note, targets, scope, root, config: req.config };
    return cachedRuffLint(ctx, cache, run, (args) =>
      runStreamingLinter(ctx, "ruff", args, req, parseRuffJsonLine),
    );
  }
  const ruff = embeddedRuff(ctx);
  const cache = resultCacheOf(ctx);
  let result: { findings: Finding[]; settingsSource: string | undefined; files: readonly string[] };
  let marker: LintOutcome["cache"];
  if (cache) {
    // The files as the uncached lint picks them: the `files` given, else the discovery under the target.
    const where = { target: req.target, root, config: req.config };
    const job = embeddedRuffJob(ruff, embeddedCall(ctx), where, targets);
    const outcome = await cachedEmbeddedLint(cache, job);
    result = { findings: outcome.findings, settingsSource: job.settings.source, files: job.files };
    marker = outcome.cache;
  } else result = await ruff.lint(req.target, root, req.config, embeddedCall(ctx), targets);
  const notes = [
    embeddedNote(ruff),
    "the embedded build does not say which fixes are safe, so issues carry no [*] marker",
  ];
  if (result.settingsSource) notes.push(`settings from ${result.settingsSource}`);
  const stubs = embeddedStubNote(result.files, "lint");
  if (stubs) notes.push(stubs);
  const findings = projectFirst(result.findings, (f) => f.file, root);
  return {
    ...(marker && { cache: marker }),
    findings,
    tool: "ruff",
    version: () => Promise.resolve(ruff.version()),
    command: `${displayCommand("ruff", ruffCheckArgs(targets, { configArgs: req.config ? ["--config", req.config] : [] }))} (embedded)`,
    returncode: findings.length ? 1 : 0,
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
    perFileIgnores: [],
  };
  return discoverPythonFiles(dir, settings, root);
}

async function flake8Lint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const files = req.args.files as string[] | undefined;
  // Without `files`: the files the project's pre-commit hands its flake8 hook, when it has one.
  const asPreCommit = files?.length
    ? undefined
    : await preCommitFiles(ctx, req.target, "flake8", isPythonFile);
  const targets = files?.length
    ? selectPythonFiles(ctx, req.target, files, (d) => flake8Files(d, root), "flake8")
    : (asPreCommit?.files ?? [req.target]);
  if (targets.length === 0) return nothingFromPreCommit(asPreCommit?.note);
  const excluded = findExcludedDirs(req.target, root);
  const args = flake8Args(targets, {
    configArgs: flake8ConfigArgs(req.target, root, req.config),
    extendExclude: excluded.dirs,
  });
  const outcome = await runStreamingLinter(ctx, "flake8", args, req, parseFlake8Line);
  if (asPreCommit) outcome.notes.push(asPreCommit.note);
  if (excluded.capped)
    outcome.notes.push(`more than ${excluded.dirs.length} folders to exclude: the rest are left to flake8`);
  return outcome;
}

/** A pre-commit selection that leaves flake8 no file: nothing run, and the note says why. */
function nothingFromPreCommit(note: string | undefined): LintOutcome {
  return {
    findings: [],
    tool: "flake8",
    command: "flake8 (not run)",
    returncode: 0,
    notes: [note ?? "", "no Python file is left to lint: flake8 was not run"].filter(Boolean),
  };
}

registerLinter({
  name: "ruff",
  languages: ["python"],
  capabilities: RUFF_CAPABILITIES,
  lint: ruffLint,
  cachesPerFile: true,
});
registerLinter({
  name: "flake8",
  languages: ["python"],
  // flake8 reports findings only: no inline code, fixes, corrections or rule metadata here.
  capabilities: FINDINGS_ONLY,
  lint: flake8Lint,
});
