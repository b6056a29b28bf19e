/** gofmt, as seed 000 runs it: `gofmt -l` to check, `gofmt -d` for a diff, `gofmt -w` to write. */
import { ToolError } from "../../errors.js";
import { complaintOf, displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { RunResult } from "../../exec/runner.js";
import {
  registerFormatter,
  writeAfterCheck,
  type FormatCheckOutcome,
  type FormatRequest,
  type FormatWriteOutcome,
} from "../formatters.js";
import { registerExternalTool } from "../registry.js";
import { displayRelative } from "../display.js";
import fs from "node:fs";
import path from "node:path";
import { resultCacheOf } from "../../cache/service.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { runPerFile } from "../../cache/per-file.js";
import { findExecutable } from "../../exec/which.js";
import { executableIdentity, scanTarget } from "../cached-run.js";
import { cachedVersion } from "../tool-version.js";
import { FirstChangedLines } from "../../findings/format-findings.js";
import { markerOf } from "../cached-findings.js";
import { unitsBelow } from "../projects.js";
import { isWithin } from "../../paths/allowlist.js";
import { goFormatter } from "../tool-choice.js";

registerExternalTool({
  name: "gofmt",
  program: "gofmt",
  versionArgs: ["-h"],
  parseVersion: (out) => (/usage: gofmt/.test(out) ? "the go toolchain's (see go)" : undefined),
  // gofmt has no version of its own: SARIF names go's (already asked for the cache key), not a `gofmt -h` probe.
  versionFrom: "go",
});

/** `gofmt -l|-d|-w -- targets` (a directory is walked recursively; gofmt skips nothing but non-.go files). */
export function gofmtArgs(targets: string | readonly string[], mode: "list" | "diff" | "write"): string[] {
  return [mode === "list" ? "-l" : mode === "diff" ? "-d" : "-w", "--", ...[targets].flat()];
}

const isGoName = (name: string) => name.endsWith(".go") && !name.startsWith(".");

/**
 * What a run at `target` covers: the target less the Go modules below it that are projects of their own
 * (projects.ts: every module is its own unit, checked at its root, as `./...` stops at a nested go.mod).
 * gofmt walks into them, which listed their files twice (viper's remote/ module, once per module's run):
 * a folder on the way to one is given as its own .go files and its other folders, in gofmt's walk order.
 * Empty: the target has no Go file outside those modules.
 */
export function gofmtPaths(target: string, root: string): string[] {
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) return [target];
  const nested = unitsBelow(target, root, "go");
  if (nested.length === 0) return [target];
  const out: string[] = [];
  const visit = (dir: string) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (!e.isDirectory()) {
        if (isGoName(e.name)) out.push(abs);
      } else if (nested.some((n) => isWithin(abs, n))) {
        if (!nested.includes(abs)) visit(abs);
      } else out.push(abs);
    }
  };
  visit(target);
  return out;
}

/** A run with nothing to read (gofmt without paths would read stdin): formatted, and why. */
function nothingOwn(target: string, command: string): FormatCheckOutcome {
  return {
    formatted: true,
    unformatted_files: [],
    command,
    returncode: 0,
    truncated: false,
    notes: [`gofmt: no Go files under ${target} outside the modules below it (each is checked on its own)`],
  };
}

