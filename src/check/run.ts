/**
 * Runs the planned checks in-process through the engine (the server's pipeline: allowlist, limits, audit),
 * at most --max-concurrent at once, and --fix's transactional calls before them, one at a time.
 */
import path from "node:path";
import pLimit from "p-limit";
import type { Engine } from "../engine/engine.js";
import { checksFile, type EngineCall, type PlannedCheck } from "./detect.js";
import {
  NO_CHANGED_FILES,
  otherShard,
  outcomeOf,
  skippedOutcome,
  type CheckOutcome,
  type EngineResult,
} from "./outcome.js";
import type { FixLine } from "./report.js";
import { inShard, shardOfKey, type Shard } from "../cache/shard.js";
import { isWithin } from "../paths/allowlist.js";
import { ownUnitOnly } from "../adapters/projects.js";

export interface RunEvents {
  start(label: string): void;
  done(label: string, outcome: { status: string; findings?: number }): void;
}

/** `ruff (lint)`, or `ruff (lint, src)` when several paths are checked. */
export const checkLabel = (
  c: { id: string; kind: string; target: string },
  cwd: string,
  withTarget: boolean,
) => `${c.id} (${c.kind}${withTarget ? `, ${path.relative(cwd, c.target) || "."}` : ""})`;

/**
 * Calls one engine tool; an argument the tool refuses is a failed result like any other. The result is not
 * capped in bytes (check is in-process, no client buffer to protect): its SARIF log holds every finding.
 */
