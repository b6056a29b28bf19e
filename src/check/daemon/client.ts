/**
 * The client side of `check --daemon`: finds (or starts) the daemon for this build, Node, user and
 * environment, hands it the arguments and the working directory, and copies its frames to stdout and
 * stderr. Whenever the daemon cannot serve (an environment it cannot share, a daemon that does not start,
 * another build), the check runs in this process instead, as without --daemon: the flag never changes a
 * result, only where it is computed.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { buildId } from "../../cache/build-id.js";
import { scratchRoot } from "../../exec/sandbox/scratch.js";
import { DAEMON_IDLE_ENV, daemonKey, daemonUnfit, MAX_SOCKET_PATH, socketPathFor } from "./key.js";
import { frame, LineReader, type DaemonFrame, type DaemonRequest, type DaemonStatus } from "./protocol.js";

/** How long a client waits for a daemon it started to listen. */
const START_WAIT_MS = 15_000;
export const DEFAULT_IDLE_SECONDS = 900;

const note = (text: string) => process.stderr.write(`mcp-code-quality check: --daemon: ${text}\n`);

interface Located {
  socket: string;
  log: string;
}

/** The daemon's socket for this process's identity; undefined (with a note) when none can be used. */
function locate(env: NodeJS.ProcessEnv, quiet = false): Located | undefined {
  const unfit = daemonUnfit(env);
  if (unfit) {
    if (!quiet) note(`not used: ${unfit}; checking in this process`);
    return undefined;
  }
  let scratch: string;
  try {
    scratch = scratchRoot();
  } catch (err) {
    if (!quiet)
      note(`not used: ${err instanceof Error ? err.message : String(err)}; checking in this process`);
    return undefined;
  }
  const key = daemonKey({
    buildId: buildId(),
    execPath: process.execPath,
    nodeVersion: process.version,
    uid: process.getuid?.() ?? "user",
    env,
  });
  const socket = socketPathFor(scratch, key);
  if (socket.length > MAX_SOCKET_PATH) {
    if (!quiet) note(`not used: its socket path would be too long (${socket}); checking in this process`);
    return undefined;
  }
  return { socket, log: socket.replace(/\.sock$/, ".log") };
}

type Outcome =
  | { kind: "done"; code: number }
  | { kind: "unreachable" }
  | { kind: "stale" }
  | { kind: "frames"; frames: DaemonFrame[] }
  /** The daemon went away mid-answer, after some output was written. */
  | { kind: "lost" };

/** Sends one request; copies output frames to our streams as they come. */
function exchange(socketPath: string, request: DaemonRequest, copyOutput: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.setEncoding("utf8");
    let connected = false;
    let wroteOutput = false;
    let settled = false;
    const frames: DaemonFrame[] = [];
    const settle = (o: Outcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(o);
    };
    const reader = new LineReader((line) => {
      let f: DaemonFrame;
      try {
        f = JSON.parse(line) as DaemonFrame;
      } catch {
        return;
      }
      if (copyOutput && "o" in f) {
        wroteOutput = true;
        process.stdout.write(f.o);
      } else if (copyOutput && "e" in f) {
        wroteOutput = true;
        process.stderr.write(f.e);
      } else if ("exit" in f) settle({ kind: "done", code: f.exit });
      else if ("stale" in f) settle({ kind: "stale" });
      else frames.push(f);
    });
    socket.on("connect", () => {
      connected = true;
      socket.write(frame(request as unknown as DaemonFrame));
    });
    socket.on("data", (chunk: string) => reader.push(chunk));
    socket.on("error", () =>
      settle(
        connected ? (wroteOutput ? { kind: "lost" } : { kind: "unreachable" }) : { kind: "unreachable" },
      ),
    );
    socket.on("close", () =>
      settle(
        frames.length ? { kind: "frames", frames } : wroteOutput ? { kind: "lost" } : { kind: "unreachable" },
      ),
    );
  });
}

function idleSeconds(env: NodeJS.ProcessEnv): number {
  const v = env[DAEMON_IDLE_ENV];
  const n = v === undefined ? DEFAULT_IDLE_SECONDS : Number(v);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_IDLE_SECONDS;
}

/** Starts a daemon in its own session (it outlives this process), its output appended to its log. */
function startDaemon(entry: string, at: Located, env: NodeJS.ProcessEnv): void {
  const { O_WRONLY, O_CREAT, O_APPEND, O_NOFOLLOW } = fs.constants;
  const log = fs.openSync(at.log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o600);
  try {
    const child = spawn(process.execPath, [entry, "check-daemon", at.socket, String(idleSeconds(env))], {
      detached: true,
      stdio: ["ignore", log, log],
      cwd: path.parse(at.socket).root,
      env,
    });
    child.unref();
  } finally {
    fs.closeSync(log);
  }
}

async function waitForDaemon(socketPath: string): Promise<boolean> {
  const deadline = Date.now() + START_WAIT_MS;
  while (Date.now() < deadline) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(socketPath);
      s.once("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
    });
    if (up) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/**
 * Runs the check through the daemon; resolves to its exit code, or undefined when the caller should run
 * it in this process (nothing was written then).
 */
export async function checkThroughDaemon(
  argv: string[],
  entry: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<number | undefined> {
  const at = locate(env);
  if (!at) return undefined;
  const request: DaemonRequest = {
    type: "check",
    argv,
    cwd,
    stdoutTTY: process.stdout.isTTY === true,
    stderrTTY: process.stderr.isTTY === true,
    ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
    buildId: buildId(),
  };
  let outcome = await exchange(at.socket, request, true);
  if (outcome.kind === "unreachable") {
    try {
      startDaemon(entry, at, env);
    } catch (err) {
      note(`could not start: ${err instanceof Error ? err.message : String(err)}; checking in this process`);
      return undefined;
    }
    if (!(await waitForDaemon(at.socket))) {
      note(`did not start within ${START_WAIT_MS / 1000} s (see ${at.log}); checking in this process`);
      return undefined;
    }
    outcome = await exchange(at.socket, request, true);
  }
  switch (outcome.kind) {
    case "done":
      return outcome.code;
    case "lost":
      process.stderr.write("mcp-code-quality check: the check daemon ended before it answered\n");
      return 3;
    case "stale":
      return undefined;
    default:
      note(`did not answer (see ${at.log}); checking in this process`);
      return undefined;
  }
}

/** --daemon-stop and --daemon-status: resolves to the exit code (1 when no daemon runs). */
export async function daemonControl(
  action: "stop" | "status",
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const at = locate(env, true);
  const outcome = at
    ? await exchange(at.socket, { type: action }, false)
    : ({ kind: "unreachable" } as const);
  const frames = outcome.kind === "frames" ? outcome.frames : [];
  if (action === "stop" && frames.some((f) => "stopped" in f)) {
    process.stdout.write("stopped the check daemon of this environment\n");
    return 0;
  }
  const status = frames.find((f): f is { status: DaemonStatus } => "status" in f);
  if (status) {
    process.stdout.write(JSON.stringify({ socket: at?.socket, ...status.status }) + "\n");
    return 0;
  }
  process.stdout.write("no check daemon runs for this environment\n");
  return 1;
}
