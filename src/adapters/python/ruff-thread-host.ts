/**
 * The server's side of the embedded ruff. A small source (up to `inlineMaxBytes`) runs on the main
 * thread, synchronously: a few milliseconds, and no hand-off to another thread (on a busy machine the
 * two wake-ups of a round trip cost more than ruff's own work; docs/embedded-ruff.md). A larger one goes
 * to the ruff thread, started on first use and sent one request at a time, replaced when it ended
 * (crash, out of memory, terminated), trapped, ran past a call's time limit, or kept too much memory
 * after a large file (wasm memory never shrinks, a new thread starts small).
 */
import type { Worker } from "node:worker_threads";
import { ToolError } from "../../errors.js";
import { ageSeconds, type WarmProcessInfo, type WarmProcessSource } from "../../exec/warm-processes.js";
import type { RuffOptions } from "./ruff-settings.js";
import { RuffWasm } from "./ruff-wasm-ops.js";
import type {
  RuffOpExtras,
  RuffThreadMemory,
  RuffThreadReady,
  RuffThreadReply,
  RuffThreadRequest,
} from "./ruff-thread-protocol.js";
import { codePath } from "../../package-root.js";
import { startWorker } from "../../exec/worker-threads.js";

export interface RuffThreadLimits {
  /** Heap cap of the thread's V8 isolate (resourceLimits.maxOldGenerationSizeMb). */
  maxHeapMb: number;
  /** After a reply, a thread whose heap plus wasm memory exceeds this is replaced. */
  recycleAboveBytes: number;
  /** Sources up to this many UTF-16 code units run on the main thread (0: every one goes to the thread). */
  inlineMaxChars?: number;
}

/** About 64 KiB of code: at most ~50 ms of ruff on the main thread, enough for nearly every source file. */
export const DEFAULT_INLINE_MAX_CHARS = 64 * 1024;

export const DEFAULT_RUFF_THREAD_LIMITS: RuffThreadLimits = {
  maxHeapMb: 1024,
  recycleAboveBytes: 256 * 1024 * 1024,
  inlineMaxChars: DEFAULT_INLINE_MAX_CHARS,
};

export interface RuffCallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

const THREAD_SCRIPT = codePath("adapters", "python", "ruff-thread.js");

interface InFlight {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

class RuffThread {
  readonly worker: Worker;
  readonly startedAt = Date.now();
  readonly ready: Promise<string>;
  requests = 0;
  busy = false;
  dead = false;
  memory: RuffThreadMemory | undefined;
  private inFlight: { id: number; call: InFlight } | undefined;
  private nextId = 1;

  constructor(limits: RuffThreadLimits) {
    this.worker = startWorker(THREAD_SCRIPT, {
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb },
      stdout: false,
      stderr: false,
    });
    // An idle thread never keeps the server alive; a pending call's timer does meanwhile.
    this.worker.unref();
    let readyResolve!: (v: string) => void;
    let readyReject!: (e: Error) => void;
    this.ready = new Promise((res, rej) => {
      readyResolve = res;
      readyReject = rej;
    });
    this.ready.catch(() => undefined);
    this.worker.on("message", (msg: RuffThreadReply | RuffThreadReady) => {
      if ("ready" in msg) return readyResolve(msg.version);
      if (this.inFlight?.id !== msg.id) return;
      const { call } = this.inFlight;
      this.inFlight = undefined;
      this.memory = msg.memory;
      if (msg.ok) call.resolve(msg.result);
      else call.reject(replyError(msg.kind, msg.message));
      if (!msg.ok && msg.kind === "panic") this.terminate();
    });
    const gone = (why: string) => {
      if (this.dead && !this.inFlight) return;
      this.dead = true;
      const err = new ToolError(
        "tool_error",
        `the embedded ruff thread ${why}; the next call starts a new one`,
      );
      readyReject(err);
      this.inFlight?.call.reject(err);
      this.inFlight = undefined;
    };
    this.worker.on("error", (err) => gone(`failed: ${err.message}`));
    this.worker.on("exit", (code) => gone(`ended (exit code ${code})`));
  }

  /** One request; the caller (the host's queue) sends the next only after this one settled. */
  send(req: Omit<RuffThreadRequest, "id">, options: RuffCallOptions): Promise<unknown> {
    if (this.dead) return Promise.reject(new ThreadGoneError());
    const id = this.nextId++;
    this.requests++;
    this.busy = true;
    this.worker.ref();
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        this.terminate();
        reject(new ToolError("tool_error", "the call was cancelled; the embedded ruff thread was ended"));
      };
      const timer = setTimeout(() => {
        this.terminate();
        reject(
          new ToolError(
            "timeout",
            `the embedded ruff ran past the ${Math.round(options.timeoutMs / 1000)} s timeout; its thread was ended`,
          ),
        );
      }, options.timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        this.busy = false;
        this.worker.unref();
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.inFlight = {
        id,
        call: {
          resolve: (v) => {
            settle();
            resolve(v);
          },
          reject: (e) => {
            settle();
            reject(e);
          },
        },
      };
      this.worker.postMessage({ ...req, id } as RuffThreadRequest);
    });
  }

  terminate(): void {
    this.dead = true;
    void this.worker.terminate();
  }

  /** Bytes the thread holds (heap in use plus wasm memory), as of its last reply. */
  heldBytes(): number {
    return this.memory ? this.memory.heapUsedBytes + this.memory.wasmMemoryBytes : 0;
  }
}

