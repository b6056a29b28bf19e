/**
 * The server's policy checks run in worker threads (check-worker.ts), at most two at a time, each with a
 * deadline: past it the thread is terminated and the check is answered undecided (`warn`, the human is
 * asked), while every other call of the server goes on answering.
 */
import type { Worker } from "node:worker_threads";
import type { Bundle, CheckOutcome } from "./bundle.js";
import type { BundleSpec, WorkerReply, WorkerRequest } from "./check-worker.js";
import { codePath } from "../package-root.js";
import { startWorker } from "../exec/worker-threads.js";

const WORKER_FILE = codePath("policy", "check-worker.js");
const MAX_WORKERS = 2;

type Job = {
  request: WorkerRequest;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  deadlineMs: number;
  onTimeout: () => unknown;
};
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Request = DistributiveOmit<WorkerRequest, "id">;

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
}

export class PolicyWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  /** Runs a check in a worker; past `deadlineMs` its thread is ended and `onTimeout()` is the answer. */
  run<T>(request: Request, deadlineMs: number, onTimeout: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the policy worker pool is closed"));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        request: { ...request, id: this.nextId++ } as WorkerRequest,
        resolve: resolve as (v: unknown) => void,
        reject,
        deadlineMs,
        onTimeout,
      });
      this.pump();
    });
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(WORKER_FILE) };
    slot.worker.unref();
    slot.worker.on("message", (reply: WorkerReply) => {
      const job = slot.job;
      if (!job || reply.id !== job.request.id) return;
      this.finish(slot);
      if (reply.ok) job.resolve(reply.outcome);
      else job.reject(new Error(reply.error));
    });
    slot.worker.on("error", (err) => {
      const job = slot.job;
      this.drop(slot);
      job?.reject(err);
    });
    slot.worker.on("exit", () => {
      const job = slot.job;
      this.drop(slot);
      job?.reject(new Error("the policy worker ended"));
    });
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    this.pump();
  }

  private drop(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    const i = this.slots.indexOf(slot);
    if (i !== -1) this.slots.splice(i, 1);
    slot.job = undefined;
    this.pump();
  }

  private pump(): void {
    while (this.queue.length) {
      const slot =
        this.slots.find((s) => !s.job) ?? (this.slots.length < MAX_WORKERS ? this.spawn() : undefined);
      if (!slot) return;
      const job = this.queue.shift() as Job;
      slot.job = job;
      // Ref'd while it works, so a pending check keeps the process; unref'd when idle.
      slot.worker.ref();
      slot.timer = setTimeout(() => {
        slot.job = undefined;
        this.drop(slot);
        void slot.worker.terminate();
        job.resolve(job.onTimeout());
      }, job.deadlineMs);
      slot.worker.postMessage(job.request);
    }
    for (const s of this.slots) if (!s.job) s.worker.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

/** The answer of a check that did not finish: undecided, with why. */
export function timedOut(bundle: Bundle, kind: "command" | "edit", deadlineMs: number): CheckOutcome {
  return bundle.outcome(bundle.undecidable(kind, [`the check did not finish within ${deadlineMs} ms`]));
}

export type { BundleSpec };
