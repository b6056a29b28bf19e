/** Python formatters: ruff format (CLI, else embedded) and black. */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { cappedUnifiedDiff, diffBudget, type DiffBudget } from "../../findings/diff-caps.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import {
  registerFormatter,
  type FormatCheckOutcome,
  type FormatRequest,
  type FormatWriteOutcome,
} from "../formatters.js";
import { BLACK_INTERNAL_ERROR, blackArgs, parseBlackUnformatted } from "./black.js";
import { blackScope, type BlackScope } from "./black-scope.js";
import {
  displayPath,
  EmbeddedRuff,
  EMBEDDED_RUFF_SERVICE,
  type EmbeddedCallOptions,
} from "./ruff-embedded.js";
import { warmProcessRegistry } from "../../exec/warm-processes.js";
import { parseRuffUnformatted, ruffFormatArgs } from "./ruff-cli.js";
import { checkRuffCliScope, ruffCliScope } from "./ruff-cli-scope.js";
import { blackConfigArgs } from "./config-discovery.js";
import { parseToolWarnings } from "./tool-warnings.js";
import { splitFileNotes } from "../../cache/file-notes.js";
import { resolvePythonTool } from "./resolve.js";
import { cachedRuffFormatCheck, RUFF_CONFIGS, RUFF_SKIPPED } from "./ruff-cached.js";
import { FirstChangedLines } from "../../findings/format-findings.js";
import { insideGitRepository } from "./python-files.js";
import { cachedEmbeddedFormatCheck, embeddedRuffJob } from "./ruff-embedded-cached.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { runPerFile } from "../../cache/per-file.js";
import { configIdentity, executableIdentity, listingOf, relPath, scanTarget } from "../cached-run.js";
import { cachedVersion } from "../tool-version.js";
import { isWithin } from "../../paths/allowlist.js";
import { resultCacheOf } from "../../cache/service.js";
import { rewriteSource } from "../../paths/safe-fs.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import { markerOf } from "../cached-findings.js";

export function embeddedRuff(ctx: ToolContext): EmbeddedRuff {
  return ctx.services.get(EMBEDDED_RUFF_SERVICE, () => {
    const ruff = new EmbeddedRuff({ maxFileBytes: ctx.config.embeddedRuffMaxFileBytes });
    warmProcessRegistry(ctx.services).register(ruff.host);
    return ruff;
  });
}

/** The call's time limit and cancellation, for the embedded ruff's thread. */
export function embeddedCall(ctx: ToolContext): EmbeddedCallOptions {
  return { timeoutMs: ctx.config.timeout * 1000, signal: ctx.signal, cwd: ctx.config.cwd };
}

export function embeddedNote(ruff: EmbeddedRuff): string {
  return `ruff not found in the project's virtualenv or on PATH: used the embedded ruff ${ruff.version()} (WebAssembly, in the server; large files in its thread)`;
}

/** What the embedded formatter leaves that the CLI of its version formats (docs/embedded-ruff.md). */
export const EMBEDDED_FORMAT_DIFFERENCE =
  "the embedded ruff formats .py and .pyi files only; the ruff CLI (preview) also formats Python code blocks in Markdown files: install ruff in the project's virtualenv for those";

/**
 * The note for stub files (.pyi) among an embedded run's files: the wasm build cannot be told a source is a
 * stub, so it would lint and format it as a .py file (docs/embedded-ruff.md). Undefined when there are none.
 */
export function embeddedStubNote(files: readonly string[], op: "lint" | "format"): string | undefined {
  const stubs = files.filter((f) => f.endsWith(".pyi"));
  if (!stubs.length) return undefined;
  const named = `${stubs.length} stub file(s) (${stubs
    .slice(0, 3)
    .map((f) => path.basename(f))
    .join(", ")}${stubs.length > 3 ? ", ..." : ""})`;
  return op === "format"
    ? `the embedded ruff cannot format stubs in the CLI's stub style: ${named} left out; install ruff in the project's virtualenv for those`
    : `the embedded ruff checks stubs as .py files: in ${named} stub-only rules (PYI) are missing and forward references are reported (F821), unlike the ruff CLI`;
}

