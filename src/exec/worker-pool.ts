/**
 * The warm worker pool: long-lived `node` processes, one per (tool, project root), that keep a tool's
 * configs, plugins and programs loaded between calls.
 *
 * - Each worker is detached into its own process group; a request that runs past its time limit (or
 *   is aborted) kills the whole group, and the next request starts a fresh worker.
 * - One request at a time per worker; others queue behind it.
 * - A worker whose watched files (configs, package.json, the tool's own package) changed since it
 *   started is retired and replaced, so warm state is never stale.
 * - Idle workers exit after `idleTtlMs`; beyond `maxWorkers` live processes (counted with the server's
 *   other long-lived ones, warm-budget.ts) the least recently used idle one is ended; each runs with
 *   `--max-old-space-size=maxHeapMb`.
 * - Each worker's environment carries its own token (child-groups.ts): ending a worker also ends what it
 *   started that left its process group.
 */
import path from "node:path";
import { ageSeconds, rssMbOf, type WarmProcessInfo } from "./warm-processes.js";
import { WarmBudget, type BudgetMember, type BudgetSlot } from "./warm-budget.js";
import {
  fileSignature,
  WarmWorker,
  type PoolLimits,
  type RequestOptions,
  type WorkerReply,
  type WorkerSpec,
} from "./warm-worker.js";
import { WorkerGoneError } from "./worker-errors.js";

export const WORKER_POOL_SERVICE = "warm-worker-pool";

export type WorkerInfo = WarmProcessInfo & { root: string };

export class WorkerPool implements BudgetMember {
  private readonly workers = new Map<string, WarmWorker>();
  private readonly retiring = new Set<WarmWorker>();

  constructor(
    private readonly limits: PoolLimits,
    /** Shared with the server's daemons; a pool of its own by default. */
    private readonly budget: WarmBudget = new WarmBudget(limits.maxWorkers),
  ) {
    budget.join(this);
  }

  slots(): BudgetSlot[] {
    return [...this.workers.entries()].map(([key, w]) => ({
      lastUsed: w.lastUsed,
      idle: w.queued === 0,
      end: () => {
        if (this.workers.get(key) === w) this.workers.delete(key);
        w.kill();
      },
    }));
  }

  /**
   * Sends a request to the warm worker for (spec.tool, spec.root), starting one if there is none or
   * if its watched files changed. Rejects with WorkerTimeoutError, WorkerExitError or WorkerRequestError.
   */
  async request<T>(
    spec: WorkerSpec,
    method: string,
    params: unknown,
    options: RequestOptions,
    retried = false,
  ): Promise<WorkerReply<T> & { restartedBecause?: string }> {
    const key = `${spec.tool}\0${spec.root}`;
    const signature = fileSignature(spec.watch);
    let worker = this.workers.get(key);
    let restartedBecause: string | undefined;
    if (worker && (worker.signature !== signature || !worker.loadedUnchanged(spec.loaded ?? []))) {
      restartedBecause = "a watched config file changed";
      this.retire(key, worker);
      worker = undefined;
    }
    if (!worker || worker.dead) {
      this.budget.enforce(1); // make room before starting another
      worker = new WarmWorker(spec, signature, this.limits, (w) => this.forget(key, w));
      this.workers.set(key, worker);
    }
    const w = worker;
    try {
      const reply = await w.request<T>(method, params, options);
      return restartedBecause ? { ...reply, restartedBecause } : reply;
    } catch (err) {
      // Queued behind a request that killed the worker: this one never ran, so it gets a fresh worker.
      if (err instanceof WorkerGoneError && !retried)
        return this.request(spec, method, params, options, true);
      throw err;
    } finally {
      if (this.retiring.has(w)) {
        if (w.queued === 0) w.kill();
      } else w.scheduleIdleExit(this.limits.idleTtlMs);
      this.budget.enforce();
    }
  }

  /** Live workers, for status reports (RSS read from /proc at the time of the call). */
  list(): WorkerInfo[] {
    return [...this.workers.values()].map((w) => ({
      tool: w.spec.tool,
      root: w.spec.root,
      kind: "process",
      pid: w.pid,
      age_seconds: ageSeconds(w.startedAt),
      requests: w.requests,
      busy: w.queued > 0,
      rss_mb: rssMbOf(w.pid),
    }));
  }

  /** Retires every worker whose root is `dir` or below it (a scratch copy about to be removed). */
  retireUnder(dir: string): void {
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const [key, w] of [...this.workers])
      if (w.spec.root === dir || w.spec.root.startsWith(prefix)) this.retire(key, w);
  }

  /** Ends every worker (server shutdown). */
  async close(): Promise<void> {
    const all = [...this.workers.values(), ...this.retiring];
    this.workers.clear();
    this.retiring.clear();
    for (const w of all) w.kill();
    await Promise.race([
      Promise.allSettled(all.map((w) => w.exitPromise)),
      new Promise((r) => setTimeout(r, 2000).unref()),
    ]);
  }

  /** A stale worker finishes what is queued on it, then exits. */
  private retire(key: string, worker: WarmWorker): void {
    this.workers.delete(key);
    if (worker.queued === 0) worker.kill();
    else this.retiring.add(worker);
  }

  private forget(key: string, worker: WarmWorker): void {
    if (this.workers.get(key) === worker) this.workers.delete(key);
    this.retiring.delete(worker);
  }
}
