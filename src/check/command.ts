/**
 * `mcp-code-quality check [PATH...]`: detect, (fix,) run, report, write SARIF, exit with a code saying
 * how it went. The engine is the server's, built in-process with the given paths as its allowlist.
 */
import fs from "node:fs";
import path from "node:path";
import { ConfigError, loadConfig, type Config } from "../config.js";
import type { Engine } from "../engine/engine.js";
import { VERSION } from "../version.js";
import { CHANGED_FILES_TOOL } from "./changed-files-tool.js";
import { namedScriptChecks, planChecks, planPath, type PlannedCheck } from "./detect.js";
import { EXIT, exitCode, uncheckedLine, uncheckedProjects } from "./exit-code.js";
import { checkHelp, parseCheckArgs, UsageError, type CheckOptions } from "./options.js";
import type { CheckOutcome } from "./outcome.js";
import { ProgressDisplay, type ProgressSink } from "./progress.js";
import { ansi, plain, renderReport, type FixLine } from "./report.js";
import { checkLabel, runChecks, runFixes } from "./run.js";
import { outputPathProblem, writeJson, writeSarifOutput, writeText, type OutputStream } from "./output.js";
import { mergeSarif, withProjectCategory } from "./sarif-merge.js";
import { selectChecks, selectsLinksOnly } from "./select.js";
import { defaultRootOf, workTreeAbove } from "./default-roots.js";
import { mergeShardLogs, readShardLog } from "./shard-merge.js";
import { validationEpoch } from "../cache/file-hashes.js";
import { cacheDirProblem, persistTreeScanEarly } from "../cache/service.js";
import { treeChangesSeen, treeMayHaveChanged } from "../paths/tree-scan.js";
import { AnswerRecorder } from "./answer/record.js";
import { replayMode } from "./answer/memo-format.js";
import { tapAuditLog } from "../engine/audit-log.js";
import { buildId } from "../cache/build-id.js";
import { defaultResultCacheDir } from "../cache/location.js";

export interface CheckIo {
  stdout: ProgressSink & OutputStream;
  stderr: ProgressSink;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Engines kept between checks (the check daemon's): a check whose Config equals an earlier one's reuses
   * its engine, with its tools' versions and its warm workers; such an engine is not closed after the check.
   */
  engines?: EngineKeeper;
  /** Aborted when the caller no longer waits (the daemon's client went away): running tools are stopped. */
  signal?: AbortSignal;
  /**
   * Waits for the check's turn at the folders it checks (the daemon's, turns.ts); resolves to the function
   * that ends the turn.
   */
  turn?: (folders: readonly string[]) => Promise<() => void>;
}

export interface EngineKeeper {
  engineFor(config: Config, make: () => Engine): Engine;
  /** The check that had `engine` from engineFor is done with it (it may be closed once unused). */
  release(engine: Engine): void;
}

const processIo = (): CheckIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});

/** Colours for a stream: a terminal, and NO_COLOR unset (any value, even empty, turns them off). */
export function wantsColor(stream: ProgressSink, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && env.NO_COLOR === undefined;
}

/**
 * The engine's Config: the server's, with check's defaults (allowlist = the projects of the paths, from
 * default-roots.ts; quiet log, no rate limit).
 */
function checkConfig(options: CheckOptions, io: CheckIo): Config {
  const given = new Set(options.configArgs.filter((a) => a.startsWith("--")));
  const roots = [...new Set(options.paths.map((p) => defaultRootOf(p)))];
  const defaults: string[] = [];
  if (!given.has("--allowed-paths")) defaults.push("--allowed-paths", roots.join(","));
  if (!given.has("--log-level")) defaults.push("--log-level", "warn");
  if (!given.has("--rate-limit")) defaults.push("--rate-limit", "false");
  // One run each: a daemon or language server would only be started to be ended.
  if (!given.has("--warm-checkers")) defaults.push("--warm-checkers", "false");
  return loadConfig(["--mode", "stdio", ...defaults, ...options.configArgs], io.env, io.cwd);
}

