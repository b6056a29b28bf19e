/**
 * The mypy daemon (`dmypy`), one per project root and configuration: started in the foreground
 * (`dmypy --status-file F daemon -- flags`) as a detached child of the server, so its pid and process
 * group are ours to kill; its status file and IPC socket live in a private temp folder of the server
 * (never the project), removed when it ends. Requests go straight to its Unix socket with dmypy's own
 * protocol (one JSON object each way, the writer half-closes), which skips the client's startup.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { DaemonProcess, type WarmDaemon } from "../../exec/warm-daemons.js";

export interface DmypyResponse {
  out?: string;
  err?: string;
  status?: number;
  /** The daemon asks to be restarted (its options, plugins or mypy version changed). */
  restart?: string;
  /** An IPC or daemon failure. */
  error?: string;
}

/** The daemon did not answer in time; the caller kills it. */
export class DaemonTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the mypy daemon did not answer within ${Math.round(timeoutMs / 1000)} s`);
    this.name = "DaemonTimeoutError";
  }
}

/** The daemon could not start or went away mid-request. */
export class DaemonFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DaemonFailedError";
  }
}

/** argv of the foreground daemon: `--timeout` makes an orphan (server killed by SIGKILL) exit by itself. */
export function dmypyDaemonArgs(
  statusFile: string,
  flags: readonly string[],
  selfExitSeconds: number,
): string[] {
  return ["--status-file", statusFile, "daemon", "--timeout", String(selfExitSeconds), "--", ...flags];
}

/** The `run` request dmypy's own client sends for `dmypy run -- args`. */
export function dmypyRunRequest(version: string, args: readonly string[]): string {
  return JSON.stringify({
    command: "run",
    version,
    args,
    export_types: false,
    is_tty: false,
    terminal_width: 80,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class MypyDaemon implements WarmDaemon {
  readonly tool = "mypy";
  requests = 0;
  busy = 0;
  lastUsed = Date.now();
  private readonly proc: DaemonProcess;
  private readonly dir: string;
  private readonly statusFile: string;
  private connection: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly root: string,
    dmypy: string,
    cwd: string,
    flags: readonly string[],
    selfExitSeconds: number,
  ) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-dmypy-"));
    const tmp = path.join(this.dir, "tmp");
    fs.mkdirSync(tmp, { mode: 0o700 });
    this.statusFile = path.join(this.dir, "status.json");
    this.proc = new DaemonProcess({
      program: dmypy,
      args: dmypyDaemonArgs(this.statusFile, flags, selfExitSeconds),
      cwd,
      // Its socket folder goes into our temp folder, so nothing is left in /tmp if it is killed.
      env: { TMPDIR: tmp, PYTHONDONTWRITEBYTECODE: "1" },
    });
    void this.proc.exited.then(() => this.cleanup());
  }

  get pid(): number {
    return this.proc.pid;
  }
  get startedAt(): number {
    return this.proc.startedAt;
  }
  get dead(): boolean {
    return this.proc.dead;
  }
  /**
   * What the daemon printed while reading its options (config warnings such as "Not a boolean"); mypy
   * prints them on every cold run, so they go with every answer of the daemon.
   */
  get startupStderr(): string {
    return this.proc.stderrTail;
  }

  /** One `run` request, after those queued before it. */
  run(
    version: string,
    args: readonly string[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<DmypyResponse> {
    const go = this.queue.then(() => this.send(version, args, timeoutMs, signal));
    this.queue = go.catch(() => undefined);
    return go;
  }

  private async send(
    version: string,
    args: readonly string[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<DmypyResponse> {
    const deadline = Date.now() + timeoutMs;
    const connection = await this.waitReady(deadline);
    this.requests++;
    return new Promise<DmypyResponse>((resolve, reject) => {
      const socket = net.createConnection(connection);
      const chunks: Buffer[] = [];
      let settled = false;
      const finish = (err: Error | undefined, value?: DmypyResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        socket.destroy();
        if (err) reject(err);
        else resolve(value as DmypyResponse);
      };
      const onAbort = () => finish(new DaemonTimeoutError(timeoutMs));
      const timer = setTimeout(
        () => finish(new DaemonTimeoutError(timeoutMs)),
        Math.max(1, deadline - Date.now()),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      socket.on("connect", () => socket.end(dmypyRunRequest(version, args)));
      socket.on("data", (c: Buffer) => chunks.push(c));
      socket.on("error", (e) =>
        finish(
          new DaemonFailedError(
            this.proc.dead ? this.proc.describeExit("mypy") : `mypy daemon: ${e.message}`,
          ),
        ),
      );
      socket.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        try {
          finish(undefined, JSON.parse(text) as DmypyResponse);
        } catch {
          finish(
            new DaemonFailedError(
              this.proc.dead ? this.proc.describeExit("mypy") : "the mypy daemon sent no usable answer",
            ),
          );
        }
      });
    });
  }

  /** The daemon's socket, once it has written its status file. */
  private async waitReady(deadline: number): Promise<string> {
    while (!this.connection) {
      if (this.proc.dead) throw new DaemonFailedError(this.proc.describeExit("mypy"));
      try {
        const status = JSON.parse(fs.readFileSync(this.statusFile, "utf8")) as { connection_name?: string };
        if (status.connection_name) this.connection = status.connection_name;
      } catch {
        // Not written yet.
      }
      if (this.connection) break;
      if (Date.now() > deadline) throw new DaemonTimeoutError(0);
      await sleep(20);
    }
    return this.connection;
  }

  async stop(): Promise<void> {
    this.proc.kill();
    await Promise.race([this.proc.exited, sleep(2000)]);
    this.cleanup();
  }

  private cleanup(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
