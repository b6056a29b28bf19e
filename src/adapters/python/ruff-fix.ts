/**
 * The ruff fixer behind lint_fix / fix_all: `ruff check --fix` from the project's virtualenv or PATH,
 * else the embedded ruff applying its diagnostics' fix edits. Reports per-file statuses (seed 001's)
 * and the problems left. Writes only happen inside the calling tool's transaction.
 */
import {
  changesDiff,
  diffFiles,
  fileResult,
  fileStatus,
  perFileFixReport,
  problemsByFile,
  ruffScope,
  stripDiffSummary,
  type SourceChange,
} from "./ruff-fix-results.js";
import { stdinFix, wantsStdinFix } from "./ruff-fix-stdin.js";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { ToolError } from "../../errors.js";
import { displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import {
  registerFixer,
  type FileFixResult,
  type FixMessage,
  type FixOutcome,
  type FixRequest,
} from "../fixers.js";
import { embeddedCall, embeddedNote, embeddedRuff } from "./format.js";
import { resolvePythonTool } from "./resolve.js";
import { applyFixesOnce } from "./ruff-edits.js";
import { parseToolWarnings } from "./tool-warnings.js";
import { loadRuffSettings, ruffSettingsFor } from "./ruff-settings.js";
import { checkRuffCliScope, ruffCliScope } from "./ruff-cli-scope.js";
import type { RuffCliScope } from "./ruff-cli.js";
import { readSourceText, rewriteSource } from "../../paths/safe-fs.js";
import { RUFF_CONTEXTUAL_RULES } from "./ruff-stdin.js";
import { RUFF_CAPABILITIES } from "./ruff-capabilities.js";
import { inRuleScope } from "../rule-scope.js";
import { excludedBy } from "./ruff-globs.js";

/** How often the embedded fixer re-checks and fixes again (ruff's CLI loops the same way). */
const MAX_FIX_PASSES = 10;

export type RuffFixMode = "fix" | "diff" | "report";

/**
 * argv of `ruff check`: fix writes, diff only prints the would-be fixes, report lists every problem.
 * diff and report pass `--no-fix`/`--diff`, so a project config with `fix = true` cannot make them write.
 * `configArgs` (from ruffConfigArgs) wins over `config`.
 */
export function ruffFixArgs(
  targets: readonly string[],
  opts: { mode: RuffFixMode; unsafe: boolean; config?: string } & Partial<RuffCliScope>,
): string[] {
  const configArgs = opts.configArgs ?? (opts.config ? ["--config", opts.config] : []);
  return [
    "check",
    ...(opts.mode === "fix" ? ["--fix"] : opts.mode === "diff" ? ["--diff"] : ["--no-fix"]),
    // Safe means safe even when the project's config says `unsafe-fixes = true`.
    opts.unsafe ? "--unsafe-fixes" : "--no-unsafe-fixes",
    "--no-cache",
    // json-lines: the problems left keep their end positions and the corrections ruff still has.
    ...(opts.mode === "diff" ? [] : ["--output-format", "json-lines"]),
    ...configArgs,
    ...(opts.extendExclude ?? []).flatMap((d) => ["--extend-exclude", d]),
    "--",
    ...targets,
  ];
}

/** Content hashes (empty for a missing file), to tell which files ruff rewrote without holding them all. */
function hashAll(files: readonly string[]): Map<string, string> {
  return new Map(
    files.map((f) => [
      f,
      fs.existsSync(f) ? createHash("sha256").update(fs.readFileSync(f)).digest("hex") : "",
    ]),
  );
}

/**
 * Runs ruff, keeping every diagnostic (a json line) and diff header of its stdout as it
 * streams, so problems and changed files are read from the whole output, not the capped `stdout`.
 */
async function runRuff(ctx: ToolContext, executable: string, args: string[]) {
  const command = displayCommand("ruff", args);
  const kept: string[] = [];
  const run = await ctx.run({
    program: executable,
    args,
    onStdoutLine: (line) => {
      if (/^(--- |\+\+\+ |\{)/.test(line)) kept.push(line);
    },
  });
  const listing = kept.join("\n");
  if (run.returncode !== 0 && run.returncode !== 1)
    throw runFailed(`ruff check failed (exit ${run.returncode}); see output`, command, run);
  return { run, command, listing };
}

async function cliFix(
  ctx: ToolContext,
  req: FixRequest,
  executable: string,
  note?: string,
): Promise<FixOutcome> {
  const scope = ruffScope(ctx, req);
  if (!req.files?.length)
    checkRuffCliScope(req.target, ctx.allowlist.rootOf(req.target) ?? req.target, req.config);
  const targets = req.files?.length ? scope : [req.target];
  const cliScope = ruffCliScope(req.target, ctx.allowlist.rootOf(req.target) ?? req.target, req.config);
  const unsafe = req.safety === "unsafe";
  const cwd = ctx.config.cwd;
  const notes = note ? [note] : [];
  if (req.dryRun) {
    const diff = await runRuff(ctx, executable, ruffFixArgs(targets, { mode: "diff", unsafe, ...cliScope }));
    const report = await runRuff(
      ctx,
      executable,
      ruffFixArgs(targets, { mode: "report", unsafe, ...cliScope }),
    );
    notes.push(...parseToolWarnings(report.run.stderr, "ruff"));
    const would = new Set(diffFiles(diff.listing, cwd));
    const problems = problemsByFile(report.listing, cwd, unsafe);
    const files = [...new Set([...scope, ...problems.keys()])].sort().map((f) => {
      const left = (problems.get(f) ?? []).filter((m) => !m.fixable);
      return fileResult(f, fileStatus(would.has(f), left, true), left);
    });
    return {
      files,
      changed_files: [...would].sort(),
      diff: stripDiffSummary(diff.run.stdout),
      command: diff.command,
      returncode: diff.run.returncode,
      truncated: diff.run.truncated || report.run.truncated,
      notes,
    };
  }
  const before = hashAll(scope);
  const { run, command, listing } = await runRuff(
    ctx,
    executable,
    ruffFixArgs(targets, { mode: "fix", unsafe, ...cliScope }),
  );
  notes.push(...parseToolWarnings(run.stderr, "ruff"));
  const problems = problemsByFile(listing, cwd, unsafe);
  const after = hashAll(scope);
  const changed = scope.filter((f) => before.get(f) !== after.get(f));
  const files = [...new Set([...scope, ...problems.keys()])].sort().map((f) => {
    const left = problems.get(f) ?? [];
    return fileResult(f, fileStatus(changed.includes(f), left, false), left);
  });
  return {
    files,
    changed_files: changed,
    command,
    returncode: run.returncode,
    truncated: run.truncated,
    notes,
  };
}

async function embeddedFix(ctx: ToolContext, req: FixRequest): Promise<FixOutcome> {
  const ruff = embeddedRuff(ctx);
  const call = embeddedCall(ctx);
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const settings = loadRuffSettings(req.target, root, req.config, ctx.config.cwd);
  const scope = ruffScope(ctx, req);
  const unsafe = req.safety === "unsafe";
  // Seed 003's scope and contextual hold-backs apply to the embedded fixes too.
  const held = req.options?.contextual === false ? RUFF_CONTEXTUAL_RULES : [];
  const applies = (d: { code: string | null }) =>
    inRuleScope(d.code ?? "", req.options?.rules) && !held.includes(d.code ?? "");
  const files: FileFixResult[] = [];
  const changes: SourceChange[] = [];
  for (const file of scope) {
    const own = ruffSettingsFor(file, root, settings);
    // As `ruff check --fix` on a folder, a file lint.exclude matches is left alone.
    if (file !== req.target && excludedBy(own.lintExclude ?? [], file)) continue;
    const before = readSourceText(ctx.allowlist, file);
    let text = before;
    let diagnostics = await ruff.check(own, file, text, call);
    for (let pass = 0; unsafe && pass < MAX_FIX_PASSES; pass++) {
      const next = applyFixesOnce(text, diagnostics.filter(applies));
      if (next.applied === 0 || next.text === text) break;
      text = next.text;
      diagnostics = await ruff.check(own, file, text, call);
    }
    const left: FixMessage[] = diagnostics.map((d) => ({
      line: d.start_location.row,
      column: d.start_location.column,
      rule_id: d.code ?? "invalid-syntax",
      severity: "error",
      message: d.message,
      fixable: d.fix !== null && d.fix !== undefined,
    }));
    const changed = text !== before;
    if (changed) changes.push({ file, before, after: text });
    if (changed && !req.dryRun) rewriteSource(ctx.allowlist, file, before, text);
    const result = fileResult(file, fileStatus(changed, left, req.dryRun), left);
    if (changed && req.dryRun) result.diff = changesDiff(ctx, [{ file, before, after: text }]);
    files.push(result);
  }
  const notes = [
    embeddedNote(ruff),
    unsafe
      ? 'the embedded ruff does not say which fixes are safe: safety "unsafe" applied every fix it offers'
      : 'the embedded ruff does not say which fixes are safe, so safety "safe" applied none: problems it ' +
        'could fix are reported as fixable (pass safety "unsafe" to apply them all, or install the ruff CLI, ' +
        "which applies only its safe fixes)",
  ];
  if (settings.source) notes.push(`settings from ${settings.source}`);
  const args = ruffFixArgs([req.target], { mode: req.dryRun ? "diff" : "fix", unsafe, config: req.config });
  return {
    ...perFileFixReport(ctx, files, changes, req.dryRun),
    command: `${displayCommand("ruff", args)} (embedded)`,
    notes,
    version: ruff.version(),
  };
}

registerFixer({
  name: "ruff",
  languages: ["python"],
  capabilities: RUFF_CAPABILITIES,
  candidates: async (ctx, req) => (req.options?.source ? [] : ruffScope(ctx, req)),
  async fix(ctx, req) {
    const cli = resolvePythonTool(ctx, "ruff", req.target);
    if (cli.executable && (req.dryRun || wantsStdinFix(req)))
      return stdinFix(ctx, req, cli.executable, cli.note);
    if (!cli.executable && req.options?.source)
      throw new ToolError(
        "invalid_input",
        "lint_fix of inline source_code needs the ruff CLI (the embedded build cannot tell safe fixes)",
      );
    return cli.executable ? cliFix(ctx, req, cli.executable, cli.note) : embeddedFix(ctx, req);
  },
});
