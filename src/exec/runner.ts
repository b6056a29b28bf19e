/**
 * The bounded subprocess runner: the only place that spawns tool processes.
 * argv only (never a shell), stdin from /dev/null, its own process group killed whole on timeout,
 * stdout/stderr capped head+tail, ANSI stripped, colors off.
 */
import { spawn } from "node:child_process";
import { CappedBuffer } from "./capped-buffer.js";
import { LineSplitter } from "./line-splitter.js";
import { stripAnsi } from "./ansi.js";
import { findExecutable } from "./which.js";

export interface RunSpec {
  /** Program name (looked up on PATH) or absolute path. */
  program: string;
  args: readonly string[];
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Extra environment variables (merged over the server's). */
  env?: Record<string, string | undefined>;
  /** Directories searched before PATH (e.g. a virtualenv's bin). */
  searchDirs?: readonly string[];
  signal?: AbortSignal;
  /** Grace between SIGTERM and SIGKILL on timeout. */
  killGraceMs?: number;
  /**
   * Receives every line of stdout in full (ANSI stripped, no newline), as it arrives: findings are
   * parsed from the whole output while `stdout` stays capped for display.
   */
  onStdoutLine?: (line: string) => void;
  /** The same for stderr (black, for one, reports the files it would change there). */
  onStderrLine?: (line: string) => void;
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
}

export class ProgramNotFoundError extends Error {
  constructor(readonly program: string) {
    super(`${program} is not installed (not found on PATH)`);
    this.name = "ProgramNotFoundError";
  }
}

/** Sends a signal to a whole process group; a group that is already gone is fine. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group has already exited.
  }
}

export async function runBounded(spec: RunSpec): Promise<RunResult> {
  const executable = findExecutable(spec.program, spec.searchDirs);
  if (!executable) throw new ProgramNotFoundError(spec.program);
  const started = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", TERM: "dumb", ...spec.env };
  delete env.FORCE_COLOR;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];

  const child = spawn(executable, [...spec.args], {
    cwd: spec.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // own process group, so a timeout can kill children and grandchildren
    shell: false,
    windowsHide: true,
  });
  const out = new CappedBuffer(spec.maxOutputBytes);
  const err = new CappedBuffer(spec.maxOutputBytes);
  const lines = spec.onStdoutLine ? new LineSplitter(spec.onStdoutLine) : undefined;
  child.stdout.on("data", (c: Buffer) => {
    out.push(c);
    lines?.push(c);
  });
  const errLines = spec.onStderrLine ? new LineSplitter(spec.onStderrLine) : undefined;
  child.stderr.on("data", (c: Buffer) => {
    err.push(c);
    errLines?.push(c);
  });

  let timedOut = false;
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = () => {
    killGroup(child.pid, "SIGTERM");
    killTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), spec.killGraceMs ?? 1000);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, spec.timeoutMs);
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  spec.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once("error", (e: NodeJS.ErrnoException) => {
          if (e.code === "ENOENT" || e.code === "EACCES") reject(new ProgramNotFoundError(spec.program));
          else reject(e);
        });
        // 'close' waits for the pipes; a grandchild holding them keeps us waiting until the timeout kills it.
        child.once("close", (c, s) => resolve({ code: c, signal: s }));
      },
    );
    lines?.end();
    errLines?.end();
    return {
      returncode: code,
      signal,
      stdout: stripAnsi(out.toString()),
      stderr: stripAnsi(err.toString()),
      truncated: out.truncatedBytes > 0 || err.truncatedBytes > 0,
      stdoutBytes: out.totalBytes,
      stderrBytes: err.totalBytes,
      timedOut,
      aborted,
      durationMs: Math.round(performance.now() - started),
      executable,
    };
  } finally {
    clearTimeout(timer);
    spec.signal?.removeEventListener("abort", onAbort);
    // Leave no stragglers: anything still in the group after the leader is done is ended.
    killGroup(child.pid, "SIGKILL");
    if (killTimer) clearTimeout(killTimer);
  }
}