/** The git work tree around a path (the nearest folder holding `.git`), canonical; undefined outside one. */
function enclosingWorkTree(p: string): string | undefined {
  const tree = workTreeAbove(fs.statSync(p).isDirectory() ? p : path.dirname(p));
  return tree === undefined ? undefined : fs.realpathSync.native(tree);
}

/** The allowed root a path is in (the deepest), else the path: the search for its projects stops there. */
function allowedRootOf(config: Config, p: string): string {
  const roots = config.allowedPaths.filter((r) => p === r || p.startsWith(r + path.sep));
  return roots.sort((a, b) => b.length - a.length)[0] ?? p;
}

function usage(io: CheckIo, message: string): number {
  io.stderr.write(`mcp-code-quality check: ${message}\n`);
  return EXIT.usage;
}

/** Files changed since the revision, per target, through the engine. Throws UsageError on git's refusal. */
async function changedByTarget(engine: Engine, targets: readonly string[], revision: string) {
  const out = new Map<string, Set<string>>();
  for (const target of targets) {
    const r = await engine.call(CHANGED_FILES_TOOL, { path: target, revision });
    if (!r.success) throw new UsageError(`--changed: ${String(r.error)}`);
    out.set(target, new Set(r.files as string[]));
  }
  return out;
}

/**
 * Runs the command; resolves to its exit code. With `answerArgv` (a fresh `check` process, the command line
 * as given), what it read and printed is recorded and the answer kept for a run that would read the same
 * (src/check/answer/).
 */
export async function runCheckCommand(
  argv: readonly string[],
  io: CheckIo = processIo(),
  answerArgv?: readonly string[],
): Promise<number> {
  const mode = replayMode(io.env);
  if (!answerArgv || mode === "off") return runCheck(argv, io);
  const recorder = AnswerRecorder.start();
  tapAuditLog((file, maxBytes, entry) => recorder.audited(file, maxBytes, entry));
  try {
    const code = await runCheck(argv, { ...io, env: recorder.env }, recorder);
    const why = recorder.finish(code, answerArgv, io.cwd, buildId());
    if (mode === "explain")
      io.stderr.write(`mcp-code-quality check: answer ${why ? `not kept: ${why}` : "kept"}\n`);
    return code;
  } finally {
    recorder.stop();
    tapAuditLog(undefined);
  }
}

async function runCheck(argv: readonly string[], io: CheckIo, recorder?: AnswerRecorder): Promise<number> {
  let options: CheckOptions;
  let config: Config;
  try {
    options = parseCheckArgs(argv, io.cwd);
    if (options.help) {
      recorder?.refuse("--help");
      io.stdout.write(checkHelp() + "\n");
      return EXIT.clean;
    }
    config = checkConfig(options, io);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) return usage(io, err.message);
    throw err;
  }
  if (recorder) keepAnswerOf(recorder, options, config);
  if (options.mergeSarif) return mergeShards(io, options);
  for (const p of options.paths)
    if (!config.allowedPaths.some((root) => p === root || p.startsWith(root + path.sep)))
      return usage(io, `${p} is outside --allowed-paths`);
  // A link as the SARIF file (one committed in the repository) is refused before anything runs.
  const sarifProblem = options.sarif && outputPathProblem(options.sarif, io.cwd);
  if (sarifProblem) return usage(io, `--sarif: ${sarifProblem}`);
  const htmlProblem = options.html && outputPathProblem(options.html, io.cwd);
  if (htmlProblem) return usage(io, `--html: ${htmlProblem}`);
  config.shard = options.shard;
  // Links from the paths into the rest of their repository (docs/ to ../README.md) resolve, read-only.
  config.linkReadRoots = [...new Set(options.paths.map(enclosingWorkTree).filter((r) => r !== undefined))];
  config.sarifWithoutFixes = options.sarif === undefined;

  if (options.files?.length === 0) {
    io.stderr.write("mcp-code-quality check: --files: no files given; nothing to check\n");
    return EXIT.clean;
  }
  // In the check daemon, this check's turn at its projects (daemon/turns.ts): another project's check runs
  // meanwhile, one of these waits. A direct run has its process to itself.
  const endTurn = io.turn ? await io.turn(config.allowedPaths) : undefined;
  try {
    return await runPlanned(options, config, io, recorder);
  } finally {
    endTurn?.();
  }
}

