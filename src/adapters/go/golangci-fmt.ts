/**
 * `golangci-lint fmt`: the formatters a Go project's golangci-lint v2 config enables (gofumpt, goimports,
 * gci, golines, gofmt), with its `formatters.settings` and `formatters.exclusions`: the project's own
 * formatting verdict where that config enables any (tool-choice.ts goFormatter). A check is `fmt --diff`
 * (read-only; it prints gofmt's `diff X.orig X` blocks and exits 1 when it printed one); a write is
 * `fmt` on exactly the files the check named.
 */
import fs from "node:fs";
import path from "node:path";
import { displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { RunResult } from "../../exec/runner.js";
import { ToolError } from "../../errors.js";
import { FirstChangedLines } from "../../findings/format-findings.js";
import { resultCacheOf } from "../../cache/service.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { runWhole } from "../../cache/whole.js";
import { relativeKey } from "../../cache/rel-key.js";
import { findExecutable } from "../../exec/which.js";
import { isWithin } from "../../paths/allowlist.js";
import { executableIdentity, scanTarget } from "../cached-run.js";
import { displayRelative } from "../display.js";
import {
  registerFormatter,
  writeAfterCheck,
  type FormatCheckOutcome,
  type FormatRequest,
  type FormatWriteOutcome,
} from "../formatters.js";
import { golangciConfig } from "../project-configs.js";
import { unitsBelow } from "../projects.js";
import { registeredVersion } from "../tool-version.js";
import { goBinDirs, requireGoModule } from "./go-env.js";
import { fullOutput, runGoTool } from "./go-run.js";
import { golangciConfigClosure, golangciFormatters } from "./golangci-config.js";
import { failureReason, refusePlugins } from "./golangci-lint.js";

/** `golangci-lint fmt [--diff] [--config C] -- paths` (a folder is walked, less golangci-lint's exclusions). */
export function golangciFmtArgs(paths: readonly string[], diff: boolean, config?: string): string[] {
  return ["fmt", ...(diff ? ["--diff"] : []), ...(config ? ["--config", config] : []), "--", ...paths];
}

/** A file's diff starts `diff <file>.orig <file>`, as gofmt's. */
const DIFF_HEADER = /^diff (?:-u )?\S+\.orig (\S+)$/;

/** The files of a `golangci-lint fmt --diff` output, each with its first changed line (absolute, from `cwd`). */
export function parseGolangciFmtDiff(diff: string, cwd: string): Map<string, number> {
  const reader = new FirstChangedLines();
  const names: string[] = [];
  for (const line of diff.split("\n")) {
    const file = DIFF_HEADER.exec(line)?.[1];
    if (file) names.push(file);
    reader.push(line);
  }
  const lines = reader.result();
  return new Map(names.map((n) => [path.resolve(cwd, n), lines.get(n) ?? 1]));
}

/**
 * What golangci-lint warned of (`level=warning msg="(gofumpt) formatting file x.go: 2:8: expected ')'"`):
 * a file it cannot parse is left out of the diff and the run exits 0, so the warning is the only word of it.
 */
export function golangciFmtWarnings(stderr: string): string[] {
  return stderr
    .split("\n")
    .map((l) => /^level=warning msg="?(.*?)"?$/.exec(l.trim())?.[1])
    .filter((m): m is string => Boolean(m))
    .map((m) => `golangci-lint fmt: ${m.replace(/\\"/g, '"')}`);
}

interface FmtRun {
  /** Files that would change (absolute), with their first changed line. */
  files: Map<string, number>;
  warnings: string[];
  diff: string;
  returncode: number | null;
  truncated: boolean;
}

function failure(command: string, run: RunResult, why: string): ToolError {
  return runFailed(`golangci-lint fmt ${why} (exit ${run.returncode})`, command, run);
}

/** One `fmt --diff` run: 0 formatted, 1 a diff printed; anything else (3: a bad config, a missing path) fails. */
async function runDiff(ctx: ToolContext, mod: string, args: string[], command: string): Promise<FmtRun> {
  const full = fullOutput();
  const run = await runGoTool(ctx, "golangci-lint", args, mod, command, {}, full.lines);
  if (run.returncode !== 0 && run.returncode !== 1)
    throw failure(command, run, `failed: ${failureReason(full.stdout(), full.stderr())}`);
  const diff = full.stdout();
  return {
    files: parseGolangciFmtDiff(diff, mod),
    warnings: golangciFmtWarnings(full.stderr()),
    diff,
    returncode: run.returncode,
    truncated: run.truncated,
  };
}

interface Plan {
  mod: string;
  /** The config golangci-lint reads (the call's, else the one found from the module up). */
  config?: string;
  args: string[];
  command: string;
  /** Go modules below the target: golangci-lint walks into them; each is checked at its own root. */
  nested: string[];
}

function planOf(ctx: ToolContext, req: FormatRequest): Plan {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const mod = requireGoModule(req.target, root, "golangci-lint fmt");
  const config = req.config ?? golangciConfig(mod, req.target, root);
  // Absolute paths: the diff names files absolutely, whatever folder the call's paths are shown from.
  // Always --diff: a check writes nothing (the diff is also how it learns which files would change).
  const args = golangciFmtArgs([req.target], true, req.config);
  const command = displayCommand("golangci-lint", args);
  refusePlugins(config, command);
  return { mod, config, args, command, nested: unitsBelow(req.target, root, "go") };
}

/** The Go files a run at the target may read, with go.mod (gofumpt's rules follow its `go` version). */
function inputsOf(cache: ResultCache, plan: Plan, target: string): { files: string[]; links: boolean } {
  const walk = scanTarget(cache, target);
  const isGo = (f: string) => f.endsWith(".go") && !plan.nested.some((n) => isWithin(n, f));
  return {
    files: [...walk.files.filter(isGo), path.join(plan.mod, "go.mod")],
    links: walk.links.some(isGo),
  };
}

/** `fmt --diff` through the result cache: the whole target's verdict, keyed by its files and the config's closure. */
async function cachedRun(ctx: ToolContext, cache: ResultCache, plan: Plan, target: string) {
  const root = ctx.allowlist.rootOf(target) ?? target;
  const inputs = inputsOf(cache, plan, target);
  // A linked file has no content hash here: such a tree is never cached.
  if (inputs.links) return { run: await runDiff(ctx, plan.mod, plan.args, plan.command), marker: undefined };
  const executable = findExecutable("golangci-lint", goBinDirs());
  const version = await registeredVersion(ctx, "golangci-lint");
  const config = plan.config;
  const outcome = await runWhole<FmtRun>({
    cache,
    kind: "golangci-lint fmt --diff",
    identity: {
      golangci: executableIdentity(executable, version),
      args: plan.args.map((a) => (path.isAbsolute(a) ? relativeKey(root, a) : a)),
      config: config ? relativeKey(root, config) : null,
      cwd: relativeKey(root, plan.mod),
    },
    root,
    inputs: inputs.files,
    // The config and what it names, by content (its formatters' settings and exclusions are the verdict's).
    closure: config
      ? {
          id: { golangciConfig: relativeKey(root, config), cwd: relativeKey(root, plan.mod) },
          resolve: () => Promise.resolve(golangciConfigClosure(config, plan.mod)),
        }
      : undefined,
    run: () => runDiff(ctx, plan.mod, plan.args, plan.command),
    encode: (v) => ({
      f: [...v.files].map(([f, l]) => [relativeKey(root, f), l]),
      w: v.warnings,
      r: v.returncode,
    }),
    decode: (stored, r) => {
      const s = stored as { f: [string, number][]; w: string[]; r: number | null };
      return {
        files: new Map(s.f.map(([f, l]) => [path.join(r, f), l])),
        warnings: s.w,
        diff: "",
        returncode: s.r,
        truncated: false,
      };
    },
    keep: (v) => !v.truncated,
  });
  const marker = {
    cached: outcome.hit ? outcome.total : 0,
    total: outcome.total,
    ...(outcome.uncached && { uncached: outcome.uncached }),
  };
  return { run: outcome.value, marker };
}

/** The notes of a check: the config it ran with, what it enables, and golangci-lint's warnings. */
function notesOf(plan: Plan, warnings: readonly string[]): string[] {
  const config = plan.config;
  const enabled = config ? golangciFormatters(config) : [];
  return [
    config
      ? `golangci-lint fmt with config ${path.relative(plan.mod, config) || config}` +
        (enabled.length ? ` (formatters: ${enabled.join(", ")})` : "")
      : "golangci-lint fmt without a golangci-lint config: it enables no formatter, so nothing is checked",
    ...warnings,
  ];
}

async function check(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const plan = planOf(ctx, req);
  const cache = req.diff || !fs.statSync(req.target).isDirectory() ? undefined : resultCacheOf(ctx);
  const { run, marker } = cache
    ? await cachedRun(ctx, cache, plan, req.target)
    : { run: await runDiff(ctx, plan.mod, plan.args, plan.command), marker: undefined };
  // A module below the target is its own project, checked at its own root with its own config.
  const own = [...run.files].filter(([f]) => !plan.nested.some((n) => isWithin(n, f)));
  return {
    formatted: own.length === 0,
    unformatted_files: own.map(([f]) => displayRelative(ctx, f)),
    command: plan.command,
    returncode: run.returncode,
    output: req.diff ? ownDiff(run.diff, plan) : undefined,
    truncated: run.truncated,
    notes: notesOf(plan, run.warnings),
    ...(marker && { cache: marker }),
    first_lines: new Map(own),
  };
}

/** The diff less the blocks of files in modules below the target. */
function ownDiff(diff: string, plan: Plan): string {
  if (plan.nested.length === 0) return diff;
  const out: string[] = [];
  let keep = true;
  for (const line of diff.split("\n")) {
    const file = DIFF_HEADER.exec(line)?.[1];
    if (file) keep = !plan.nested.some((n) => isWithin(n, path.resolve(plan.mod, file)));
    if (keep) out.push(line);
  }
  return out.join("\n");
}

async function write(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
): Promise<FormatWriteOutcome> {
  return writeAfterCheck(ctx, req, check, async (checked) => {
    // Exactly the files the check named (a module below the target is not written): golangci-lint formats
    // a file it is given by name, as it did in the check.
    const plan = planOf(ctx, req);
    const files = [...(checked.first_lines?.keys() ?? [])];
    const args = golangciFmtArgs(files, false, req.config);
    const command = displayCommand("golangci-lint", args);
    const full = fullOutput();
    const run = await runGoTool(ctx, "golangci-lint", args, plan.mod, command, {}, full.lines);
    if (run.returncode !== 0)
      throw failure(command, run, `failed: ${failureReason(full.stdout(), full.stderr())}`);
    return { command, notes: notesOf(plan, golangciFmtWarnings(full.stderr())) };
  });
}

registerFormatter({ language: "go", formatter: "golangci-lint", check, write });
