/**
 * The check daemon (`check --daemon` starts it): one long-lived process per build, Node, user and
 * environment that runs `check` for its clients, so a repeated check pays neither Node's start nor the
 * loading of the engine and adapters, nor the tools' version probes and the sandbox probe, which stay
 * known in this process. Each check builds its engine from the client's arguments and working directory
 * exactly as a direct run does, and its output reaches the client's stdout and stderr unchanged. It also
 * runs the git pre-commit hook for `hook pre-commit --daemon` (servePreCommit), with the commit's own git
 * variables, and keeps that hook's lint engines apart from the checks'.
 *
 * It listens on a socket in its own 0700 folder that no sandbox binds (daemon-dir.ts), serves only a client
 * that proves it read the secret there (auth.ts), refuses any request that would weaken it (relax.ts), runs
 * requests of different projects at once, up to MAX_RUNNING, and those of one project in turn (turns.ts),
 * and exits after its idle time, or on `check --daemon-stop`, or once its build is replaced.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { properLockfile } from "../../exec/lockfile-lazy.js";
import { buildId as runningBuildId, BUILD_ID_FILE } from "../../cache/build-id.js";
import { endAllChildren } from "../../exec/child-groups.js";
import { codePath } from "../../package-root.js";
import type { Config } from "../../config.js";
import type { Engine } from "../../engine/engine.js";
import { sharedTree } from "../../paths/tree-scan.js";
import { runCheckCommand, type CheckIo, type EngineKeeper } from "../command.js";
import type { OutputStream } from "../output.js";
import type { ProgressSink } from "../progress.js";
import { proofHolds, proofOf } from "./auth.js";
import { daemonSecret, ensurePrivateDir } from "./daemon-dir.js";
import { requestEnv } from "./key.js";
import {
  frame,
  LineReader,
  MAX_REQUEST_BYTES,
  parseHello,
  parseRequest,
  type DaemonRequest,
} from "./protocol.js";
import { exchange } from "./session.js";
import { refusalOf } from "./relax.js";
import { Turns } from "./turns.js";

/** A stream of the client's (stdout or stderr) carried as frames over the socket. */
function framedStream(
  socket: net.Socket,
  tag: "o" | "e",
  isTTY: boolean,
  columns: number | undefined,
): ProgressSink & OutputStream {
  return {
    isTTY,
    columns,
    write: (chunk: string) =>
      socket.destroyed ? false : socket.write(frame(tag === "o" ? { o: chunk } : { e: chunk })),
    once: (event, listener) => socket.once(event, listener),
    removeListener: (event, listener) => socket.removeListener(event, listener),
    get destroyed() {
      return socket.destroyed;
    },
  };
}

/** Engines the daemon keeps, by their whole Config: at most this many unused, the least recently used closed first. */
const MAX_ENGINES = 4;

class EnginePool implements EngineKeeper {
  private readonly engines = new Map<string, Engine>();
  /** Checks using each engine now: one in use is never closed under them, however many others came since. */
  private readonly users = new Map<Engine, number>();

  engineFor(config: Config, make: () => Engine): Engine {
    const key = JSON.stringify(config);
    let engine = this.engines.get(key);
    if (engine) this.engines.delete(key);
    else {
      engine = make();
      // A daemon answers many checks of the same trees: it learns their changes from the kernel.
      if (config.treeWatch) sharedTree.watchTree(engine.allowlist.roots.effective);
    }
    this.engines.set(key, engine);
    this.users.set(engine, (this.users.get(engine) ?? 0) + 1);
    this.trim();
    return engine;
  }

  release(engine: Engine): void {
    const n = (this.users.get(engine) ?? 1) - 1;
    if (n > 0) this.users.set(engine, n);
    else this.users.delete(engine);
    this.trim();
  }

  /** Closes the least recently used engines nobody uses while more than MAX_ENGINES are kept. */
  private trim(): void {
    let excess = this.engines.size - MAX_ENGINES;
    for (const [key, e] of this.engines) {
      if (excess <= 0) break;
      if (this.users.has(e)) continue;
      this.engines.delete(key);
      excess--;
      void e.close().catch(() => {});
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.engines.values()];
    this.engines.clear();
    await Promise.race([
      Promise.all(all.map((e) => e.close().catch(() => {}))),
      new Promise((r) => setTimeout(r, 2000).unref()),
    ]);
  }
}

/**
 * Requests answered at once; more wait their turn (turns.ts). Each check already runs its tools in parallel
 * within --max-concurrent: this bounds how many checks' tools share the machine, while a slow project's
 * check (a config that spins) leaves the other slots to other projects.
 */
export const MAX_RUNNING = 4;