/** The thread ended before this request was sent (it was queued behind one that killed it). */
class ThreadGoneError extends Error {}

function replyError(kind: "settings" | "input" | "panic", message: string): Error {
  if (kind === "settings") return new RuffSettingsError(message);
  if (kind === "panic")
    return new ToolError("tool_error", `the embedded ruff crashed (${message}); its thread was replaced`);
  return new RuffInputError(message);
}

/** The settings were refused by the wasm build (the caller names the file they came from). */
export class RuffSettingsError extends Error {}
/** ruff could not handle the source (e.g. a syntax error while formatting). */
export class RuffInputError extends Error {}

/** The main thread's instance of the module, with its own counters for get_status. */
interface InlineRuff {
  wasm: RuffWasm;
  startedAt: number;
  requests: number;
}

export class RuffThreadHost implements WarmProcessSource {
  private thread: RuffThread | undefined;
  private inline: InlineRuff | undefined;
  /** The main thread's instance trapped once: every source goes to the thread from then on. */
  private inlineBroken = false;
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private closed = false;
  private readonly inlineMaxChars: number;

  constructor(private readonly limits: RuffThreadLimits = DEFAULT_RUFF_THREAD_LIMITS) {
    this.inlineMaxChars = limits.inlineMaxChars ?? DEFAULT_INLINE_MAX_CHARS;
  }

  /** Runs `op` on `source` in the thread, after the calls already queued. */
  call<T, Op extends RuffThreadRequest["op"] = RuffThreadRequest["op"]>(
    op: Op,
    options: RuffOptions,
    source: string,
    callOptions: RuffCallOptions,
    extras?: RuffOpExtras<Op>,
  ): Promise<T> {
    const req = { op, options, source, ...extras } as Omit<RuffThreadRequest, "id">;
    if (source.length <= this.inlineMaxChars && !this.inlineBroken && !this.closed)
      return Promise.resolve().then(() => this.runInline(req) as T);
    this.queued++;
    const run = this.queue.then(() => this.run(req, callOptions));
    this.queue = run.catch(() => undefined);
    return run.finally(() => this.queued--) as Promise<T>;
  }

  private async run(
    req: Omit<RuffThreadRequest, "id">,
    callOptions: RuffCallOptions,
    retried = false,
  ): Promise<unknown> {
    if (this.closed) throw new ToolError("tool_error", "the server is shutting down");
    if (callOptions.signal?.aborted) throw new ToolError("tool_error", "the call was cancelled");
    const thread = this.live();
    try {
      await thread.ready;
      return await thread.send(req, callOptions);
    } catch (err) {
      if (err instanceof ThreadGoneError && !retried) return this.run(req, callOptions, true);
      throw err;
    } finally {
      if (!thread.dead && thread.heldBytes() > this.limits.recycleAboveBytes) thread.terminate();
    }
  }

  /** Runs a small request on the main thread (the module is loaded there on first use). */
  private runInline(req: Omit<RuffThreadRequest, "id">): unknown {
    this.inline ??= { wasm: new RuffWasm(), startedAt: Date.now(), requests: 0 };
    this.inline.requests++;
    const reply = this.inline.wasm.handle({ ...req, id: 0 } as RuffThreadRequest, true);
    if (reply.ok) return reply.result;
    if (reply.kind === "panic") {
      // Its state may be corrupt and a module cannot be re-instantiated in place: the thread takes over.
      this.inlineBroken = true;
      this.inline = undefined;
    }
    throw replyError(reply.kind, reply.message);
  }

  private live(): RuffThread {
    if (!this.thread || this.thread.dead) this.thread = new RuffThread(this.limits);
    return this.thread;
  }

  warmProcesses(): WarmProcessInfo[] {
    const out: WarmProcessInfo[] = [];
    const i = this.inline;
    if (i)
      out.push({
        tool: "ruff (embedded)",
        root: null,
        kind: "thread",
        pid: process.pid,
        thread_id: 0, // the server's main thread
        age_seconds: ageSeconds(i.startedAt),
        requests: i.requests,
        busy: false,
        rss_mb: null,
      });
    const t = this.thread;
    if (!t || t.dead) return out;
    return [
      ...out,
      {
        tool: "ruff (embedded)",
        root: null,
        kind: "thread",
        pid: process.pid,
        thread_id: t.worker.threadId,
        age_seconds: ageSeconds(t.startedAt),
        requests: t.requests,
        busy: t.busy || this.queued > 0,
        rss_mb: null,
        memory_mb: Math.round(t.heldBytes() / 104857.6) / 10,
      },
    ];
  }

  /** Ends the thread (server shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    this.inline = undefined;
    const t = this.thread;
    this.thread = undefined;
    if (t) await t.worker.terminate();
  }
}
