/** mypy: pure argv builder and parser of its one-line-per-diagnostic output. */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";
import { displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding } from "../../findings/model.js";
import { registerExternalTool } from "../registry.js";
import type { TypeCheckOutcome, TypeCheckRequest } from "../type-checkers.js";
import { resolvePythonTool } from "./resolve.js";
import {
  checkerFailed,
  collectedOutcome,
  diagnosticsCollector,
  leftOutNote,
  nestedOwnRoots,
} from "./type-check-common.js";
import { relativeDirs } from "../type-check-units.js";
import { overflowNote } from "../../findings/collector.js";
import { mypyConfig, planCheck } from "./checker-config.js";
import { cacheKey, projectCacheDir } from "./server-cache.js";
import { warmMypy } from "./mypy-warm.js";
import { refuseLinksInArgs } from "../../paths/outside-links.js";
import { checkingFlags, mypyCiTargets } from "./ci-targets.js";
import { isPythonOrStub, preCommitFiles } from "../pre-commit-files.js";
import { findExcludedDirs } from "./tree-excludes.js";
import type { CheckPlan } from "./checker-config.js";

registerExternalTool({ name: "mypy", program: "mypy", versionArgs: ["--version"] });

/**
 * mypy with machine-friendly output (columns, error codes, no summary/colour/context), its incremental
 * cache in the server's cache folder (`/dev/null`, i.e. none, when there is no such folder), `strict` →
 * `--strict`. No targets: the config's `files` decide, as in the project's own `mypy` run.
 */
export function mypyArgs(
  targets: readonly string[],
  strict: boolean,
  config?: string,
  cacheDir = "/dev/null",
  /** `--exclude` regexes (mypy adds them to its config's `exclude`). */
  excludes: readonly string[] = [],
  /** Checking flags the project's CI passes (ci-targets.ts: `--strict`, `--warn-unused-ignores`). */
  ciFlags: readonly string[] = [],
): string[] {
  return [
    "--show-column-numbers",
    "--show-error-codes",
    "--no-error-summary",
    "--no-pretty",
    "--no-color-output",
    "--hide-error-context",
    "--cache-dir",
    cacheDir,
    ...new Set([...(strict ? ["--strict"] : []), ...ciFlags]),
    ...(config ? ["--config-file", config] : []),
    ...excludes.flatMap((e) => ["--exclude", e]),
    ...(targets.length ? ["--", ...targets] : []),
  ];
}

const MYPY_LINE =
  /^(?<file>.+?):(?<line>\d+):(?:(?<column>\d+):)? (?<kind>error|warning|note): (?<message>.*?)(?: {2}\[(?<rule>[\w-]+)\])?$/;

/**
 * Parses `file:line:col: error: message  [code]` lines. A `note:` on the same line as the diagnostic
 * before it (hints, "See https://...") is folded into that diagnostic's message; other notes become info.
 */
export function parseMypyOutput(output: string, cwd: string): Finding[] {
  const findings: Finding[] = [];
  const parse = mypyLineParser(cwd, (f) => findings.push(f));
  for (const raw of output.split(/\r?\n/)) parse(raw);
  return findings;
}

/** parseMypyOutput one line at a time, as a stream arrives: each new diagnostic goes to `emit`. */
export function mypyLineParser(cwd: string, emit: (f: Finding) => void): (line: string) => void {
  let previous: Finding | undefined;
  return (raw) => {
    const m = MYPY_LINE.exec(raw.trimEnd());
    if (!m?.groups) return;
    const g = m.groups;
    const file = path.resolve(cwd, g.file as string);
    const line = Number(g.line);
    if (g.kind === "note" && previous && previous.file === file && previous.line === line) {
      previous.message += `\n${g.message}`;
      return;
    }
    previous = {
      tool: "mypy",
      file,
      line,
      column: g.column ? Number(g.column) : 0,
      rule_id: g.rule ?? (g.kind === "note" ? "note" : ""),
      severity: g.kind === "error" ? "error" : g.kind === "warning" ? "warning" : "info",
      message: g.message as string,
      docs_url: g.rule ? "https://mypy.readthedocs.io/en/stable/error_code_list.html" : undefined,
    };
    emit(previous);
  };
}

