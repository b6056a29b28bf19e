/**
 * The bounded subprocess runner: the only place that spawns tool processes.
 * argv only (never a shell), stdin from /dev/null, its own process group killed whole on timeout,
 * stdout/stderr capped head+tail, ANSI stripped, colors off.
 *
 * A descendant that left the group (`setsid`) is found by the run token in its environment and killed
 * too (see child-groups.ts), and the call never waits on pipes past the kill: a process still holding
 * them after the leader exited is cut off, so a run returns at its timeout whatever its descendants do.
 */
import { treeChangesSeen, treeMayHaveChanged } from "../paths/tree-scan.js";
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import path from "node:path";
import { killGroup, killMarked, markedEnv, newRunToken, trackChildGroup } from "./child-groups.js";
import { CappedBuffer } from "./capped-buffer.js";
import { LineSplitter } from "./line-splitter.js";
import { stripVTControlCharacters } from "node:util";
import { findExecutable } from "./which.js";
import { invisiblePaths, sandboxLaunch, type SandboxRun } from "./sandbox/launch.js";
import type { ResourceLimits, SandboxProfile } from "./sandbox/profile.js";
import { fillDone, fillOnce, fillStepFor, offlineAfterFill } from "./sandbox/fill.js";

export interface RunSpec {
  /** Program name (looked up on PATH) or absolute path. */
  program: string;
  args: readonly string[];
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /**
   * Extra environment variables, set over what the sandbox layer gives the tool of the server's (never its
   * secrets; sandbox/env.ts).
   */
  env?: Record<string, string | undefined>;
  /**
   * The colour variables. "off" (the default, for output the server parses): NO_COLOR=1, TERM=dumb, no
   * FORCE_COLOR. "keep": the user's NO_COLOR, TERM and FORCE_COLOR as they are, for runs whose behaviour they
   * are part of (a test suite asserting what its CLI does under NO_COLOR: commander.js's).
   */
  colorEnv?: "off" | "keep";
  /** Credential variables this run is given although env.ts leaves them out (a fill step's registry tokens). */
  declaredEnv?: readonly string[];
  /** Directories searched before PATH (e.g. a virtualenv's bin). */
  searchDirs?: readonly string[];
  signal?: AbortSignal;
  /** Grace between SIGTERM and SIGKILL on timeout. */
  killGraceMs?: number;
  /** How long the pipes may stay open after the leader exited (a descendant holding them). Default 500. */
  pipeDrainMs?: number;
  /**
   * Descendants that left the process group survive a normal exit (a tool that starts a daemon on
   * purpose). A timeout or an abort still ends them.
   */
  keepDetached?: boolean;
  /**
   * Receives every line of stdout in full (ANSI stripped, no newline), as it arrives: findings are
   * parsed from the whole output while `stdout` stays capped for display.
   */
  onStdoutLine?: (line: string) => void;
  /** The same for stderr (black, for one, reports the files it would change there). */
  onStderrLine?: (line: string) => void;
  /** Every stdout chunk as it arrives, uncapped (a tool printing a corrected source there). */
  onStdoutData?: (chunk: Buffer) => void;
  /** Written to the program's stdin, which is then closed (otherwise stdin is /dev/null). */
  stdin?: string;
  /** The sandbox it runs in (sandbox/launch.ts); absent: unsandboxed (the runner's own tests). */
  sandbox?: SandboxRun;
}

export interface RunResult {
  /** Exit code, or null when killed by a signal. */
  returncode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Bytes cut from either stream. */
  truncated: boolean;
  stdoutBytes: number;
  stderrBytes: number;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** The resolved executable that ran. */
  executable: string;
  /** The sandbox profile it ran in; undefined when unsandboxed. */
  sandboxProfile?: SandboxProfile;
  /** Said about the sandbox: why it ran unsandboxed, or files its output names that the sandbox hid. */
  sandboxNotes: string[];
  /** Host files the output names that the sandbox did not show (outside the allowed roots). */
  invisiblePaths: string[];
}

export class ProgramNotFoundError extends Error {
  constructor(readonly program: string) {
    super(`${program} is not installed (not found on PATH)`);
    this.name = "ProgramNotFoundError";
  }
}

export { killGroup };

const DEFAULT_PIPE_DRAIN_MS = 500;

