/**
 * One warm worker: a long-lived process for one (tool, project root), detached into its own process group,
 * that takes one request at a time over Node's JSON IPC (others queue behind it), knows whether the files it
 * loaded are still as it read them, exits when idle, and is ended with everything it started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { killGroup, killMarked, markedEnv, newRunToken, trackChildGroup } from "./child-groups.js";
import type { WorkerReplyMessage, WorkerRequestMessage } from "./worker-protocol.js";
import { sandboxLaunch, type SandboxRun } from "./sandbox/launch.js";
import { watchCpu } from "./cpu-time.js";
import {
  exitMessage,
  WorkerCpuLimitError,
  WorkerExitError,
  WorkerGoneError,
  WorkerRequestError,
  WorkerTimeoutError,
} from "./worker-errors.js";

export interface PoolLimits {
  idleTtlMs: number;
  maxWorkers: number;
  maxHeapMb: number;
}

export interface WorkerSpec {
  /** Tool name (eslint, tsc, prettier): with `root`, the worker's identity. */
  tool: string;
  /** Canonical project root; the worker's working directory. */
  root: string;
  /** Absolute path of the worker's entry script. */
  script: string;
  /** Files whose change (presence, size, mtime) means the warm state is stale. */
  watch: readonly string[];
  /**
   * Files the adapter learnt the worker read after it started (the configs a tsconfig extends): one changed
   * since the worker started, or since it was first named, restarts it; naming one more does not. The
   * worker can report such files itself (WorkerReplyMessage.loaded): they count the same.
   */
  loaded?: readonly string[];
  /**
   * The program that runs `script` (default: this Node with the heap cap). Any runtime that speaks Node's
   * JSON IPC (one JSON object a line on the descriptor in NODE_CHANNEL_FD) can be a worker: RuboCop's is Ruby.
   */
  runtime?: { program: string; args: readonly string[] };
  /** Arguments after the root (a server folder the worker may write: the sandbox shows what argv names). */
  args?: readonly string[];
  /** The sandbox it starts in, once: its calls then pay nothing for it. */
  sandbox?: SandboxRun;
}

export interface RequestOptions {
  timeoutMs: number;
  /**
   * CPU seconds the worker (and what it started) may use for this request (--tool-max-cpu-seconds, as a
   * one-shot run gets); past them it is killed with its process group. 0 or absent: none.
   */
  cpuSeconds?: number;
  signal?: AbortSignal;
}

export interface WorkerReply<T> {
  result: T;
  pid: number;
  /** 1 for the first request a worker served (a cold start). */
  requestNumber: number;
}

const STDERR_TAIL_BYTES = 4096;

/** Presence, size and mtime of each file: equal signatures mean nothing watched has changed. */
export function fileSignature(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const st = fs.statSync(f);
        return `${f}:${st.size}:${st.mtimeMs}`;
      } catch {
        return `${f}:-`;
      }
    })
    .join("|");
}

interface Pending {
  resolve(reply: WorkerReplyMessage): void;
  reject(err: Error): void;
}

/** A file changed this close to a worker's start may have changed after the worker read it. */
const RACY_MS = 50;

export class WarmWorker {
  readonly child: ChildProcess;
  readonly pid: number;
  requests = 0;
  queued = 0;
  readonly startedAt = Date.now();
  lastUsed = this.startedAt;
  /** Each `loaded` file's signature when first named (see WorkerSpec.loaded). */
  private readonly loadedSignatures = new Map<string, string>();

  /**
   * Whether the `loaded` files (and those the worker reported) are as the worker read them: each is
   * remembered when first named, and one modified since the worker started may have changed after it read it.
   */
  loadedUnchanged(files: readonly string[]): boolean {
    if (this.loadedChanged) return false;
    for (const f of [...files, ...this.loadedSignatures.keys()]) {
      const known = this.loadedSignatures.get(f);
      const now = fileSignature([f]);
      if (known !== undefined) {
        if (known !== now) return false;
        continue;
      }
      const mtimeMs = fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs;
      if (mtimeMs === undefined || (mtimeMs >= this.startedAt - RACY_MS && mtimeMs <= Date.now()))
        return false;
      this.loadedSignatures.set(f, now);
    }
    return true;
  }
  /** Set when a file the worker loaded was modified after it started: the next request restarts it. */
  private loadedChanged = false;

  /** Files the worker reported loading: remembered as they are now (see loadedUnchanged). */
  private rememberLoaded(files: readonly string[]): void {
    for (const f of files) {
      if (typeof f !== "string" || this.loadedSignatures.has(f)) continue;
      const mtimeMs = fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs;
      // A date in the future (a clock set back) says nothing of when it changed: it is taken as it is.
      if (mtimeMs === undefined || (mtimeMs >= this.startedAt - RACY_MS && mtimeMs <= Date.now()))
        this.loadedChanged = true;
      this.loadedSignatures.set(f, fileSignature([f]));
    }
  }

  /** Killed (or exited): it takes no more requests, even before its exit event arrives. */
  dead = false;
  private tail = "";
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;
  readonly exitPromise: Promise<void>;
  private readonly token = newRunToken();
  /** Why it runs unsandboxed (`--sandbox auto` without bubblewrap). */
  readonly sandboxNote: string | undefined;