/** The check of `options` under `config`, once it is the check's turn: plan, run, report. */
async function runPlanned(
  options: CheckOptions,
  config: Config,
  io: CheckIo,
  recorder: AnswerRecorder | undefined,
): Promise<number> {
  // Each path's projects (projects.ts), each checked at its own root; the allowed root bounds the search
  // for their configuration.
  const linksOnly = selectsLinksOnly(options.only);
  // A check starts a pass of the tree scan (in a daemon, the last check's view of the tree is not this
  // one's), and its walks are those the last run stored (a fresh process).
  treeMayHaveChanged();
  await treeChangesSeen();
  persistTreeScanEarly(config);
  const plans = options.paths.map((p) =>
    planPath(p, { externalLinks: options.externalLinks, linksOnly }, allowedRootOf(config, p)),
  );
  const planned: PlannedCheck[] = plans.flatMap((p) => p.checks);
  // Named scripts the project's checks do not reach are checked each at itself (by their #! line).
  if (options.files && !linksOnly)
    planned.push(
      ...namedScriptChecks(options.files, planned, (f) =>
        planChecks(f, { externalLinks: options.externalLinks }, allowedRootOf(config, f)),
      ),
    );
  const layoutNotes = plans.flatMap((p) => p.notes);
  const { selected, unmatched } = selectChecks(planned, options.only, options.skip);
  if (unmatched.length)
    return usage(
      io,
      `--only ${unmatched.join(",")}: no such check for these paths (detected: ${[...new Set(planned.map((c) => c.id))].join(", ") || "none"})`,
    );

  if (planned.length === 0) {
    for (const note of layoutNotes) io.stderr.write(`mcp-code-quality check: not checked: ${note}\n`);
    io.stderr.write(
      `mcp-code-quality check: nothing to check: no Python, JavaScript/TypeScript, Go, Rust, Ruby or Markdown files in ${options.paths.join(", ")}\n`,
    );
    return EXIT.clean;
  }
  const started = performance.now();
  // The engine and every adapter load only now: usage errors and --help answer at once.
  const [{ Engine }, { createLogger }, { toolsFor }, { changedFilesTool }] = await Promise.all([
    import("../engine/engine.js"),
    import("../log.js"),
    import("../mcp/tools/index.js"),
    import("./changed-files-tool.js"),
  ]);
  const make = () =>
    new Engine(config, createLogger(config.logLevel), [
      // --retain-traces true keeps each tool's run as a trace: the HTML report's trends read them.
      ...toolsFor(["core"], { retainTraces: config.retainTraces }),
      changedFilesTool(),
    ]);
  const engine = io.engines ? io.engines.engineFor(config, make) : make();
  const paint = wantsColor(io.stderr, io.env) ? ansi : plain;
  // The progress display is transient: a recorded answer leaves it out.
  const progressSink = recorder
    ? { isTTY: io.stderr.isTTY, columns: io.stderr.columns, write: recorder.progressWrite }
    : io.stderr;
  const progress = new ProgressDisplay(progressSink, paint);
  const events = {
    start: (label: string) => progress.start(label),
    done: (label: string, o: { status: string; findings?: number }) =>
      progress.finish(label, o.status === "findings" ? `${o.findings ?? 0} findings` : o.status),
  };
  // Warm workers' channels are unref'd (a server's transport keeps it alive); here nothing else would
  // keep the process from exiting while a worker computes or the engine closes.
  const keepAlive = setInterval(() => {}, 60_000);
  // Interrupted, the display gives the terminal its cursor back; the exit handler ends the children.
  const interrupted = () => {
    progress.stop();
    process.exit(130);
  };
  process.once("SIGINT", interrupted);
  try {
    let outcomes: CheckOutcome[];
    let fixes: FixLine[] = [];
    try {
      const changed =
        options.changed !== undefined
          ? await changedByTarget(engine, [...new Set(selected.map((c) => c.path))], options.changed)
          : options.files
            ? new Map(
                [...new Set([...options.paths, ...selected.map((c) => c.path)])].map((p) => [
                  p,
                  new Set(options.files),
                ]),
              )
            : undefined;
      const labelTargets = new Set(selected.map((c) => c.target)).size > 1;
      const runOptions = {
        maxConcurrent: config.maxConcurrent,
        cwd: io.cwd,
        changed,
        labelTargets,
        shard: options.shard,
        rootOf: (f: string) => engine.allowlist.rootOf(f),
        signal: io.signal,
      };
      for (const c of selected) progress.add(checkLabel(c, io.cwd, labelTargets));
      if (options.fix) {
        const { recoverAtStartup } = await import("../fix/recovery.js");
        await recoverAtStartup(engine.allowlist.roots.effective, config.cacheAuditMaxBytes, engine.log);
        fixes = await runFixes(engine, selected, runOptions, events);
      }
      // The checks only read: a file stat'ed by one of them since this moment is not stat'ed again by the
      // next (the fixes above may have written, so the moment is now).
      outcomes = await validationEpoch.run(process.hrtime.bigint(), () =>
        runChecks(engine, selected, runOptions, events),
      );
    } finally {
      process.removeListener("SIGINT", interrupted);
      progress.stop();
    }
    const elapsedMs = Math.round(performance.now() - started);
    const code = exitCode(
      outcomes,
      options.only,
      fixes.some((f) => !f.success),
    );
    return await writeResults(io, options, { outcomes, fixes, elapsedMs, code, notes: layoutNotes });
  } catch (err) {
    if (err instanceof UsageError) return usage(io, err.message);
    throw err;
  } finally {
    // Workers end with the engine; one that does not answer is killed by the exit handler. A kept engine
    // stays open for the next check.
    if (io.engines) io.engines.release(engine);
    else {
      // The wait's timer goes when the engine closed first: none is left behind (a process that runs more
      // after a check, or the command line's snapshot, whose build runs one: src/snapshot-warm-up.ts).
      let gaveUp: NodeJS.Timeout | undefined;
      const timeLimit = new Promise((r) => (gaveUp = setTimeout(r, 2000).unref()));
      await Promise.race([engine.close().catch(() => {}), timeLimit]);
      clearTimeout(gaveUp);
    }
    clearInterval(keepAlive);
  }
}

