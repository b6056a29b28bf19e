/**
 * What the warm Python checkers (the mypy daemon, pyright's language server) have in common as WarmDaemons:
 * the registry's counters, their process's pid, start time and liveness, and one request at a time (each
 * waits for those queued before it, so two calls never interleave on one process).
 */
import type { DaemonProcess, WarmDaemon } from "../../exec/warm-daemons.js";

export abstract class QueuedDaemon implements WarmDaemon {
  abstract readonly tool: string;
  abstract readonly root: string;
  requests = 0;
  busy = 0;
  lastUsed = Date.now();
  protected abstract readonly proc: DaemonProcess;
  private queue: Promise<unknown> = Promise.resolve();

  get pid(): number {
    return this.proc.pid;
  }
  get startedAt(): number {
    return this.proc.startedAt;
  }
  get dead(): boolean {
    return this.proc.dead;
  }

  /** Runs `request` once the requests queued before it have settled (a failed one does not stop the queue). */
  protected inTurn<T>(request: () => Promise<T>): Promise<T> {
    const run = this.queue.then(request);
    this.queue = run.catch(() => undefined);
    return run;
  }

  abstract stop(): Promise<void>;
}
