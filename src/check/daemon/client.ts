/**
 * The client side of `check --daemon`: finds (or starts) the daemon for this build, Node, user and
 * environment, proves itself to it and checks its proof (auth.ts), hands it the arguments and the working
 * directory, and copies its frames to stdout and stderr. Whenever the daemon cannot serve (an environment
 * it cannot share, a daemon that does not start, another build, a listener that is not our daemon), the
 * check runs in this process instead, as without --daemon: the flag never changes a result, only where it
 * is computed.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { buildId } from "../../cache/build-id.js";
import { daemonDir, daemonSecret } from "./daemon-dir.js";
import {
  DAEMON_IDLE_ENV,
  daemonKey,
  daemonUnfit,
  executableIdentity,
  MAX_SOCKET_PATH,
  socketPathFor,
  splitPerCommit,
} from "./key.js";
import type { DaemonAsk, DaemonStatus } from "./protocol.js";
import { exchange } from "./session.js";
import { refusalOf } from "./relax.js";

/** How long a client waits for a daemon it started to listen. */
const START_WAIT_MS = 15_000;
export const DEFAULT_IDLE_SECONDS = 900;

/** How a client's notes begin, and what it does instead of the daemon. */
interface Voice {
  prefix: string;
  fallback: string;
}
const CHECK_VOICE: Voice = {
  prefix: "mcp-code-quality check: --daemon: ",
  fallback: "checking in this process",
};
const say = (voice: Voice, text: string) => process.stderr.write(`${voice.prefix}${text}\n`);
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

interface Located {
  socket: string;
  log: string;
  secret: Buffer;
}

/** The daemon's socket for this process's identity; undefined (with a note) when none can be used. */
function locate(env: NodeJS.ProcessEnv, quiet = false, voice = CHECK_VOICE): Located | undefined {
  const unfit = daemonUnfit(env);
  if (unfit) {
    if (!quiet) say(voice, `not used: ${unfit}; ${voice.fallback}`);
    return undefined;
  }
  let dir: string;
  let secret: Buffer;
  try {
    dir = daemonDir(env);
    secret = daemonSecret(dir);
  } catch (err) {
    if (!quiet) say(voice, `not used: ${message(err)}; ${voice.fallback}`);
    return undefined;
  }
  let nodeIdentity: string;
  try {
    nodeIdentity = executableIdentity(process.execPath);
  } catch (err) {
    if (!quiet) say(voice, `not used: ${message(err)}; ${voice.fallback}`);
    return undefined;
  }
  const key = daemonKey({
    buildId: buildId(),
    execPath: process.execPath,
    nodeIdentity,
    uid: process.getuid?.() ?? "user",
    env,
  });
  const socket = socketPathFor(dir, key);
  if (socket.length > MAX_SOCKET_PATH) {
    if (!quiet) say(voice, `not used: its socket path would be too long (${socket}); ${voice.fallback}`);
    return undefined;
  }
  return { socket, log: socket.replace(/\.sock$/, ".log"), secret };
}

function idleSeconds(env: NodeJS.ProcessEnv): number {
  const v = env[DAEMON_IDLE_ENV];
  const n = v === undefined ? DEFAULT_IDLE_SECONDS : Number(v);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_IDLE_SECONDS;
}

/**
 * Starts a daemon in its own session (it outlives this process), its output appended to its log; resolves
 * when it proves itself at the socket, or to false when it ended first or did not within START_WAIT_MS.
 */
