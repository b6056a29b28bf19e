/**
 * The ruff fixer behind lint_fix / fix_all: `ruff check --fix` from the project's virtualenv or PATH,
 * else the embedded ruff applying its diagnostics' fix edits. Reports per-file statuses (seed 001's)
 * and the problems left. Writes only happen inside the calling tool's transaction.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import {
  registerFixer,
  type FileFixResult,
  type FixMessage,
  type FixOutcome,
  type FixRequest,
  type FixStatus,
} from "../fixers.js";
import { embeddedCall, embeddedNote, embeddedRuff, unifiedDiff } from "./format.js";
import { diffBudget } from "../../findings/diff-caps.js";
import { discoverPythonFiles } from "./python-files.js";
import { selectPythonFiles } from "./file-selection.js";
import { resolvePythonTool } from "./resolve.js";
import { applyFixesOnce } from "./ruff-edits.js";
import { parseToolWarnings } from "./tool-warnings.js";
import { loadRuffSettings } from "./ruff-settings.js";
import { checkRuffCliScope, ruffCliScope } from "./ruff-cli-scope.js";
import type { RuffCliScope } from "./ruff-cli.js";
import { readSourceText, rewriteSource } from "../../paths/safe-fs.js";
import type { Finding } from "../../findings/model.js";
import { ruffConfigArgs } from "./config-discovery.js";
import { ruffCheckArgs, parseRuffJsonLine } from "./ruff-cli.js";
import { RUFF_CONTEXTUAL_RULES, ruffStdinArgs, runRuffStdin } from "./ruff-stdin.js";
import { RUFF_CAPABILITIES } from "./ruff-capabilities.js";
import { inRuleScope } from "../rule-scope.js";

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

/** The problems of ruff's json-lines output by absolute file, each with the correction ruff still has. */
function problemsByFile(listing: string, cwd: string, unsafe: boolean): Map<string, FixMessage[]> {
  const out = new Map<string, FixMessage[]>();
  for (const line of listing.split("\n")) {
    const f = parseRuffJsonLine(line, cwd);
    if (f) out.set(f.file, [...(out.get(f.file) ?? []), leftMessage(f, () => false, unsafe)]);
  }
  return out;
}