/**
 * The project itself, with no `files` in its config: the paths its CI runs mypy on (scripts/check's
 * `mypy httpx tests`), when it names them; else the files its pre-commit hands a mypy hook that is given
 * file names (psf/black: every Python file but `^(profiling/|tests/data/)`), with the hook's checking flags;
 * otherwise the plan as it was.
 */
async function withCiTargets(ctx: ToolContext, target: string, plan: CheckPlan): Promise<CheckPlan> {
  if (plan.targets.length !== 1 || plan.targets[0] !== target || plan.cwd !== target) return plan;
  const ci = mypyCiTargets(target);
  if (ci)
    return {
      cwd: plan.cwd,
      targets: ci.targets,
      note: `checked as the project's CI runs it: ${ci.source} runs \`${ci.command}\``,
      flags: ci.flags,
      sourceDirs: ci.targets.map((t) => (fs.statSync(t).isDirectory() ? t : path.dirname(t))),
    };
  const handed = await preCommitFiles(ctx, target, "mypy", isPythonOrStub, "checked");
  if (!handed) return plan;
  // Patterns RE2 cannot run: the whole folder, as before, and the note says why.
  if (!handed.files) return { ...plan, note: handed.note };
  if (!handed.files.length) return plan;
  return { ...plan, targets: handed.files, note: handed.note, flags: checkingFlags(handed.args) };
}

const MYPY_SKIPS = /^(?:\..*|__pycache__|site-packages|node_modules)$/;
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Folders below the checked directories mypy would walk into but the project's own run never means to
 * check: virtualenvs (`pyvenv.cfg`), dependency, build and cache folders (`node_modules`, `build`,
 * `target/`...). Each is an `--exclude` regex on the path relative to where mypy runs, which mypy adds
 * to its config's own `exclude`.
 */
function skippedFolders(plan: CheckPlan, root: string): { excludes: string[]; note?: string } {
  const dirs = plan.targets
    .filter((t) => fs.statSync(t, { throwIfNoEntry: false })?.isDirectory())
    .flatMap((t) => findExcludedDirs(t, root, { gitignore: false }).dirs)
    // mypy skips hidden folders, `__pycache__`, `site-packages` and `node_modules` by itself.
    .filter((d) => isWithin(plan.cwd, d) && !MYPY_SKIPS.test(path.basename(d)));
  if (!dirs.length) return { excludes: [] };
  const rel = dirs.map((d) => path.relative(plan.cwd, d).split(path.sep).join("/"));
  const shown = rel.slice(0, 5).join(", ") + (rel.length > 5 ? `, and ${rel.length - 5} more` : "");
  return {
    excludes: rel.map((r) => `^${escapeRegex(r)}/`),
    note: `not checked (virtualenvs, dependency, build and cache folders): ${shown}`,
  };
}

/**
 * The nested projects checked at their own root (type-check-units.ts), as `--exclude` regexes relative to
 * where mypy runs: mypy's walk does not take them (two nested projects' `tests/conftest.py` are one module
 * to a run at the root: "Duplicate module named"), and what it reports in them through imports is dropped.
 */
const nestedExcludes = (cwd: string, nested: readonly string[]) =>
  nested
    .filter((d) => isWithin(cwd, d) && d !== cwd)
    .map((d) => `^${escapeRegex(relativeDirs(cwd, [d])[0] as string)}/`);