function rootOf(ctx: ToolContext, target: string): string {
  return ctx.allowlist.rootOf(target) ?? target;
}

/** Unified diffs of the changes, capped per file and in total (see findings/diff-caps.ts). */
export function unifiedDiff(
  changes: { file: string; before: string; after: string }[],
  base: string,
  budget?: DiffBudget,
): string {
  return cappedUnifiedDiff(
    changes.map((c) => ({ name: displayPath(c.file, base), before: c.before, after: c.after })),
    budget,
  );
}

/**
 * The lines of a formatter's stdout and stderr that can name a file (`Would reformat:`, `unformatted:`
 * and the ` --> ` after it, `would reformat`, `reformatted`, diff headers), kept in full as they
 * stream by: bounded by the number of files, not cut in bytes like the displayed output.
 */
class ListingLines {
  private readonly lines: string[] = [];
  private keepNext = false;
  private readonly keep = (line: string) => {
    if (this.keepNext || /^(Would reformat|unformatted|would reformat|reformatted|--- |\+\+\+ )/.test(line))
      this.lines.push(line);
    this.keepNext = line.startsWith("unformatted:") || line.startsWith("--- ");
  };
  readonly sinks = { onStdoutLine: this.keep, onStderrLine: this.keep };

  text(): string {
    return this.lines.join("\n");
  }
}

/**
 * When the black that runs is not the version the project's pre-commit pins: what to say (its verdict, and
 * what it can parse, can differ from `pre-commit run black`'s). Undefined when they agree or either is unknown.
 */
async function blackPinMismatch(
  ctx: ToolContext,
  executable: string,
  scope: BlackScope,
): Promise<string | undefined> {
  if (!scope.pinned) return undefined;
  const version = await cachedVersion(ctx, executable);
  return version && version !== scope.pinned
    ? `black ${version} runs here; the project's pre-commit pins black ${scope.pinned}, whose verdict can differ`
    : undefined;
}

/** A formatter run whose exit code is neither "clean" nor "would change" is a tool_error. */
function formatterFailure(
  program: string,
  command: string,
  returncode: number | null,
  output: string,
  truncated: boolean,
  /** Why it may have failed where the project's own run does not (blackPinMismatch). */
  why?: string,
) {
  return new ToolError(
    "tool_error",
    `${program} failed (exit ${returncode}); see output${why ? ` (${why})` : ""}`,
    {
      command,
      returncode,
      output,
      truncated,
    },
  );
}