export async function runBounded(spec: RunSpec): Promise<RunResult> {
  const executable = findExecutable(spec.program, spec.searchDirs);
  if (!executable) throw new ProgramNotFoundError(spec.program);
  const started = performance.now();
  const runToken = newRunToken();

  // Throws (before anything starts) when the sandbox is required and cannot run.
  let launch = sandboxLaunch(
    executable,
    spec.args,
    spec.cwd,
    spec.sandbox,
    spec.env ?? {},
    process.env,
    spec.declaredEnv,
  );
  // What a run of project code finds read-only in the shared caches is put there first (sandbox/fill.ts).
  const fill =
    launch.profile && spec.sandbox
      ? fillStepFor(executable, spec.args, spec.cwd, spec.sandbox.request, launch.profile)
      : undefined;
  let fetched = fill === "done";
  if (fill && fill !== "done" && spec.sandbox) {
    const sandbox = spec.sandbox;
    // The same step under way for another run (cargo check and clippy of one crate at once) is waited for.
    const { result, shared } = fillOnce(fill, spec.env, () =>
      runBounded({
        ...spec,
        program: fill.program ?? executable,
        args: fill.args,
        env: { ...spec.env, ...fill.env },
        declaredEnv: fill.declaredEnv,
        sandbox: { ...sandbox, request: fill.request },
        onStdoutLine: undefined,
        onStderrLine: undefined,
        onStdoutData: undefined,
        stdin: undefined,
      }),
    );
    const filled = await result;
    if (filled.returncode === 0) {
      fillDone(fill);
      fetched = true;
    }
    // The call's time limit bounds both; another run's step that timed out leaves this run to say what is
    // missing.
    if (!shared && (filled.timedOut || filled.aborted)) return filled;
  }
  // Everything it needs fetched: the run itself (the project's build scripts) gets no network.
  let runEnv = spec.env;
  if (fetched && spec.sandbox && launch.profile && offlineAfterFill(executable, spec.sandbox.request)) {
    runEnv = { ...spec.env, CARGO_NET_OFFLINE: "true" };
    launch = sandboxLaunch(
      executable,
      spec.args,
      spec.cwd,
      { ...spec.sandbox, request: { ...spec.sandbox.request, offline: true } },
      runEnv,
      process.env,
      spec.declaredEnv,
    );
  }
  const colorsOff = spec.colorEnv !== "keep";
  const env: NodeJS.ProcessEnv = {
    ...launch.env,
    ...(colorsOff ? { NO_COLOR: "1", TERM: "dumb" } : {}),
    ...runEnv,
    ...markedEnv(runToken, launch.profile !== undefined),
  };
  if (colorsOff) delete env.FORCE_COLOR;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];

  const child = spawn(launch.program, launch.args, {
    cwd: spec.cwd,
    env,
    stdio: [spec.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    detached: true, // own process group, so a timeout can kill children and grandchildren
    shell: false,
    windowsHide: true,
  }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
  const untrack = child.pid
    ? trackChildGroup({ pgid: child.pid, token: runToken, label: path.basename(executable) })
    : () => {};
  const out = new CappedBuffer(spec.maxOutputBytes);
  const err = new CappedBuffer(spec.maxOutputBytes);
  const lines = spec.onStdoutLine ? new LineSplitter(spec.onStdoutLine) : undefined;
  if (spec.stdin !== undefined && child.stdin) {
    // A program that exits without reading all of it must not crash the server with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(spec.stdin);
  }
  child.stdout.on("data", (c: Buffer) => {
    spec.onStdoutData?.(c);
    out.push(c);
    lines?.push(c);
  });
  const errLines = spec.onStderrLine ? new LineSplitter(spec.onStderrLine) : undefined;
  child.stderr.on("data", (c: Buffer) => {
    err.push(c);
    errLines?.push(c);
  });

  const killGraceMs = spec.killGraceMs ?? 1000;
  const drainMs = spec.pipeDrainMs ?? DEFAULT_PIPE_DRAIN_MS;
  let timedOut = false;
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;
  let hardStop: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  let leaderExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let settle: (r: { code: number | null; signal: NodeJS.Signals | null }) => void = () => {};

  const killAll = (signal: NodeJS.Signals) => {
    killGroup(child.pid, signal);
    void killMarked(runToken, signal);
  };
  const terminate = () => {
    if (killTimer) return;
    killAll("SIGTERM");
    killTimer = setTimeout(() => killAll("SIGKILL"), killGraceMs);
    // Whatever survives or holds the pipes, the call returns shortly after the SIGKILL.
    hardStop = setTimeout(
      () => settle(leaderExit ?? { code: null, signal: "SIGKILL" }),
      killGraceMs + drainMs + 500,
    );
  };
  const timer = setTimeout(
    () => {
      timedOut = true;
      terminate();
    },
    Math.max(1, spec.timeoutMs - (performance.now() - started)),
  );
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  spec.signal?.addEventListener("abort", onAbort, { once: true });

  let closed = false;
  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        settle = resolve;
        child.once("error", (e: NodeJS.ErrnoException) => {
          if (e.code === "ENOENT" || e.code === "EACCES") reject(new ProgramNotFoundError(spec.program));
          else reject(e);
        });
        child.once("close", (c, s) => {
          closed = true;
          resolve({ code: c, signal: s });
        });
        // 'close' waits for the pipes; a descendant holding them must not hold the call: after the
        // leader's exit they get a short drain, then are cut off.
        child.once("exit", (c, s) => {
          leaderExit = { code: c, signal: s };
          drainTimer = setTimeout(() => resolve({ code: c, signal: s }), drainMs);
        });
      },
    );
    lines?.end();
    errLines?.end();
    const stdout = stripVTControlCharacters(out.toString());
    const stderr = stripVTControlCharacters(err.toString());
    const hidden = launch.profile && code !== 0 ? invisiblePaths(launch.profile, `${stderr}\n${stdout}`) : [];
    return {
      returncode: code,
      signal,
      stdout,
      stderr,
      truncated: out.truncatedBytes > 0 || err.truncatedBytes > 0,
      stdoutBytes: out.totalBytes,
      stderrBytes: err.totalBytes,
      timedOut,
      aborted,
      durationMs: Math.round(performance.now() - started),
      executable,
      sandboxProfile: launch.profile,
      sandboxNotes: [
        ...(launch.note ? [launch.note] : []),
        ...limitNotes(launch.profile?.limits, code, timedOut || aborted),
      ],
      invisiblePaths: hidden,
    };
  } finally {
    // What the process wrote is seen by the walks after it.
    treeMayHaveChanged();
    clearTimeout(timer);
    clearTimeout(drainTimer);
    clearTimeout(hardStop);
    spec.signal?.removeEventListener("abort", onAbort);
    // Leave no stragglers: anything still in the group after the leader is done is ended, and so is
    // anything that left the group, unless the caller wants its daemons.
    killGroup(child.pid, "SIGKILL");
    // A short run's stragglers can only have pids above its leader's (see killMarked). A sandboxed run
    // whose bwrap has exited left none: its pid namespace ended with it, and the kernel killed whatever
    // was left in it (reading every /proc/<pid>/environ cost ~1 ms of the main thread a call).
    const short = performance.now() - started < 1000;
    const namespaceGone = launch.profile !== undefined && leaderExit !== undefined;
    if ((!spec.keepDetached || timedOut || aborted) && !namespaceGone)
      void killMarked(runToken, "SIGKILL", undefined, short ? child.pid : undefined);
    if (killTimer) clearTimeout(killTimer);
    if (!closed) {
      // Our ends of the pipes: closing them releases the descriptors (a holder gets EPIPE).
      child.stdout.destroy();
      child.stderr.destroy();
    }
    untrack();
    await treeChangesSeen();
  }
}

/**
 * What a run ended by a resource limit says: RLIMIT_CPU kills with SIGXCPU or, at the hard limit, SIGKILL
 * (bwrap reports 128 + the signal); an allocation past RLIMIT_DATA fails inside the tool, in its own words.
 */
function limitNotes(limits: ResourceLimits | undefined, code: number | null, stopped: boolean): string[] {
  if (!limits || stopped) return [];
  const notes: string[] = [];
  if (limits.cpuSeconds && (code === 128 + 9 || code === 128 + 24))
    notes.push(
      `the tool was killed (exit ${code}), most likely at its CPU limit of ${limits.cpuSeconds} s ` +
        "(--tool-max-cpu-seconds); raise it, or set 0 for none",
    );
  if (limits.dataBytes && code !== 0)
    notes.push(
      `the tool ran with a memory limit of ${Math.round(limits.dataBytes / 1024 / 1024)} MiB (--tool-max-memory-mb); ` +
        "an out-of-memory error in its output is that limit",
    );
  return notes;
}