/** Which runs may keep their answer, and the server's own folders they write. */
function keepAnswerOf(recorder: AnswerRecorder, options: CheckOptions, config: Config): void {
  const writesFiles = options.fix
    ? "--fix"
    : options.sarif
      ? "--sarif"
      : options.html
        ? "--html"
        : options.github
          ? "--github"
          : options.mergeSarif
            ? "--merge-sarif"
            : undefined;
  if (writesFiles) recorder.refuse(writesFiles);
  if (options.changed !== undefined) recorder.refuse("--changed");
  if (!config.resultCache) recorder.refuse("the result cache is off");
  // The answers' folder follows the result cache's rule: never inside a project (a tool of that project could
  // write an answer there), unless that path holds the whole home folder (whose sandboxes see an empty one).
  const serverCache = path.dirname(defaultResultCacheDir(recorder.env));
  const problem = cacheDirProblem(serverCache, config.allowedPaths);
  if (problem) recorder.refuse(`the answers' folder: ${problem}`);
  recorder.ownFolder(serverCache, options.paths);
  recorder.ownFolder(config.resultCacheDir, options.paths);
  // The audit log is the file and its rotation, never the folder (`--audit-log ./audit.log` is in the project).
  recorder.ownFile(config.auditLog);
  recorder.ownFile(`${config.auditLog}.1`);
}