/** What mypy checks for a request: its config, the plan (targets, where it runs), the folders it skips. */
async function mypyPlan(ctx: ToolContext, req: TypeCheckRequest) {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const config = mypyConfig(req.target, root, req.config);
  const plan = await withCiTargets(ctx, req.target, planCheck(req.target, config, "files"));
  const nested = nestedOwnRoots(ctx, req.target);
  const skipped = skippedFolders(plan, root);
  return {
    root,
    config,
    plan,
    nested,
    skipped: { ...skipped, excludes: [...skipped.excludes, ...nestedExcludes(plan.cwd, nested)] },
  };
}

/**
 * What decides a mypy run beyond the project's files, for the result cache's key: the targets it checks
 * (a CI script naming others is a new run) and the folders it skips, relative to the allowed root.
 */
export async function mypyKeyFacts(ctx: ToolContext, req: TypeCheckRequest): Promise<unknown> {
  const { root, plan, skipped } = await mypyPlan(ctx, req);
  return {
    cwd: path.relative(root, plan.cwd),
    targets: plan.targets.map((t) => path.relative(root, t)),
    excludes: skipped.excludes,
    flags: plan.flags ?? [],
  };
}

export async function mypyCheck(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const { root, config, plan, skipped, nested } = await mypyPlan(ctx, req);
  const cacheDir = projectCacheDir("mypy", cacheKey(root, plan.cwd, config?.file));
  const args = mypyArgs(plan.targets, req.strict, config?.file, cacheDir, skipped.excludes, plan.flags);
  const command = displayCommand("mypy", args);
  const cli = resolvePythonTool(ctx, "mypy", req.target);
  const notes = [cli.note, plan.note, skipped.note, ...leftOutNote(req.target, nested)].filter(
    (n): n is string => n !== undefined,
  );
  if (!cacheDir) notes.push("the server's cache folder could not be created: mypy ran without a cache");

  let run: { returncode: number | null; stdout: string; stderr: string; truncated: boolean };
  // Diagnostics are read from the whole output as it arrives (the daemon's answer, or every line of a cold run).
  const found = diagnosticsCollector(req, plan.viewWithin, nested);
  const parse = mypyLineParser(plan.cwd, (f) => found.push(f));
  // The daemon gets no process of its own, so the engine's link check is made here, on the folder mypy
  // runs in too (a config's `files` are found from there).
  refuseLinksInArgs([...args, plan.cwd], ctx.allowlist);
  const warm = cli.executable
    ? await warmMypy(ctx, {
        mypy: cli.executable,
        root,
        cwd: plan.cwd,
        args,
        cacheDir,
        config: config?.file,
        command,
      })
    : undefined;
  if (warm?.kind === "warm") {
    notes.push(warm.note);
    run = {
      returncode: warm.response.status ?? 2,
      stdout: warm.response.out ?? "",
      stderr: warm.response.err ?? "",
      truncated: false,
    };
    for (const line of run.stdout.split("\n")) parse(line);
  } else {
    if (warm) notes.push(warm.note);
    // Its incremental cache lives in the server's cache folder, under the sandbox's hidden $HOME: shown to
    // mypy read-write, so a cold run in the sandbox is as warm as one outside it.
    const sandbox = ctx.sandbox();
    run = await ctx.run({
      program: cli.executable ?? "mypy",
      args,
      cwd: plan.cwd,
      onStdoutLine: parse,
      sandbox: cacheDir ? { ...sandbox, request: { ...sandbox.request, caches: [cacheDir] } } : sandbox,
    });
  }
  notes.push(...overflowNote("mypy", found.kept.length, found.overflow()));
  // 0: clean, 1: type errors, 2: syntax errors (reported like type errors) or a crash / bad usage.
  if (run.returncode !== 0 && found.seen + found.ignored === 0)
    throw checkerFailed("mypy", command, run, "failed without reporting type errors");
  // mypy reports config problems on stderr and carries on; say so rather than drop them.
  const stderr = run.stderr.trim();
  if (stderr) notes.push(`mypy said: ${stderr.slice(0, 1000)}`);
  return { ...collectedOutcome(found, command, run, notes), viewWithin: plan.viewWithin };
}