/** File names from `gofmt -l` (one per line). */
export function parseGofmtList(output: string): string[] {
  return output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/** File names from `gofmt -d`: each file's diff starts `diff <file>.orig <file>`. */
export function parseGofmtDiffFiles(diff: string): string[] {
  const files: string[] = [];
  for (const m of diff.matchAll(/^diff (?:-u )?\S+\.orig (\S+)$/gm)) files.push(m[1] as string);
  return files;
}

/** gofmt exits 2 on a syntax error (and prints `file:line:col: message` to stderr); that is no formatting verdict. */
function failure(command: string, run: RunResult): ToolError {
  return runFailed(
    `gofmt failed (exit ${run.returncode}): ${complaintOf(run.stderr, (l) => l.trim() !== "") ?? ""}`,
    command,
    run,
  );
}

/** The files `gofmt -l DIR` reads: every *.go file not named with a leading dot, in its walk order. */
function gofmtFiles(cache: ResultCache, target: string, paths: readonly string[]): string[] {
  const walk = scanTarget(cache, target);
  const own = (f: string) => paths.some((p) => p === f || isWithin(p, f));
  const isGo = (f: string) => isGoName(path.basename(f)) && (paths[0] === target || own(f));
  // gofmt reads linked files too; a link has no content hash here, so such a tree is never cached.
  return [...walk.files.filter(isGo), ...walk.links.filter(isGo)];
}

/**
 * `gofmt -d` through the result cache: per file, the first line gofmt would change (absent: formatted;
 * gofmt has no config). The diff is read a line at a time for those lines only, so SARIF and `check` need
 * no second run for it.
 */
async function cachedCheck(
  ctx: ToolContext,
  cache: ResultCache,
  req: FormatRequest,
  paths: readonly string[],
): Promise<FormatCheckOutcome> {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const gofmt = findExecutable("gofmt");
  const firstLines = async (targets: readonly string[]) => {
    const args = ["-d", "--", ...targets];
    const reader = new FirstChangedLines();
    const names: string[] = [];
    const run = await ctx.run({
      program: "gofmt",
      args,
      onStdoutLine: (line) => {
        const file = /^diff (?:-u )?\S+\.orig (\S+)$/.exec(line)?.[1];
        if (file) names.push(file);
        reader.push(line);
      },
    });
    // -d exits 1 when it printed a diff; a message on stderr is a parse error.
    if (run.stderr.trim() || (run.returncode !== 0 && run.returncode !== 1))
      throw failure(displayCommand("gofmt", args), run);
    const lines = reader.result();
    return new Map(names.map((n) => [path.resolve(ctx.config.cwd, n), lines.get(n) ?? 1]));
  };
  const outcome = await runPerFile<number, null>({
    cache,
    kind: "gofmt -d (first changed line)",
    identity: { gofmt: executableIdentity(gofmt, await goVersion(ctx)) },
    root,
    files: gofmtFiles(cache, req.target, paths),
    isEmpty: (v) => !v,
    encode: (v) => v,
    decode: (stored) => (typeof stored === "number" && stored >= 1 ? stored : 1),
    async run(subset) {
      return { values: await firstLines(subset ?? paths), meta: null };
    },
  });
  const files = outcome.files.filter((f) => outcome.values.get(f));
  return {
    formatted: files.length === 0,
    unformatted_files: files.map((f) => displayRelative(ctx, f)),
    command: displayCommand("gofmt", gofmtArgs(paths, "list")),
    returncode: 0,
    truncated: false,
    notes: req.config ? ["gofmt has no configuration file: config was not used"] : [],
    cache: markerOf(outcome),
    first_lines: new Map(files.map((f) => [f, outcome.values.get(f) as number])),
  };
}

/** The Go toolchain's version (gofmt has no --version of its own). */
function goVersion(ctx: ToolContext): Promise<string | undefined> {
  return cachedVersion(ctx, "go", ["version"]);
}

/**
 * Why gofmt's verdict is not the project's where its golangci-lint config enables formatters (gofumpt...):
 * golangci-lint is not installed (tool-choice.ts), or gofmt was asked for by name.
 */
function projectFormatterNote(target: string, root: string): string | undefined {
  const own = goFormatter(target, root);
  if (own.note) return own.note;
  if (own.name !== "golangci-lint") return undefined;
  return (
    `formatter gofmt was asked for: the project's golangci-lint config enables formatters ` +
    `(${(own.formatters ?? []).join(", ")}), which formatter "golangci-lint" runs (golangci-lint fmt); ` +
    `this verdict is gofmt's, not the project's`
  );
}

async function check(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const outcome = await gofmtCheck(ctx, req);
  const note = projectFormatterNote(req.target, ctx.allowlist.rootOf(req.target) ?? req.target);
  return note ? { ...outcome, notes: [note, ...outcome.notes] } : outcome;
}

async function gofmtCheck(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const paths = gofmtPaths(req.target, ctx.allowlist.rootOf(req.target) ?? req.target);
  const args = gofmtArgs(paths, req.diff ? "diff" : "list");
  const command = displayCommand("gofmt", args);
  if (paths.length === 0) return nothingOwn(req.target, command);
  const cache = req.diff ? undefined : resultCacheOf(ctx);
  if (cache && fs.statSync(req.target).isDirectory()) return cachedCheck(ctx, cache, req, paths);
  const run = await ctx.run({ program: "gofmt", args });
  // -l exits 0 whatever it lists; -d exits 1 when it printed a diff. A message on stderr is a parse error.
  if (run.stderr.trim() || (run.returncode !== 0 && !(req.diff && run.returncode === 1)))
    throw failure(command, run);
  const files = req.diff ? parseGofmtDiffFiles(run.stdout) : parseGofmtList(run.stdout);
  const notes: string[] = [];
  if (req.config) notes.push("gofmt has no configuration file: config was not used");
  return {
    formatted: files.length === 0,
    unformatted_files: files.map((f) => displayRelative(ctx, f)),
    command,
    returncode: run.returncode,
    output: req.diff ? run.stdout : undefined,
    truncated: run.truncated,
    notes,
  };
}

async function write(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
): Promise<FormatWriteOutcome> {
  return writeAfterCheck(ctx, req, check, async () => {
    // The files the check named are under these paths: a module below the target is not written either.
    const args = gofmtArgs(gofmtPaths(req.target, ctx.allowlist.rootOf(req.target) ?? req.target), "write");
    const command = displayCommand("gofmt", args);
    const run = await ctx.run({ program: "gofmt", args });
    if (run.returncode !== 0) throw failure(command, run);
    return { command };
  });
}

registerFormatter({ language: "go", formatter: "gofmt", check, write }, true);
