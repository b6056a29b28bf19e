/**
 * The mypy daemon (`dmypy`), one per project root and configuration: started in the foreground
 * (`dmypy --status-file F daemon -- flags`) as a detached child of the server, so its pid and process
 * group are ours to kill; its status file and IPC socket live in a private temp folder of the server
 * (never the project), removed when it ends. Requests go straight to its Unix socket with dmypy's own
 * protocol, which skips the client's startup. Its framing depends on the mypy version (dmypyFraming): before
 * 1.7 one JSON object each way, the writer half-closing; from 1.7 each message base64-encoded and followed by
 * a space; from 1.20 each prefixed by its length (4 bytes, big-endian). From 1.7 the daemon sends its own
 * stdout/stderr as messages of their own before the answer, which carries `"final": true`.
 */
import fs from "node:fs";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import type { SandboxRun } from "../../exec/sandbox/launch.js";
import net from "node:net";
import path from "node:path";
import { DaemonProcess } from "../../exec/warm-daemons.js";
import { QueuedDaemon } from "./queued-daemon.js";

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

export type DmypyFraming = "eof" | "base64" | "length";

/** How a mypy version's daemon frames its messages (mypy/ipc.py of that release). */
export function dmypyFraming(version: string): DmypyFraming {
  const [major = 0, minor = 0] = version.split(/[.+-]/).map((n) => Number.parseInt(n, 10) || 0);
  if (major < 1 || (major === 1 && minor < 7)) return "eof";
  if (major === 1 && minor < 20) return "base64";
  return "length";
}

/** One request in the daemon's framing. */
export function encodeDmypyMessage(json: string, framing: DmypyFraming): Buffer {
  const data = Buffer.from(json, "utf8");
  if (framing === "eof") return data;
  if (framing === "base64") return Buffer.from(`${data.toString("base64")} `, "latin1");
  const header = Buffer.alloc(4);
  header.writeUInt32BE(data.length);
  return Buffer.concat([header, data]);
}

/**
 * Reads the daemon's messages as its bytes arrive. `push` returns the answer once complete: with framing
 * "eof" only at the end of the stream (`end`), otherwise the first message with `final` set (the stdout and
 * stderr messages before it are dropped: the answer's `out`/`err` hold mypy's output).
 */
export class DmypyReader {
  private buffer = Buffer.alloc(0);

  constructor(private readonly framing: DmypyFraming) {}

  push(chunk: Buffer): DmypyResponse | undefined {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    if (this.framing === "eof") return undefined;
    for (;;) {
      const frame = this.nextFrame();
      if (frame === undefined) return undefined;
      const message = JSON.parse(frame) as DmypyResponse & { final?: boolean };
      if (message.final) {
        delete message.final;
        return message;
      }
    }
  }

  /** The stream ended: the answer of an "eof" daemon, else undefined (it ended before its answer). */
  end(): DmypyResponse | undefined {
    if (this.framing !== "eof" || this.buffer.length === 0) return undefined;
    return JSON.parse(this.buffer.toString("utf8")) as DmypyResponse;
  }

  private nextFrame(): string | undefined {
    if (this.framing === "base64") {
      const space = this.buffer.indexOf(0x20);
      if (space === -1) return undefined;
      const frame = this.buffer.subarray(0, space).toString("latin1");
      this.buffer = this.buffer.subarray(space + 1);
      return Buffer.from(frame, "base64").toString("utf8");
    }
    if (this.buffer.length < 4) return undefined;
    const size = this.buffer.readUInt32BE(0);
    if (this.buffer.length < 4 + size) return undefined;
    const frame = this.buffer.subarray(4, 4 + size).toString("utf8");
    this.buffer = this.buffer.subarray(4 + size);
    return frame;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class MypyDaemon extends QueuedDaemon {
  readonly tool = "mypy";
  protected readonly proc: DaemonProcess;
  private readonly dir: string;
  private readonly statusFile: string;
  private connection: string | undefined;

  constructor(
    readonly root: string,
    dmypy: string,
    cwd: string,
    flags: readonly string[],
    selfExitSeconds: number,
    sandbox?: SandboxRun,
  ) {
    super();
    // In the per-user scratch folder, which its sandbox shows read-write (its socket and status file).
    this.dir = makeScratchDir("mcq-dmypy-");
    const tmp = path.join(this.dir, "tmp");
    fs.mkdirSync(tmp, { mode: 0o700 });
    this.statusFile = path.join(this.dir, "status.json");
    this.proc = new DaemonProcess({
      program: dmypy,
      args: dmypyDaemonArgs(this.statusFile, flags, selfExitSeconds),
      cwd,
      // Its socket folder goes into our temp folder, so nothing is left in /tmp if it is killed.
      env: { TMPDIR: tmp, PYTHONDONTWRITEBYTECODE: "1" },
      sandbox,
    });
    void this.proc.exited.then(() => this.cleanup());
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
    return this.inTurn(() => this.send(version, args, timeoutMs, signal));
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
      const framing = dmypyFraming(version);
      const reader = new DmypyReader(framing);
      const unusable = () =>
        new DaemonFailedError(
          this.proc.dead ? this.proc.describeExit("mypy") : "the mypy daemon sent no usable answer",
        );
      socket.on("connect", () => {
        const request = encodeDmypyMessage(dmypyRunRequest(version, args), framing);
        // The oldest daemons read to the end of the stream; the others read one framed message.
        if (framing === "eof") socket.end(request);
        else socket.write(request);
      });
      socket.on("data", (c: Buffer) => {
        try {
          const answer = reader.push(c);
          if (answer) finish(undefined, answer);
        } catch {
          finish(unusable());
        }
      });
      socket.on("error", (e) =>
        finish(
          new DaemonFailedError(
            this.proc.dead ? this.proc.describeExit("mypy") : `mypy daemon: ${e.message}`,
          ),
        ),
      );
      socket.on("end", () => {
        try {
          const answer = reader.end();
          finish(answer ? undefined : unusable(), answer);
        } catch {
          finish(unusable());
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