async function ruffCheck(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const cli = resolvePythonTool(ctx, "ruff", req.target);
  if (!cli.executable) {
    const ruff = embeddedRuff(ctx);
    const command = `ruff format --check${req.diff ? " --diff" : ""} ${req.target} (embedded)`;
    const notes = [embeddedNote(ruff), EMBEDDED_FORMAT_DIFFERENCE];
    const root = rootOf(ctx, req.target);
    // Without a diff, through the result cache as the CLI's check goes (a diff needs both texts).
    const cache = req.diff ? undefined : resultCacheOf(ctx);
    if (cache) {
      const where = { target: req.target, root, config: req.config };
      const job = embeddedRuffJob(ruff, embeddedCall(ctx), where);
      const outcome = await cachedEmbeddedFormatCheck(cache, job);
      const unformatted = outcome.unformatted.map((f) => displayPath(f, ctx.config.cwd));
      const stubs = embeddedStubNote(job.files, "format");
      return {
        formatted: unformatted.length === 0,
        unformatted_files: unformatted,
        command,
        notes: stubs ? [...notes, stubs] : notes,
        cache: outcome.cache,
        version: ruff.version(),
      };
    }
    const result = await ruff.format(req.target, root, req.config, embeddedCall(ctx));
    const files = result.changed.map((c) => displayPath(c.file, ctx.config.cwd));
    const stubs = embeddedStubNote(result.files, "format");
    return {
      formatted: files.length === 0,
      unformatted_files: files,
      command,
      output: req.diff
        ? unifiedDiff(result.changed, ctx.config.cwd, diffBudget(ctx.config.maxResultBytes))
        : undefined,
      notes: stubs ? [...notes, stubs] : notes,
      version: ruff.version(),
    };
  }
  const root = rootOf(ctx, req.target);
  checkRuffCliScope(req.target, root, req.config);
  const scope = ruffCliScope(req.target, root, req.config);
  const args = ruffFormatArgs(req.target, { check: true, diff: req.diff, ...scope });
  const command = displayCommand("ruff", args);
  const executable = cli.executable;
  // The file lists come from every line of the output, not from its capped head and tail.
  const checkRun = async (argv: string[]) => {
    const listing = new ListingLines();
    // With --diff, each file's first changed line, read as the lines stream (SARIF and `check` place the
    // finding there; the cache keeps it, so a warm check needs no second run for the diff).
    const first = new FirstChangedLines();
    const run = await ctx.run({
      program: executable,
      args: argv,
      onStdoutLine: (line) => {
        listing.sinks.onStdoutLine(line);
        first.push(line);
      },
      onStderrLine: listing.sinks.onStderrLine,
    });
    const output = combinedOutput(run.stdout, run.stderr);
    if (run.returncode !== 0 && run.returncode !== 1)
      throw formatterFailure(
        "ruff format",
        displayCommand("ruff", argv),
        run.returncode,
        output,
        run.truncated,
      );
    return {
      unformatted: parseRuffUnformatted(listing.text()),
      firstLines: first.result(),
      returncode: run.returncode,
      stdout: run.stdout,
      truncated: run.truncated,
      notes: [...(cli.note ? [cli.note] : []), ...parseToolWarnings(run.stderr, "ruff")],
    };
  };
  const cache = req.diff ? undefined : resultCacheOf(ctx);
  if (cache)
    return cachedRuffFormatCheck(
      ctx,
      cache,
      { executable, note: cli.note, targets: [req.target], scope, root, config: req.config },
      checkRun,
    );
  const run = await checkRun(args);
  return {
    formatted: run.returncode === 0,
    unformatted_files: run.unformatted,
    command,
    returncode: run.returncode,
    output: req.diff ? run.stdout : undefined,
    truncated: run.truncated,
    notes: run.notes,
  };
}

async function ruffWrite(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
): Promise<FormatWriteOutcome> {
  const cli = resolvePythonTool(ctx, "ruff", req.target);
  if (!cli.executable) {
    const ruff = embeddedRuff(ctx);
    const result = await ruff.format(req.target, rootOf(ctx, req.target), req.config, embeddedCall(ctx));
    if (!req.dryRun) for (const c of result.changed) rewriteSource(ctx.allowlist, c.file, c.before, c.after);
    return {
      changed_files: result.changed.map((c) => displayPath(c.file, ctx.config.cwd)),
      command: `ruff format ${req.dryRun ? "--diff " : ""}${req.target} (embedded)`,
      diff: req.dryRun
        ? unifiedDiff(result.changed, ctx.config.cwd, diffBudget(ctx.config.maxResultBytes))
        : undefined,
      notes: [
        embeddedNote(ruff),
        EMBEDDED_FORMAT_DIFFERENCE,
        ...(embeddedStubNote(result.files, "format") ?? []),
      ],
    };
  }
  return checkThenWrite(
    ctx,
    req,
    ruffCheck,
    "ruff format",
    cli.executable,
    ruffFormatArgs(req.target, ruffCliScope(req.target, rootOf(ctx, req.target), req.config)),
  );
}

/**
 * A CLI formatter writes in two steps: a check names the files that will change (the result lists them),
 * then the write. A dry run stops after the check, whose diff it returns.
 */
async function checkThenWrite(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
  check: (ctx: ToolContext, req: FormatRequest) => Promise<FormatCheckOutcome>,
  name: string,
  executable: string,
  writeArgs: string[],
  /** The arguments the result shows (a long file list in short), when not writeArgs. */
  shownArgs: string[] = writeArgs,
): Promise<FormatWriteOutcome> {
  const checked = await check(ctx, { ...req, diff: req.dryRun });
  if (req.dryRun)
    return {
      changed_files: checked.unformatted_files,
      command: checked.command,
      returncode: checked.returncode,
      diff: checked.output,
      truncated: checked.truncated,
      notes: checked.notes,
    };
  const command = displayCommand(name.split(" ")[0] as string, shownArgs);
  const run = await ctx.run({ program: executable, args: writeArgs });
  const output = combinedOutput(run.stdout, run.stderr);
  if (run.returncode !== 0) throw formatterFailure(name, command, run.returncode, output, run.truncated);
  return {
    changed_files: checked.unformatted_files,
    command,
    returncode: run.returncode,
    output,
    truncated: run.truncated,
    notes: checked.notes,
  };
}