async function startDaemon(entry: string, at: Located, env: NodeJS.ProcessEnv): Promise<boolean> {
  const { O_WRONLY, O_CREAT, O_APPEND, O_NOFOLLOW } = fs.constants;
  const log = fs.openSync(at.log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o600);
  let exited = false;
  try {
    const child = spawn(process.execPath, [entry, "check-daemon", at.socket, String(idleSeconds(env))], {
      detached: true,
      stdio: ["ignore", log, log],
      cwd: path.parse(at.socket).root,
      env,
    });
    child.once("exit", () => (exited = true));
    child.once("error", () => (exited = true));
    child.unref();
  } finally {
    fs.closeSync(log);
  }
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    // Read before the probe: a daemon that exited had bound the socket or left it to another daemon.
    const gone = exited;
    if ((await exchange(at.socket, at.secret, undefined, false)).kind === "ours") return true;
    if (gone || Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Removes a listener that failed the proof, so that the next --daemon starts our daemon there. */
function dropImpostor(socketPath: string): void {
  try {
    if (fs.lstatSync(socketPath).isSocket()) fs.unlinkSync(socketPath);
  } catch {
    // gone already
  }
}

/** Who asks the daemon: its notes, and what a daemon lost mid-answer means. */
interface Asker {
  voice: Voice;
  /** The message and exit code when the daemon ended after it wrote part of its answer. */
  lost: { message: string; code: number };
}

const CHECK: Asker = {
  voice: CHECK_VOICE,
  lost: { message: "mcp-code-quality check: the check daemon ended before it answered\n", code: 3 },
};

const PRE_COMMIT: Asker = {
  voice: { prefix: "mcp-code-quality pre-commit: --daemon: ", fallback: "running the hook in this process" },
  lost: {
    message:
      "mcp-code-quality pre-commit failed, so the commit is refused: the daemon ended before it answered\n",
    code: 1,
  },
};

/**
 * Hands `ask` to the daemon of `env` (started when none runs, with `env`); resolves to its exit code, or
 * undefined when the caller should run it in this process (nothing was written then, notes apart).
 */
async function throughDaemon(
  ask: DaemonAsk,
  entry: string,
  env: NodeJS.ProcessEnv,
  who: Asker,
): Promise<number | undefined> {
  // The daemon refuses what would weaken it (relax.ts): the user's own choice runs here, with the user's access.
  const refused = refusalOf(ask, env);
  if (refused) {
    say(who.voice, `not used: the daemon refuses ${refused}; ${who.voice.fallback}`);
    return undefined;
  }
  const at = locate(env, false, who.voice);
  if (!at) return undefined;
  let outcome = await exchange(at.socket, at.secret, ask, true);
  if (outcome.kind === "unreachable") {
    let up: boolean;
    try {
      up = await startDaemon(entry, at, env);
    } catch (err) {
      say(who.voice, `could not start: ${message(err)}; ${who.voice.fallback}`);
      return undefined;
    }
    if (!up) {
      say(who.voice, `did not start (see ${at.log}); ${who.voice.fallback}`);
      return undefined;
    }
    outcome = await exchange(at.socket, at.secret, ask, true);
  }
  switch (outcome.kind) {
    case "done":
      return outcome.code;
    case "lost":
      process.stderr.write(who.lost.message);
      return who.lost.code;
    case "stale":
      return undefined;
    case "refused":
      say(who.voice, `not used: the daemon refuses ${outcome.why}; ${who.voice.fallback}`);
      return undefined;
    case "impostor":
      say(
        who.voice,
        `refused the listener at ${at.socket}: it is not this user's check daemon (${outcome.why}); ` +
          `${who.voice.fallback}`,
      );
      dropImpostor(at.socket);
      return undefined;
    default:
      say(who.voice, `did not answer (see ${at.log}); ${who.voice.fallback}`);
      return undefined;
  }
}

/**
 * Runs the check through the daemon; resolves to its exit code, or undefined when the caller should run
 * it in this process (nothing was written then).
 */
export function checkThroughDaemon(
  argv: string[],
  entry: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<number | undefined> {
  const ask: DaemonAsk = {
    type: "check",
    argv,
    cwd,
    stdoutTTY: process.stdout.isTTY === true,
    stderrTTY: process.stderr.isTTY === true,
    ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
    buildId: buildId(),
  };
  return throughDaemon(ask, entry, env, CHECK);
}

/**
 * `hook pre-commit --daemon`: the hook runs in the daemon of this environment without the variables git
 * and the human set for this commit (key.ts: isPerCommitVar), which travel with the request and are what
 * the daemon runs it with (the index git names, a partial commit's temporary one included). Resolves to
 * its exit code (its report was copied to stderr), or undefined when the caller should run the hook in
 * this process. The daemon is started, when none runs, without those variables.
 */
export function preCommitThroughDaemon(
  argv: string[],
  entry: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<number | undefined> {
  const { shared, perCommit } = splitPerCommit(env);
  const ask: DaemonAsk = { type: "pre-commit", argv, cwd, env: perCommit, buildId: buildId() };
  return throughDaemon(ask, entry, shared, PRE_COMMIT);
}

/** --daemon-stop and --daemon-status: resolves to the exit code (1 when no daemon runs). */
export async function daemonControl(
  action: "stop" | "status",
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const at = locate(env, true);
  const outcome = at
    ? await exchange(at.socket, at.secret, { type: action }, false)
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
  if (outcome.kind === "impostor")
    process.stderr.write(
      `mcp-code-quality check: refused the listener at ${at?.socket}: it is not this user's check daemon (${outcome.why})\n`,
    );
  process.stdout.write("no check daemon runs for this environment\n");
  if (at) for (const line of await otherDaemons(at)) process.stdout.write(line + "\n");
  return 1;
}

/**
 * This user's daemons of other environments, one line each: a daemon's key is the whole environment
 * (key.ts), so the git hook's, started with git's PATH, is not the shell's, and "none runs" alone sent
 * people looking for one that was running. Each proves itself before it is listed; none is stopped.
 */
async function otherDaemons(at: Located): Promise<string[]> {
  const dir = path.dirname(at.socket);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => /^check-[0-9a-f]+\.sock$/.test(n));
  } catch {
    return [];
  }
  const lines: string[] = [];
  for (const name of names.sort()) {
    const socket = path.join(dir, name);
    if (socket === at.socket) continue;
    const outcome = await exchange(socket, at.secret, { type: "status" }, false);
    const status = outcome.kind === "frames" && outcome.frames.find((f) => "status" in f);
    if (status && "status" in status)
      lines.push(
        `another runs for another environment (a variable or PATH differs; the git hook's has git's): ${JSON.stringify({ socket, ...status.status })}`,
      );
  }
  return lines;
}