const isDirectoryPath = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/** --merge-sarif: the shards' logs (the PATHs) joined into the --sarif file, written as --sarif writes it. */
async function mergeShards(io: CheckIo, options: CheckOptions): Promise<number> {
  const out = options.sarif as string;
  const problem = outputPathProblem(out, io.cwd);
  if (problem) return usage(io, `--sarif: ${problem}`);
  let log;
  try {
    log = mergeShardLogs(options.paths.map(readShardLog), io.cwd);
  } catch (err) {
    if (err instanceof UsageError) return usage(io, err.message);
    throw err;
  }
  try {
    await writeSarifOutput(out, log, {
      cwd: io.cwd,
      maxResults: options.sarifMaxResults,
      warn: (text) => io.stderr.write(`mcp-code-quality check: warning: ${text}\n`),
    });
  } catch (err) {
    return usage(io, `--sarif ${out} not written: ${err instanceof Error ? err.message : String(err)}`);
  }
  const results = log.runs.reduce((n, r) => n + (r.results?.length ?? 0), 0);
  io.stderr.write(
    `mcp-code-quality check: merged ${options.paths.length} logs into ${out}: ${log.runs.length} runs, ${results} results\n`,
  );
  return EXIT.clean;
}

interface Results {
  outcomes: CheckOutcome[];
  fixes: FixLine[];
  elapsedMs: number;
  code: number;
  /** What the paths hold that no check covers (projects.ts' notes). */
  notes: string[];
}

/**
 * The SARIF file, and the JSON or the report on stdout; resolves to the exit code (2 when the SARIF file
 * could not be written: a link swapped in since the start, a folder gone).
 */
async function writeResults(io: CheckIo, options: CheckOptions, r: Results): Promise<number> {
  let code = r.code;
  if (options.sarif) {
    const log = mergeSarif(
      r.outcomes.flatMap((o) =>
        o.sarif ? [withProjectCategory(o.sarif, o.target, io.cwd, isDirectoryPath(o.target))] : [],
      ),
      io.cwd,
    );
    try {
      await writeSarifOutput(options.sarif, log, {
        cwd: io.cwd,
        maxResults: options.sarifMaxResults,
        warn: (text) => io.stderr.write(`mcp-code-quality check: warning: ${text}\n`),
      });
    } catch (err) {
      io.stderr.write(
        `mcp-code-quality check: --sarif ${options.sarif} not written: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      code = EXIT.usage;
    }
  }
  if (options.html) {
    try {
      const { writeHtmlReport } = await import("./html.js");
      await writeHtmlReport(options.html, {
        outcomes: r.outcomes,
        fixes: r.fixes,
        elapsedMs: r.elapsedMs,
        exitCode: code,
        cwd: io.cwd,
        paths: options.paths,
        version: VERSION,
        now: new Date(),
      });
    } catch (err) {
      io.stderr.write(
        `mcp-code-quality check: --html ${options.html} not written: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      code = EXIT.usage;
    }
  }
  if (options.json) {
    await writeJson(io.stdout, {
      version: VERSION,
      exit_code: code,
      paths: options.paths,
      duration_ms: r.elapsedMs,
      fixes: options.fix ? r.fixes : undefined,
      checks: r.outcomes.map(({ sarif: _sarif, findings, ...rest }) => ({
        ...rest,
        finding_count: findings.length,
      })),
      findings: r.outcomes.flatMap((o) => o.findings.map((f) => ({ check: o.id, ...f }))),
      not_checked: uncheckedProjects(r.outcomes),
      notes: r.notes,
    });
  } else {
    const paint = wantsColor(io.stdout, io.env) ? ansi : plain;
    const report = renderReport(
      {
        outcomes: r.outcomes,
        fixes: r.fixes,
        elapsedMs: r.elapsedMs,
        cwd: io.cwd,
        notChecked: [...uncheckedProjects(r.outcomes).map((u) => uncheckedLine(u, io.cwd)), ...r.notes],
      },
      paint,
    );
    await writeText(io.stdout, report);
  }
  if (options.github) {
    const { reportToGithub } = await import("./github.js");
    await reportToGithub(
      { outcomes: r.outcomes, elapsedMs: r.elapsedMs, exitCode: code, cwd: io.cwd, sarif: options.sarif },
      { env: io.env, write: (text) => writeText(io.stdout, text) },
    );
  }
  return code;
}