/** The build id dist/build-id.json holds now (another once `npm run build` ran again). */
function buildOnDisk(): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(codePath(BUILD_ID_FILE), "utf8")) as { id?: string }).id;
  } catch {
    return undefined;
  }
}

/**
 * `hook pre-commit` for a client's commit: in its working directory, with this daemon's environment and the
 * variables git set for that commit (key.ts: requestEnv; never the daemon's own), its report carried to the
 * client's stderr. Resolves to the hook's exit code; an error of the daemon refuses the commit, as one of
 * the hook does.
 */
async function servePreCommit(
  socket: net.Socket,
  request: Extract<DaemonRequest, { type: "pre-commit" }>,
  engines: EnginePool,
  turn: (folders: readonly string[]) => Promise<() => void>,
): Promise<number> {
  const since = performance.now();
  const stderr = (text: string) => void (socket.destroyed || socket.write(frame({ e: text })));
  let endTurn: (() => void) | undefined;
  try {
    // git runs the hook at the top of the work tree: the commit's turn is that folder's.
    endTurn = await turn([canonical(request.cwd)]);
    const { runPreCommitHook } = await import("../../hooks/pre-commit.js");
    return await runPreCommitHook(requestEnv(process.env, request.env), request.argv, {
      cwd: request.cwd,
      stderr,
      since,
      engines,
    });
  } catch (err) {
    stderr(
      `mcp-code-quality pre-commit failed, so the commit is refused: internal error in the check daemon: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return 1;
  } finally {
    endTurn?.();
  }
}

const canonical = (dir: string) => {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
};

/** A connection has this long to prove itself before it is dropped. */
const HANDSHAKE_MS = 10_000;

/**
 * Under the start lock of this socket (two clients may start a daemon at once): whether our daemon of this
 * key already serves there; anything else left at the path (a dead socket, a file, a folder, a listener
 * that cannot prove itself) is removed at once, so the new daemon binds it.
 */
async function claimSocketPath(socketPath: string, secret: Buffer): Promise<"serving" | "free"> {
  const st = fs.lstatSync(socketPath, { throwIfNoEntry: false });
  if (!st) return "free";
  if (st.isSocket() && (await exchange(socketPath, secret, undefined, false)).kind === "ours")
    return "serving";
  // The folder is this user's alone (0700) and no sandbox sees it: whatever is there was left by us.
  fs.rmSync(socketPath, { recursive: true, force: true });
  return "free";
}

/**
 * Starts the daemon; it serves until it is idle for `idleMs`, stopped, or its build is replaced, then
 * exits the process. Resolves to false at once when another daemon already serves at `socketPath`.
 */
export async function runCheckDaemon(socketPath: string, idleMs: number): Promise<boolean> {
  process.on("exit", () => endAllChildren("SIGKILL"));
  const dir = path.dirname(socketPath);
  ensurePrivateDir(dir);
  const secret = daemonSecret(dir, false);
  const socketName = path.basename(socketPath);
  const unlockStart = await properLockfile().lock(socketPath, {
    realpath: false,
    lockfilePath: `${socketPath}.start.lock`,
    stale: 10_000,
    retries: { retries: 300, factor: 1, minTimeout: 50, maxTimeout: 50 },
    onCompromised: () => {},
  });
  try {
    if ((await claimSocketPath(socketPath, secret)) === "serving") return false;
  } catch (err) {
    await unlockStart().catch(() => {});
    throw err;
  }
  const ownBuild = runningBuildId();
  const started = new Date();
  let served = 0;
  let lastActive = Date.now();
  let active = 0;
  // Requests being answered (or waiting their turn): a shutdown lets them end first.
  const inFlight = new Set<Promise<void>>();
  const turns = new Turns(MAX_RUNNING);
  let closing = false;
  // The inode of the socket this daemon bound (set once listening).
  const bound = { ino: -1 };

  const engines = new EnginePool();
  // The hook's engines apart: one with lint_check alone must never serve a check of the same Config.
  const hookEngines = new EnginePool();
  const server = net.createServer();
  const shutdown = () => {
    if (closing) return;
    closing = true;
    server.close();
    try {
      // Only our own socket: a new daemon may have bound the name since (after a stale answer).
      if (fs.lstatSync(socketPath).ino === bound.ino) fs.unlinkSync(socketPath);
    } catch {
      // already gone
    }
    void Promise.allSettled([...inFlight])
      .finally(() => Promise.all([engines.closeAll(), hookEngines.closeAll()]))
      .finally(() => process.exit(0));
  };

  const serve = async (
    socket: net.Socket,
    request: Extract<DaemonRequest, { type: "check" | "pre-commit" }>,
  ) => {
    if (request.buildId !== ownBuild || buildOnDisk() !== ownBuild) {
      socket.end(frame({ stale: true }));
      shutdown();
      return;
    }
    // A client that goes away (Ctrl-C) stops its request: while it waits its turn, or its running tools.
    const abort = new AbortController();
    socket.once("close", () => abort.abort());
    const turn = (folders: readonly string[]) => turns.take(folders, abort.signal);
    if (request.type === "pre-commit") {
      const code = await servePreCommit(socket, request, hookEngines, turn);
      served++;
      if (!socket.destroyed) socket.end(frame({ exit: code }));
      return;
    }
    const io: CheckIo = {
      stdout: framedStream(socket, "o", request.stdoutTTY, request.columns),
      stderr: framedStream(socket, "e", request.stderrTTY, request.columns),
      env: process.env,
      cwd: request.cwd,
      engines,
      signal: abort.signal,
      turn,
    };
    let code: number;
    try {
      code = await runCheckCommand(request.argv, io);
    } catch (err) {
      io.stderr.write(
        `mcp-code-quality check: internal error in the check daemon: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      code = 3;
    }
    served++;
    if (!socket.destroyed) socket.end(frame({ exit: code }));
  };

  server.on("connection", (socket) => {
    socket.setEncoding("utf8");
    let clientNonce: string | undefined;
    const daemonNonce = randomBytes(32).toString("hex");
    let handled = false;
    // Nothing is served to a connection that has not proven itself; one that stays silent is dropped.
    socket.setTimeout(HANDSHAKE_MS, () => {
      if (!handled) socket.destroy();
    });
    const reader = new LineReader((line) => {
      if (handled) return;
      if (clientNonce === undefined) {
        const hello = parseHello(line);
        if (!hello) {
          socket.destroy();
          return;
        }
        clientNonce = hello.nonce;
        socket.write(
          frame({
            hello: {
              nonce: daemonNonce,
              proof: proofOf(secret, "daemon", socketName, clientNonce, daemonNonce),
            },
          }),
        );
        return;
      }
      handled = true;
      socket.setTimeout(0);
      const request = parseRequest(line);
      if (request && !proofHolds(request.proof, secret, "client", socketName, clientNonce, daemonNonce)) {
        // Not this user's client outside the sandbox: it gets nothing.
        socket.destroy();
        return;
      }
      if (!request) {
        socket.end(
          frame({ e: "mcp-code-quality check: the daemon got a request it does not understand\n" }) +
            frame({ exit: 2 }),
        );
        return;
      }
      // Whoever holds the secret may send any request: none may weaken what this daemon's environment
      // sets (relax.ts), whatever its kind. Refused first, so a client runs it in its own process.
      const refused = refusalOf(request, process.env);
      if (refused) {
        served++;
        const who = request.type === "pre-commit" ? "pre-commit" : "check";
        socket.end(
          frame({ refused }) +
            frame({
              e: `mcp-code-quality ${who}: the check daemon refuses ${refused}; run it without --daemon\n`,
            }) +
            frame({ exit: request.type === "pre-commit" ? 1 : 2 }),
        );
        return;
      }
      if (request.type === "stop") {
        socket.end(frame({ stopped: true }));
        shutdown();
        return;
      }
      if (request.type === "status") {
        socket.end(
          frame({
            status: {
              pid: process.pid,
              started: started.toISOString(),
              served,
              ...turns.counts,
              idle_seconds: Math.round(idleMs / 1000),
              build_id: ownBuild,
            },
          }),
        );
        return;
      }
      active++;
      // At once: the request waits for its turn (turns.ts) only where it needs its projects' engine.
      const answered: Promise<void> = serve(socket, request)
        .catch(() => {})
        .finally(() => {
          inFlight.delete(answered);
          active--;
          lastActive = Date.now();
        });
      inFlight.add(answered);
    });
    socket.on("data", (chunk: string) => {
      reader.push(chunk);
      if (!handled && reader.pendingLength > MAX_REQUEST_BYTES) socket.destroy();
    });
    socket.on("error", () => {});
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    fs.chmodSync(socketPath, 0o600);
    bound.ino = fs.lstatSync(socketPath).ino;
  } catch (err) {
    // Something bound the name since it was claimed: the client that started us checks what it is.
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") return false;
    throw err;
  } finally {
    await unlockStart().catch(() => {});
  }

  const idleCheck = setInterval(
    () => {
      if (active === 0 && Date.now() - lastActive >= idleMs) shutdown();
    },
    Math.min(idleMs, 5000),
  );
  idleCheck.unref();
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, shutdown);
  return true;
}
