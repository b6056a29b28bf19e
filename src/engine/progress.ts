/**
 * A call's progress, as MCP `notifications/progress` for a client that sent a `progressToken`: what a tool
 * counts (files done of total, when it knows them), every process the call starts, and a heartbeat while it
 * waits on one, each with a message. MCP asks that `progress` increase with every notification: counted work
 * sends `done` (with `total` when known); anything else moves it by a fraction that never reaches the next
 * whole item (½, ⅔, ¾, ... past the last count), so counts stay exact whatever comes between them.
 */

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What a tool reports: counted work (`done` of `total`), or only what it is doing. */
export interface ProgressReport {
  message: string;
  done?: number;
  total?: number;
}

/** Counted updates closer together than this are not all sent (a link check walks thousands of files). */
const MIN_COUNT_INTERVAL_MS = 100;

export class CallProgress {
  private last = -1;
  /** The last count reported, and the events since. */
  private base = 0;
  private since = 0;
  private total: number | undefined;
  private activity: string;
  private lastCountAt = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly started = performance.now();

  /**
   * @param send delivers one notification (errors are the transport's: ignored here)
   * @param heartbeatMs how often a call that reports nothing says it is still working (0: never)
   */
  constructor(
    private readonly send: (update: ProgressUpdate) => void,
    private readonly tool: string,
    heartbeatMs = 1000,
  ) {
    this.activity = tool;
    if (heartbeatMs > 0) {
      this.timer = setInterval(() => this.heartbeat(), heartbeatMs);
      this.timer.unref();
    }
  }

  /** Reports counted work or an event; nothing once the call is over. */
  report(r: ProgressReport): void {
    if (this.closed) return;
    this.activity = r.message;
    if (r.total !== undefined) this.total = r.total;
    const counted = r.done !== undefined && r.done > this.base;
    if (counted) {
      const now = performance.now();
      const final = this.total !== undefined && r.done === this.total;
      this.base = r.done as number;
      this.since = 0;
      // Throttled, but never the last one: the client sees every count reached in the end.
      if (!final && now - this.lastCountAt < MIN_COUNT_INTERVAL_MS) return;
      this.lastCountAt = now;
      this.emit(this.base, r.message);
      return;
    }
    this.event(r.message);
  }

  /** Says the call is still at it: what it last said it was doing, and for how long. */
  heartbeat(): void {
    if (this.closed) return;
    const seconds = Math.round((performance.now() - this.started) / 1000);
    this.event(`${this.activity} (${seconds} s)`);
  }

  /** No more notifications: the call answered, failed or was cancelled. */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }

  private event(message: string): void {
    // All the counted work is done: nothing left to move towards.
    if (this.total !== undefined && this.base >= this.total) return;
    this.since++;
    this.emit(this.base + this.since / (this.since + 1), message);
  }

  private emit(progress: number, message: string): void {
    if (progress <= this.last) return;
    this.last = progress;
    this.send({
      progress,
      ...(this.total !== undefined && { total: this.total }),
      message: message === this.tool ? message : `${this.tool}: ${message}`,
    });
  }
}