/** Files named by `--- X` / `+++ X` headers of a unified diff, absolute. */
export function diffFiles(diff: string, cwd: string): string[] {
  const files = new Set<string>();
  const lines = diff.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^--- (.+?)(?:\t.*)?$/.exec(lines[i] as string);
    if (m && (lines[i + 1] ?? "").startsWith("+++ "))
      files.add(path.resolve(cwd, (m[1] as string).replace(/^a\//, "")));
  }
  return [...files];
}

/** The diff without ruff's closing "Would fix N errors" summary line. */
export function stripDiffSummary(diff: string): string {
  return diff.replace(/\n*(?:Would fix|No errors would be fixed)[^\n]*\n?$/, "\n").replace(/^\n$/, "");
}

/** Seed 001's per-file status from what happened to the file and what is left. */
export function fileStatus(changed: boolean, left: readonly FixMessage[], dryRun: boolean): FixStatus {
  if (left.some((m) => m.rule_id === "invalid-syntax")) return "error";
  if (dryRun) return changed ? "would-fix" : left.length ? "unfixable" : "clean";
  if (changed) return left.length ? "fixable" : "fixed";
  if (left.length === 0) return "clean";
  return left.some((m) => m.fixable) ? "fixable" : "unfixable";
}

function fileResult(file: string, status: FixStatus, messages: FixMessage[]): FileFixResult {
  return {
    file,
    status,
    errorCount: messages.filter((m) => m.severity === "error").length,
    warningCount: messages.filter((m) => m.severity === "warning").length,
    messages,
  };
}

/** The Python files a request covers: everything ruff would check under target, or the `files` given. */
export function ruffScope(ctx: ToolContext, req: Pick<FixRequest, "target" | "files" | "config">): string[] {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const settings = loadRuffSettings(req.target, root, req.config);
  const listUnder = (dir: string) => discoverPythonFiles(dir, settings, root);
  if (!req.files?.length) return listUnder(req.target);
  return selectPythonFiles(ctx, req.target, req.files, listUnder, "ruff");
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
    throw new ToolError("tool_error", `ruff check failed (exit ${run.returncode}); see output`, {
      command,
      returncode: run.returncode,
      output: combinedOutput(run.stdout, run.stderr),
      truncated: run.truncated,
    });
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
  const settings = loadRuffSettings(req.target, root, req.config);
  const scope = ruffScope(ctx, req);
  const unsafe = req.safety === "unsafe";
  // Seed 003's scope and contextual hold-backs apply to the embedded fixes too.
  const held = req.options?.contextual === false ? RUFF_CONTEXTUAL_RULES : [];
  const applies = (d: { code: string | null }) =>
    inRuleScope(d.code ?? "", req.options?.rules) && !held.includes(d.code ?? "");
  const files: FileFixResult[] = [];
  const changes: { file: string; before: string; after: string }[] = [];
  for (const file of scope) {
    const before = readSourceText(ctx.allowlist, file);
    let text = before;
    let diagnostics = await ruff.check(settings, file, text, call);
    for (let pass = 0; unsafe && pass < MAX_FIX_PASSES; pass++) {
      const next = applyFixesOnce(text, diagnostics.filter(applies));
      if (next.applied === 0 || next.text === text) break;
      text = next.text;
      diagnostics = await ruff.check(settings, file, text, call);
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
    if (changed && req.dryRun)
      result.diff = unifiedDiff(
        [{ file, before, after: text }],
        ctx.config.cwd,
        diffBudget(ctx.config.maxResultBytes),
      );
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
    files,
    changed_files: changes.map((c) => c.file),
    diff: req.dryRun
      ? unifiedDiff(changes, ctx.config.cwd, diffBudget(ctx.config.maxResultBytes))
      : undefined,
    command: `${displayCommand("ruff", args)} (embedded)`,
    returncode: files.some((f) => f.messages.length) ? 1 : 0,
    notes,
    version: ruff.version(),
  };
}

/** A left-over diagnostic as a fix message, with the correction ruff still has for it. */
function leftMessage(f: Finding, heldBack: (rule: string) => boolean, unsafe: boolean): FixMessage {
  const applies = Boolean(f.correction) && (unsafe || f.correction!.safe) && !heldBack(f.rule_id);
  return {
    line: f.line,
    column: f.column,
    end_line: f.end_line,
    end_column: f.end_column,
    rule_id: f.rule_id,
    severity: f.severity === "warning" ? "warning" : "error",
    message: f.message,
    fixable: applies,
    correction: f.correction,
    docs_url: f.docs_url,
  };
}

/**
 * Seed 003's fix (inline code, rule scope, contextual corrections, per-file dry-run diffs): each file with
 * a correction is fixed on stdin and written by the server (race-safe, only when it changed), so a dry run
 * computes exactly what a real fix writes, and what is left is located in the fixed text.
 */
async function stdinFix(
  ctx: ToolContext,
  req: FixRequest,
  executable: string,
  note?: string,
): Promise<FixOutcome> {
  const options = req.options ?? {};
  const unsafe = req.safety === "unsafe";
  const rules = options.rules;
  // contextual: false holds back the removals of names that may be about to be used.
  const held = options.contextual === false ? RUFF_CONTEXTUAL_RULES : [];
  const heldBack = (rule: string) => held.some((h) => rule === h);
  const fixOpts = (configArgs: string[]) => ({
    mode: "fix" as const,
    configArgs,
    unsafe,
    fixable: rules?.only,
    unfixable: [...(rules?.except ?? []), ...held],
  });
  const notes = note ? [note] : [];
  if (held.length) notes.push(`contextual corrections held back: ${held.join(", ")}`);
  const source = options.source;
  if (source) {
    const root = ctx.allowlist.rootOf(source.path) ?? path.dirname(source.path);
    const configArgs = ruffConfigArgs(source.path, root, req.config);
    const fixed = await runRuffStdin(ctx, executable, source.path, source.code, fixOpts(configArgs));
    if (fixed.loop)
      throw new ToolError("tool_error", `ruff could not settle the fixes of the inline code: ${fixed.loop}`);
    const left = await runRuffStdin(ctx, executable, source.path, fixed.text, { mode: "report", configArgs });
    const messages = left.findings.map((f) => leftMessage(f, heldBack, unsafe));
    const changed = fixed.text !== source.code;
    return {
      files: [fileResult(source.path, fileStatus(changed, messages, req.dryRun), messages)],
      changed_files: [],
      correctedSource: fixed.text,
      command: fixed.command,
      returncode: messages.length ? 1 : 0,
      notes: [...notes, ...parseToolWarnings(fixed.stderr, "ruff")],
    };
  }
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const scope = ruffScope(ctx, req);
  if (!req.files?.length) checkRuffCliScope(req.target, root, req.config);
  const cliScope = ruffCliScope(req.target, root, req.config);
  // One report run finds the files with something to correct; only those are fixed one by one.
  const reportArgs = ruffCheckArgs(req.files?.length ? scope : [req.target], cliScope);
  const found = new Map<string, Finding[]>();
  const report = await ctx.run({
    program: executable,
    args: reportArgs,
    onStdoutLine: (line) => {
      const f = parseRuffJsonLine(line, ctx.config.cwd);
      if (f) found.set(f.file, [...(found.get(f.file) ?? []), f]);
    },
  });
  if (report.returncode !== 0 && report.returncode !== 1)
    throw new ToolError("tool_error", `ruff check failed (exit ${report.returncode}); see output`, {
      command: displayCommand("ruff", reportArgs),
      returncode: report.returncode,
      output: combinedOutput(report.stdout, report.stderr),
    });
  notes.push(...parseToolWarnings(report.stderr, "ruff"));
  const files: FileFixResult[] = [];
  const changes: { file: string; before: string; after: string }[] = [];
  for (const file of [...new Set([...scope, ...found.keys()])].sort()) {
    const diagnostics = found.get(file) ?? [];
    const toFix = diagnostics.some(
      (f) =>
        f.correction &&
        (unsafe || f.correction.safe) &&
        !heldBack(f.rule_id) &&
        inRuleScope(f.rule_id, rules),
    );
    if (!toFix) {
      const messages = diagnostics.map((f) => leftMessage(f, heldBack, unsafe));
      files.push(fileResult(file, fileStatus(false, messages, req.dryRun), messages));
      continue;
    }
    const before = readSourceText(ctx.allowlist, file);
    const errors: string[] = [];
    let after = before;
    let messages: FixMessage[];
    try {
      const fixed = await runRuffStdin(ctx, executable, file, before, fixOpts(cliScope.configArgs));
      // Fixes that go back and forth leave the file as it was, the loop said in its errors.
      if (fixed.loop) errors.push(`fix loop: ${fixed.loop}`);
      else after = fixed.text;
      const left =
        after === before
          ? diagnostics
          : (
              await runRuffStdin(ctx, executable, file, after, {
                mode: "report",
                configArgs: cliScope.configArgs,
              })
            ).findings;
      messages = left.map((f) => leftMessage(f, heldBack, unsafe));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      errors.push(err.message);
      messages = diagnostics.map((f) => leftMessage(f, heldBack, unsafe));
    }
    const changed = after !== before;
    const result = fileResult(
      file,
      errors.length ? "error" : fileStatus(changed, messages, req.dryRun),
      messages,
    );
    if (errors.length) result.errors = errors;
    if (changed) {
      changes.push({ file, before, after });
      if (req.dryRun)
        result.diff = unifiedDiff(
          [{ file, before, after }],
          ctx.config.cwd,
          diffBudget(ctx.config.maxResultBytes),
        );
      // Only a file with something corrected is written; the others keep their bytes and mtime.
      else rewriteSource(ctx.allowlist, file, before, after);
    }
    files.push(result);
  }
  const command = displayCommand("ruff", ruffStdinArgs("FILE", fixOpts(cliScope.configArgs)));
  return {
    files,
    changed_files: changes.map((c) => c.file),
    diff: req.dryRun
      ? unifiedDiff(changes, ctx.config.cwd, diffBudget(ctx.config.maxResultBytes))
      : undefined,
    command: `${command} (per file with corrections)`,
    returncode: files.some((f) => f.messages.length) ? 1 : 0,
    notes,
  };
}

/** Whether a request asks for seed 003's fix (the per-file stdin path) rather than ruff's own `--fix`. */
function wantsStdinFix(req: FixRequest): boolean {
  const o = req.options;
  return Boolean(o && (o.source || o.rules || o.contextual !== undefined || o.maxPerRule !== undefined));
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