  constructor(
    readonly spec: WorkerSpec,
    readonly signature: string,
    limits: PoolLimits,
    private readonly onGone: (w: WarmWorker) => void,
  ) {
    const launch = sandboxLaunch(
      spec.runtime?.program ?? process.execPath,
      [
        ...(spec.runtime?.args ?? [`--max-old-space-size=${limits.maxHeapMb}`]),
        spec.script,
        spec.root,
        ...(spec.args ?? []),
      ],
      spec.root,
      spec.sandbox,
    );
    this.sandboxNote = launch.note;
    this.child = spawn(launch.program, launch.args, {
      cwd: spec.root,
      // The sandbox layer's environment for it (never the server's secrets; sandbox/env.ts).
      env: {
        ...launch.env,
        NO_COLOR: "1",
        FORCE_COLOR: "0",
        ...markedEnv(this.token, launch.profile !== undefined),
      },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      detached: true, // its own process group: a timeout kills the worker and anything it started
      serialization: "json",
      windowsHide: true,
    });
    if (!this.child.pid) throw new Error(`could not start the ${spec.tool} worker`);
    this.pid = this.child.pid;
    const untrack = trackChildGroup({ pgid: this.pid, token: this.token, label: `${spec.tool} worker` });
    // Warm workers never keep the server alive on their own; a pending request's timer does meanwhile.
    this.child.unref();
    this.child.channel?.unref();
    (this.child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    this.child.stderr?.on("data", (c: Buffer) => {
      this.tail = (this.tail + c.toString()).slice(-STDERR_TAIL_BYTES);
    });
    this.child.on("message", (msg: WorkerReplyMessage) => {
      if (Array.isArray(msg.loaded)) this.rememberLoaded(msg.loaded);
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      p.resolve(msg);
    });
    this.exitPromise = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.dead = true;
        untrack();
        // Whatever it started that left its group goes with it (a crash as much as a kill).
        void killMarked(this.token, "SIGKILL");
        const err = new WorkerExitError(
          spec.tool,
          exitMessage(spec.tool, this.pid, code, signal, this.tail, limits.maxHeapMb),
          this.tail,
        );
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
        this.clearIdle();
        this.onGone(this);
        resolve();
      });
    });
    this.child.once("error", () => killGroup(this.pid, "SIGKILL"));
  }

  /** Runs one request after those already queued on this worker. */
  request<T>(method: string, params: unknown, options: RequestOptions): Promise<WorkerReply<T>> {
    this.queued++;
    this.clearIdle();
    const run = this.queue.then(() => this.send<T>(method, params, options));
    this.queue = run.catch(() => undefined);
    return run.finally(() => {
      this.queued--;
      this.lastUsed = Date.now();
    });
  }

  private send<T>(method: string, params: unknown, options: RequestOptions): Promise<WorkerReply<T>> {
    if (this.dead) return Promise.reject(new WorkerGoneError(this.spec.tool));
    const id = this.nextId++;
    const requestNumber = ++this.requests;
    return new Promise<WorkerReply<T>>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      let unwatchCpu = () => {};
      const onAbort = () => {
        this.kill();
        reject(new WorkerExitError(this.spec.tool, "the request was cancelled; the worker was ended", ""));
      };
      const done = () => {
        clearTimeout(timer);
        unwatchCpu();
        options.signal?.removeEventListener("abort", onAbort);
      };
      // Ended, the request fails with `err` and the worker goes with its process group: the next gets a new one.
      const end = (err: Error) => {
        this.pending.delete(id);
        done();
        this.kill();
        reject(err);
      };
      timer = setTimeout(
        () => end(new WorkerTimeoutError(this.spec.tool, options.timeoutMs, this.pid)),
        options.timeoutMs,
      );
      // This request's CPU, what the worker used before apart (an rlimit would count its whole life).
      const cpuSeconds = options.cpuSeconds ?? 0;
      unwatchCpu = watchCpu(this.pid, cpuSeconds, () =>
        end(new WorkerCpuLimitError(this.spec.tool, cpuSeconds, this.pid)),
      );
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        resolve: (msg) => {
          done();
          if (msg.ok) resolve({ result: msg.result as T, pid: this.pid, requestNumber });
          else reject(new WorkerRequestError(msg.error.kind ?? "fatal", msg.error.message));
        },
        reject: (err) => {
          done();
          reject(err);
        },
      });
      const message: WorkerRequestMessage = { id, method, params };
      this.child.send(message, (err) => {
        if (!err) return;
        this.pending.delete(id);
        done();
        reject(new WorkerExitError(this.spec.tool, `could not reach the worker: ${err.message}`, this.tail));
      });
    });
  }

  scheduleIdleExit(ttlMs: number): void {
    this.clearIdle();
    if (this.queued > 0 || this.dead) return;
    this.idleTimer = setTimeout(() => this.kill(), ttlMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Ends the worker and everything in its process group. */
  kill(): void {
    this.dead = true;
    killGroup(this.pid, "SIGKILL");
    void killMarked(this.token, "SIGKILL");
  }
}