/**
 * An empty config file of the server's own, for black when the project has none: kept for the server's life
 * in a private folder that black's runs see read-only.
 */
function emptyBlackConfig(ctx: ToolContext): string {
  return ctx.services.get("black-empty-config", () => {
    const dir = makeScratchDir("mcq-black-", { access: "read-only" });
    const file = path.join(dir, "pyproject.toml");
    fs.writeFileSync(file, "", { flag: "wx", mode: 0o600 });
    return { file, close: () => fs.rmSync(dir, { recursive: true, force: true }) };
  }).file;
}

/** The target a black command is shown with: the folder, or the pre-commit hooks' files in short. */
const shownTarget = (scope: BlackScope) =>
  scope.handed ? `<${scope.targets.length} files pre-commit hands black>` : (scope.targets[0] as string);

function blackConfig(ctx: ToolContext, req: FormatRequest): string[] {
  return blackConfigArgs(req.target, rootOf(ctx, req.target), req.config, () => emptyBlackConfig(ctx));
}

/** black's -v lines that name a file it checked (and whether it would change it). */
const BLACK_VERBOSE =
  /^(?:would reformat (.+)|(.+) already well formatted, good job\.|(.+) wasn't modified on disk since last run\.)$/;

/**
 * `black --check` (no diff) through the result cache: per file, whether black would change it. The file
 * list is black's own, from the `-v` lines of a whole run (kept while the tree's Python files stay the same);
 * the files the cache lacks run as `black --check -- FILES`. The files are listed sorted (black's own order
 * varies from run to run: it checks files in parallel).
 */
async function cachedBlackCheck(
  ctx: ToolContext,
  cache: ResultCache,
  req: FormatRequest,
): Promise<FormatCheckOutcome> {
  const cli = resolvePythonTool(ctx, "black", req.target);
  const executable = cli.executable ?? "black";
  const scope = await blackScope(ctx, req.target);
  const configArgs = [...blackConfig(ctx, req), ...scope.flags];
  const root = rootOf(ctx, req.target);
  const walk = scanTarget(cache, req.target, RUFF_SKIPPED);
  const version = await cachedVersion(ctx, executable);
  const mismatch = await blackPinMismatch(ctx, executable, scope);
  const run = async (targets: readonly string[], verbose: boolean) => {
    const args = [...(verbose ? ["-v"] : []), ...blackArgs(targets, { check: true, configArgs })];
    const unformatted: string[] = [];
    const checked: string[] = [];
    const stderr: string[] = [];
    const sink = (line: string) => {
      const m = BLACK_VERBOSE.exec(line);
      if (m?.[1]) unformatted.push(m[1]);
      else if (m) checked.push((m[2] ?? m[3]) as string);
      else if (!verbose || !/ ignored: | as project root |^Sources to be formatted/.test(line))
        stderr.push(line);
    };
    const result = await ctx.run({ program: executable, args, onStdoutLine: sink, onStderrLine: sink });
    if (result.returncode === BLACK_INTERNAL_ERROR || (result.returncode !== 0 && result.returncode !== 1))
      throw formatterFailure(
        "black",
        displayCommand("black", args),
        result.returncode,
        combinedOutput(result.stdout, result.stderr),
        result.truncated,
        mismatch,
      );
    const abs = (f: string) => path.resolve(ctx.config.cwd, f);
    return {
      values: new Map(unformatted.map((f) => [abs(f), true])),
      files: [...unformatted, ...checked].map(abs).sort(),
      notes: parseToolWarnings(stderr.join("\n"), "black"),
    };
  };
  const outcome = await runPerFile<boolean, { notes: string[] }>({
    cache,
    kind: "black --check",
    identity: {
      black: executableIdentity(executable, version, root),
      target: relPath(root, req.target),
      // The project's config, or the server's own empty one (a temp file, the same for every server).
      configArgs: configArgs.map((a) =>
        !path.isAbsolute(a) ? a : isWithin(root, a) ? relPath(root, a) : "(empty config)",
      ),
      configs: configIdentity(cache, walk, req.target, root, RUFF_CONFIGS, [req.config]),
      // black's project root (and the .gitignore it reads) follows a .git folder.
      git: insideGitRepository(req.target),
    },
    root,
    // The pre-commit hooks' files, else black's own list of a whole run (kept while the tree's Python
    // files stay the same).
    files: scope.handed ? scope.targets : { listing: listingOf(walk, root, /\.pyi?$|^pyproject\.toml$/) },
    isEmpty: (v) => !v,
    encode: () => 1,
    decode: () => true,
    async run(subset) {
      const r = await run(subset ?? scope.targets, !subset);
      const { rest, byFile: fileNotes } = splitFileNotes(r.notes, ctx.config.cwd, root);
      return { values: r.values, meta: { notes: rest }, fileNotes, files: subset ? undefined : r.files };
    },
  });
  const files = outcome.files.filter((f) => outcome.values.get(f));
  return {
    formatted: files.length === 0,
    unformatted_files: files,
    command: displayCommand("black", blackArgs(shownTarget(scope), { check: true, configArgs })),
    returncode: files.length ? 1 : 0,
    truncated: false,
    notes: [
      ...(cli.note ? [cli.note] : []),
      ...(scope.note ? [scope.note] : []),
      ...(mismatch ? [`warning: ${mismatch}`] : []),
      ...outcome.meta.notes,
      ...outcome.fileNotes,
    ],
    cache: markerOf(outcome),
  };
}

async function blackCheck(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const cache = req.diff ? undefined : resultCacheOf(ctx);
  if (cache && fs.statSync(req.target).isDirectory()) return cachedBlackCheck(ctx, cache, req);
  const cli = resolvePythonTool(ctx, "black", req.target);
  const scope = await blackScope(ctx, req.target);
  const configArgs = [...blackConfig(ctx, req), ...scope.flags];
  const args = blackArgs(scope.targets, { check: true, diff: req.diff, configArgs });
  const command = displayCommand(
    "black",
    blackArgs(shownTarget(scope), { check: true, diff: req.diff, configArgs }),
  );
  const listing = new ListingLines();
  const run = await ctx.run({ program: cli.executable ?? "black", args, ...listing.sinks });
  const output = combinedOutput(run.stdout, run.stderr);
  const mismatch = await blackPinMismatch(ctx, cli.executable ?? "black", scope);
  if (run.returncode === BLACK_INTERNAL_ERROR || (run.returncode !== 0 && run.returncode !== 1))
    throw formatterFailure("black", command, run.returncode, output, run.truncated, mismatch);
  return {
    formatted: run.returncode === 0,
    // Sorted: black checks files in parallel, and its own order varies from run to run.
    unformatted_files: parseBlackUnformatted(listing.text()).sort(),
    command,
    returncode: run.returncode,
    output: req.diff ? run.stdout : undefined,
    truncated: run.truncated,
    notes: [
      ...(cli.note ? [cli.note] : []),
      ...(scope.note ? [scope.note] : []),
      ...(mismatch ? [`warning: ${mismatch}`] : []),
      ...parseToolWarnings(run.stderr, "black"),
    ],
  };
}

async function blackWrite(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
): Promise<FormatWriteOutcome> {
  const cli = resolvePythonTool(ctx, "black", req.target);
  const scope = await blackScope(ctx, req.target);
  const configArgs = [...blackConfig(ctx, req), ...scope.flags];
  const args = blackArgs(scope.targets, { configArgs });
  const shown = blackArgs(shownTarget(scope), { configArgs });
  return checkThenWrite(ctx, req, blackCheck, "black", cli.executable ?? "black", args, shown);
}

registerFormatter({ language: "python", formatter: "ruff", check: ruffCheck, write: ruffWrite }, true);
registerFormatter({ language: "python", formatter: "black", check: blackCheck, write: blackWrite });