async function call(
  engine: Engine,
  tool: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<EngineResult> {
  try {
    // Each unit was placed by the plan (detect.ts): a call at a unit's dir is that unit alone.
    return (await ownUnitOnly(() =>
      engine.call(tool, args, {
        maxResultBytes: Number.POSITIVE_INFINITY,
        signal,
      }),
    )) as EngineResult;
  } catch (err) {
    return {
      success: false,
      error: err instanceof Error ? err.message : String(err),
      error_type: "invalid_input",
    };
  }
}

/** The changed files a check looks at: those of its language in what it checks (its project, or file). */
function relevantChanged(
  check: PlannedCheck,
  changed: ReadonlyMap<string, ReadonlySet<string>>,
): Set<string> {
  return new Set(
    [...(changed.get(check.path) ?? [])].filter(
      (f) => checksFile(check, f) && (f === check.target || isWithin(check.target, f)),
    ),
  );
}

export interface RunOptions {
  maxConcurrent: number;
  cwd: string;
  /** Progress labels name the path (several were given). */
  labelTargets: boolean;
  /** --changed: per path given, the absolute files git says changed. */
  changed?: ReadonlyMap<string, ReadonlySet<string>>;
  /** --shard: this job's share of the files and of the whole-program checks. */
  shard?: Shard;
  /** The project root a file's shard is decided from (the allowed path it is in). */
  rootOf?: (file: string) => string | undefined;
  /** Aborted when nobody waits for the answer any more (a daemon's client went away): tools are stopped. */
  signal?: AbortSignal;
}

/** Checks that read the whole program (or every document): each runs whole, in one shard. */
const WHOLE_LINTERS = new Set(["govet", "staticcheck", "golint", "golangci-lint", "clippy", "flake8"]);
export function isWholeCheck(check: PlannedCheck): boolean {
  return (
    check.kind === "types" ||
    check.kind === "links" ||
    check.id === "rustfmt" ||
    (check.kind === "lint" && WHOLE_LINTERS.has(check.id))
  );
}

/** The shard a whole-program check runs in: by its name and path, the same on every machine. */
export function shardOfCheck(check: PlannedCheck, cwd: string, count: number): number {
  return shardOfKey(`${check.id}:${path.relative(cwd, check.target).split(path.sep).join("/")}`, count);
}

/**
 * Which findings of a check this run keeps: with --changed, those in changed files; with --shard, a
 * per-file check's findings in this shard's files (a whole-program check runs in one shard, whole).
 */
function keepOf(check: PlannedCheck, options: RunOptions): ((file: string) => boolean) | undefined {
  const changed = options.changed ? relevantChanged(check, options.changed) : undefined;
  const shard = options.shard;
  const byShard =
    shard && !isWholeCheck(check)
      ? (f: string) => inShard(shard, options.rootOf?.(f) ?? check.target, f)
      : undefined;
  const under = check.keepUnderTarget
    ? (f: string) => f === check.target || isWithin(check.target, f)
    : undefined;
  if (!changed && !byShard && !under) return undefined;
  return (f) => (!changed || changed.has(f)) && (!byShard || byShard(f)) && (!under || under(f));
}

/**
 * Runs each task after the one before it of the same key (none: at once). Checks that compile into one build
 * cache go one after another: at once, each compiled what the other was compiling (issue 42: golangci-lint
 * and go build of spf13/cobra after an edit, on 2 cores); after, the second finds it in the cache.
 */
export function afterSameKey() {
  const last = new Map<string, Promise<unknown>>();
  return <T>(key: string | undefined, task: () => Promise<T>): Promise<T> => {
    if (key === undefined) return task();
    const next = (last.get(key) ?? Promise.resolve()).then(task, task);
    last.set(
      key,
      next.catch(() => {}),
    );
    return next;
  };
}

/** Every check's outcome, in the order planned. */
export async function runChecks(
  engine: Engine,
  checks: readonly PlannedCheck[],
  options: RunOptions,
  events: RunEvents,
): Promise<CheckOutcome[]> {
  const slots = pLimit(options.maxConcurrent);
  const inTurn = afterSameKey();
  return Promise.all(
    checks.map(async (check) => {
      const label = checkLabel(check, options.cwd, options.labelTargets);
      const changed = options.changed ? relevantChanged(check, options.changed) : undefined;
      if (changed && changed.size === 0) {
        const outcome = skippedOutcome(check, NO_CHANGED_FILES, "nothing");
        events.done(label, { status: outcome.status });
        return outcome;
      }
      const shard = options.shard;
      if (shard && isWholeCheck(check)) {
        const own = shardOfCheck(check, options.cwd, shard.count);
        if (own !== shard.index) {
          const outcome = skippedOutcome(check, otherShard(own, shard.count), "nothing");
          events.done(label, { status: outcome.status });
          return outcome;
        }
      }
      const keep = keepOf(check, options);
      // Its turn first, then a slot: a check waiting for its turn holds none.
      return inTurn(check.buildCache, () =>
        slots(async () => {
          events.start(label);
          const started = performance.now();
          const result = await call(
            engine,
            check.call.tool,
            { ...check.call.args, path: check.target, output: "sarif" },
            options.signal,
          );
          const outcome = outcomeOf(
            check,
            result,
            Math.round(performance.now() - started),
            options.cwd,
            keep,
          );
          events.done(label, { status: outcome.status, findings: outcome.findings.length });
          return outcome;
        }),
      );
    }),
  );
}

/** Does an autoformat call format this file (prettier's calls are one per language)? */
function formatsFile(fix: EngineCall, file: string): boolean {
  if (fix.args.language === "typescript") return /\.[cm]?tsx?$/.test(file);
  if (fix.args.language === "javascript") return /\.[cm]?jsx?$/.test(file);
  return true;
}

/** The argument sets of one fix call: the whole target, or with --changed only the changed files. */
function fixCalls(check: PlannedCheck, fix: EngineCall, options: RunOptions): Record<string, unknown>[] {
  if (!options.changed) return [{ ...fix.args, path: check.target }];
  const changed = [...relevantChanged(check, options.changed)];
  if (changed.length === 0) return [];
  // A check of one file (a script named to --files, detect.ts) fixes that file: no `files` below it.
  if (fix.tool === "lint_fix" && changed.includes(check.target)) return [{ ...fix.args, path: check.target }];
  if (fix.tool === "lint_fix")
    return [{ ...fix.args, path: check.target, files: changed.map((f) => path.relative(check.target, f)) }];
  return changed.filter((f) => formatsFile(fix, f)).map((f) => ({ ...fix.args, path: f }));
}

/**
 * --fix: every check's lint_fix calls, then its autoformat calls (which tidy what the fixes leave, as
 * fix_all does), one at a time: each is a transaction on the project. With --changed, lint fixes are
 * scoped to the changed files and formatting is applied to each of them.
 */
export async function runFixes(
  engine: Engine,
  checks: readonly PlannedCheck[],
  options: RunOptions,
  events: RunEvents,
): Promise<FixLine[]> {
  const lines: FixLine[] = [];
  const fixes = ["lint_fix", "autoformat"].flatMap((tool) =>
    checks.flatMap((check) =>
      (check.fix ?? []).filter((f) => f.tool === tool).map((fix) => ({ check, fix })),
    ),
  );
  for (const { check, fix } of fixes) {
    const calls = fixCalls(check, fix, options);
    if (calls.length === 0) continue;
    const label = `${check.id} ${fix.tool}`;
    events.start(label);
    const started = performance.now();
    let changedFiles = 0;
    let failure: EngineResult | undefined;
    let missing = 0;
    for (const args of calls) {
      const result = await call(engine, fix.tool, args, options.signal);
      // A fixer that is not installed is the check's skip to report, not a failed fix.
      if (result.error_type === "tool_not_found") missing++;
      else if (!result.success) failure ??= result;
      else if (Array.isArray(result.changed_files)) changedFiles += result.changed_files.length;
    }
    if (missing === calls.length) {
      events.done(label, { status: "skipped" });
      continue;
    }
    const line: FixLine = {
      id: check.id,
      tool: fix.tool,
      target: check.target,
      success: failure === undefined,
      changed_files: changedFiles,
      duration_ms: Math.round(performance.now() - started),
      error: failure ? `${failure.error_type ?? "error"}: ${failure.error ?? ""}` : undefined,
    };
    events.done(label, { status: line.success ? "done" : "failed" });
    lines.push(line);
  }
  return lines;
}
