/**
 * The ruff CLI through the result cache: per file, keyed by ruff's version, its arguments, the content
 * of the project's ruff configs and .gitignore files, and each file's content. The file list is ruff's
 * own (`ruff check --show-files`, asked beside a whole run and kept while the tree's Python files stay
 * the same); files the cache lacks run as one `ruff ... --force-exclude -- FILES` call.
 */
import path from "node:path";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { ResultCache } from "../../cache/result-cache.js";
import type { PerFileRun } from "../../cache/per-file.js";
import type { Finding } from "../../findings/model.js";
import {
  configFiles,
  configIdentity,
  executableIdentity,
  listingOf,
  relPath,
  scanTarget,
} from "../cached-run.js";
import type { Closure, ClosureSpec } from "../../cache/closure.js";
import { ruffClosure } from "./ruff-closure.js";
import { splitFileNotes } from "../../cache/file-notes.js";
import { byFile, joinFindings, runFindingsPerFile, type CacheMarker, markerOf } from "../cached-findings.js";
import type { LintOutcome } from "../linters.js";
import { cachedVersion } from "../tool-version.js";
import { insideGitRepository, RUFF_DEFAULT_EXCLUDES } from "./python-files.js";
import { ruffCheckArgs, ruffFormatArgs, ruffShowFilesArgs, type RuffCliScope } from "./ruff-cli.js";
import { runPerFile } from "../../cache/per-file.js";
import { isWithin } from "../../paths/allowlist.js";
import type { FormatCheckOutcome } from "../formatters.js";
import { projectFirst } from "./tree-excludes.js";

/** Folders ruff skips by default: the project scan does not walk them. */
export const RUFF_SKIPPED = new Set([...RUFF_DEFAULT_EXCLUDES, "__pycache__"]);
/** Files that make ruff's file list: what it checks, and what decides which it checks. */
const RUFF_LISTED = /\.(?:pyi?|ipynb)$|^pyproject\.toml$/;
/** The same for ruff format, which also formats Markdown's Python code blocks (ruff 0.17 on). */
const RUFF_FORMAT_LISTED = /\.(?:pyi?|ipynb|md)$|^pyproject\.toml$/;
/** Files ruff formats (as --show-files names them: the fallback when its own list is not printed). */
const RUFF_FORMATS = /\.(?:pyi?|ipynb|md)$/;
/** Files whose content changes ruff's results. */
export const RUFF_CONFIGS = /^(?:pyproject\.toml|ruff\.toml|\.ruff\.toml|\.gitignore|\.ignore)$/;

export interface RuffCliRun {
  executable: string;
  /** Where the executable was found (the first note). */
  note: string | undefined;
  targets: string[];
  scope: RuffCliScope;
  root: string;
  config?: string;
}

/** The scope's absolute paths relative to the root, so that checkouts elsewhere share the key. */
function portableScope(scope: RuffCliScope, root: string) {
  return {
    configArgs: scope.configArgs.map((a) => (path.isAbsolute(a) ? relPath(root, a) : a)),
    extendExclude: (scope.extendExclude ?? []).map((d) => relPath(root, d)),
  };
}

/**
 * What a cached ruff request is keyed by, as the per-file cache takes it: the executable, the scope, the
 * configs of the tree by content and, as its closure, what they `extend` (wherever it lies) and the file
 * kinds they add; and the listing its file list depends on (the tree's files of the kinds ruff takes, its
 * defaults and the config's).
 */
export async function ruffJobBasics(ctx: ToolContext, cache: ResultCache, run: RuffCliRun, kind: string) {
  const version = await cachedVersion(ctx, run.executable);
  const walks = run.targets.map((t) => ({ target: t, walk: scanTarget(cache, t, RUFF_SKIPPED) }));
  const configs = walks.map((w) =>
    configFiles(cache, w.walk, w.target, run.root, RUFF_CONFIGS, [run.config]),
  );
  const identity = {
    ruff: executableIdentity(run.executable, version, run.root),
    kind,
    targets: run.targets.map((t) => relPath(run.root, t)),
    scope: portableScope(run.scope, run.root),
    configs: walks.map((w) => configIdentity(cache, w.walk, w.target, run.root, RUFF_CONFIGS, [run.config])),
    // ruff honours .gitignore only inside a git repository: the same tree lists other files outside one.
    git: run.targets.map((t) => insideGitRepository(t)),
  };
  const closure: ClosureSpec = {
    id: ["ruff", identity],
    resolve: () => Promise.resolve(ruffClosure(cache, [...new Set(configs.flat())])),
  };
  const names = kind === "format" ? RUFF_FORMAT_LISTED : RUFF_LISTED;
  return {
    identity,
    closure,
    root: run.root,
    files: { listing: (c: Closure) => walks.map((w) => listingOf(w.walk, run.root, names, c.kinds)) },
  };
}

/**
 * Where the ruff CLI was found (the result's first note), and a filter that drops it from a run's own
 * notes: every run of a cached request says it again, and the result says it once.
 */
function cliNotesOf(run: RuffCliRun): { cliNotes: string[]; warnings: (notes: string[]) => string[] } {
  const cliNotes = run.note ? [run.note] : [];
  return { cliNotes, warnings: (notes) => notes.filter((n) => !cliNotes.includes(n)) };
}

/** `ruff check --show-files` on the targets: absolute paths, as ruff prints them. */
export async function ruffShowFiles(ctx: ToolContext, run: RuffCliRun): Promise<string[]> {
  const args = ruffShowFilesArgs(run.targets, run.scope);
  const files: string[] = [];
  const result = await ctx.run({
    program: run.executable,
    args,
    onStdoutLine: (line) => {
      if (line.startsWith("/")) files.push(path.resolve(ctx.config.cwd, line));
    },
  });
  if (result.returncode !== 0)
    throw new ToolError("tool_error", `ruff --show-files failed (exit ${result.returncode}); see output`, {
      command: displayCommand("ruff", args),
      returncode: result.returncode,
      output: combinedOutput(result.stdout, result.stderr),
    });
  return files;
}

/** The line of `ruff format -v`'s log that names a file it formats. */
const FORMAT_PATH = /\bformat_path; path=(\/.*)$/;

/**
 * The files `ruff format` formats, as ruff lists them: its verbose log names each (`format_path;
 * path=...`), Markdown files included, which `--show-files` (the linter's list) leaves out. A ruff whose log
 * says nothing of the kind gets the files of `--show-files` that ruff formats. Sorted.
 */
export async function ruffFormatFiles(ctx: ToolContext, run: RuffCliRun): Promise<string[]> {
  const args = ["-v", ...ruffFormatArgs(run.targets, { check: true, ...run.scope })];
  const files: string[] = [];
  const result = await ctx.run({
    program: run.executable,
    args,
    onStderrLine: (line) => {
      const m = FORMAT_PATH.exec(line);
      if (m) files.push(m[1] as string);
    },
  });
  if (result.returncode !== 0 && result.returncode !== 1)
    throw new ToolError("tool_error", `ruff format -v failed (exit ${result.returncode}); see output`, {
      command: displayCommand("ruff", args),
      returncode: result.returncode,
      output: combinedOutput(result.stdout, result.stderr),
    });
  if (files.length) return [...new Set(files)].sort();
  return (await ruffShowFiles(ctx, run)).filter((f) => RUFF_FORMATS.test(f)).sort();
}

interface LintMeta {
  /** ruff's own warnings (deprecated settings...) from the whole run. */
  notes: string[];
}

export type StreamingLint = (
  args: string[],
) => Promise<Pick<LintOutcome, "findings" | "notes" | "returncode">>;

/** `ruff check` through the cache: the outcome a direct run gives, with the cache marker. */
export async function cachedRuffLint(
  ctx: ToolContext,
  cache: ResultCache,
  run: RuffCliRun,
  stream: StreamingLint,
): Promise<LintOutcome & { cache: CacheMarker }> {
  const basics = await ruffJobBasics(ctx, cache, run, "check");
  const command = displayCommand("ruff", ruffCheckArgs(run.targets, run.scope));
  const { cliNotes, warnings } = cliNotesOf(run);
  const outcome = await runFindingsPerFile<LintMeta>({
    cache,
    kind: "ruff check",
    ...basics,
    listFiles: async () => (await ruffShowFiles(ctx, run)).sort(),
    async run(subset, needFiles, listed): Promise<PerFileRun<Finding[], LintMeta>> {
      if (subset) {
        const r = await stream(ruffCheckArgs(subset, { ...run.scope, forceExclude: true }));
        const { rest, byFile: fileNotes } = splitFileNotes(warnings(r.notes), ctx.config.cwd, run.root);
        return { values: byFile(r.findings), meta: { notes: rest }, fileNotes };
      }
      // The list (a quicker run) is handed over as soon as it is known: hashed while the check runs.
      const [r, files] = await Promise.all([
        stream(ruffCheckArgs(run.targets, run.scope)),
        needFiles ? ruffShowFiles(ctx, run).then((f) => (listed?.(f), f)) : undefined,
      ]);
      const { rest, byFile: fileNotes } = splitFileNotes(warnings(r.notes), ctx.config.cwd, run.root);
      return { values: byFile(r.findings), meta: { notes: rest }, fileNotes, files: files?.sort() };
    },
  });
  // ruff prints diagnostics by file name, then position; the project's own files first (as uncached).
  outcome.files.sort();
  const findings = projectFirst(joinFindings(outcome), (f) => f.file, run.root);
  const executable = run.executable;
  return {
    findings,
    tool: "ruff",
    version: () => cachedVersion(ctx, executable),
    command,
    returncode: findings.length ? 1 : 0,
    notes: [...cliNotes, ...outcome.meta.notes, ...outcome.fileNotes],
    cache: markerOf(outcome),
  };
}

interface FormatMeta {
  notes: string[];
  truncated: boolean;
}

export type FormatCheckRun = (args: string[]) => Promise<{
  /** As ruff names them (relative to the working directory when inside it). */
  unformatted: string[];
  /** With --diff: each unformatted file's first changed line, by the same names. */
  firstLines: ReadonlyMap<string, number>;
  returncode: number | null;
  truncated: boolean;
  notes: string[];
}>;

/**
 * `ruff format --check` through the cache: per file, the first line ruff would change (absent: formatted).
 * The runs ask for the diff only to read those lines (streamed, not kept), so the result carries
 * `first_lines` and neither SARIF nor `check` runs ruff again for a diff.
 */
export async function cachedRuffFormatCheck(
  ctx: ToolContext,
  cache: ResultCache,
  run: RuffCliRun,
  check: FormatCheckRun,
): Promise<FormatCheckOutcome & { cache: CacheMarker }> {
  const basics = await ruffJobBasics(ctx, cache, run, "format");
  const cwd = ctx.config.cwd;
  const { cliNotes, warnings } = cliNotesOf(run);
  const asValues = (r: Awaited<ReturnType<FormatCheckRun>>) =>
    new Map(r.unformatted.map((n) => [path.resolve(cwd, n), r.firstLines.get(n) ?? 1]));
  const outcome = await runPerFile<number, FormatMeta>({
    cache,
    kind: "ruff format --check --diff (first changed line)",
    ...basics,
    isEmpty: (v) => !v,
    encode: (v) => v,
    decode: (stored) => (typeof stored === "number" && stored >= 1 ? stored : 1),
    listFiles: () => ruffFormatFiles(ctx, run),
    async run(subset, needFiles, listed): Promise<PerFileRun<number, FormatMeta>> {
      if (subset) {
        const r = await check(
          ruffFormatArgs(subset, { check: true, diff: true, ...run.scope, forceExclude: true }),
        );
        const { rest, byFile: fileNotes } = splitFileNotes(warnings(r.notes), cwd, run.root);
        return { values: asValues(r), meta: { notes: rest, truncated: r.truncated }, fileNotes };
      }
      const [r, files] = await Promise.all([
        check(ruffFormatArgs(run.targets, { check: true, diff: true, ...run.scope })),
        needFiles ? ruffFormatFiles(ctx, run).then((f) => (listed?.(f), f)) : undefined,
      ]);
      const { rest, byFile: fileNotes } = splitFileNotes(warnings(r.notes), cwd, run.root);
      return { values: asValues(r), meta: { notes: rest, truncated: r.truncated }, fileNotes, files };
    },
  });
  // As ruff prints them: relative to the working directory when inside it, sorted.
  const unformatted = outcome.files
    .filter((f) => outcome.values.get(f))
    .map((f) => (isWithin(cwd, f) ? path.relative(cwd, f) : f))
    .sort();
  return {
    formatted: unformatted.length === 0,
    unformatted_files: unformatted,
    command: displayCommand("ruff", ruffFormatArgs(run.targets, { check: true, ...run.scope })),
    returncode: unformatted.length ? 1 : 0,
    truncated: outcome.meta.truncated,
    notes: [...cliNotes, ...outcome.meta.notes, ...outcome.fileNotes],
    cache: markerOf(outcome),
    first_lines: new Map([...outcome.values].filter(([, line]) => line)),
  };
}
