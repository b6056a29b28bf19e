/**
 * Whose turn it is in the check daemon: requests of different projects run at once, up to a bound, while
 * two requests of one project (folders that are the same or one inside the other) take turns in the order
 * they came, so a `--fix` never writes a tree another check of it is reading, and one project's engine, its
 * result cache and its warm workers serve one request at a time. A request waits holding nothing: not a
 * slot while its project is busy, not one project while it waits for another, so a request never waits
 * behind an unrelated one, and none can deadlock. Pure (no I/O).
 */

interface Waiter {
  keys: readonly string[];
  start: () => void;
}

/** Whether folders `a` and `b` overlap: the same, or one inside the other. */
export function overlaps(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return long.startsWith(short.endsWith("/") ? short : `${short}/`);
}

const clash = (a: readonly string[], b: Iterable<string>) => {
  for (const y of b) if (a.some((x) => overlaps(x, y))) return true;
  return false;
};

export class Turns {
  private readonly running = new Map<object, readonly string[]>();
  private readonly waiting: Waiter[] = [];

  constructor(readonly maxRunning: number) {}

  /** Requests running now, and waiting. */
  get counts(): { running: number; waiting: number } {
    return { running: this.running.size, waiting: this.waiting.length };
  }

  /**
   * Waits for the turn of a request of the folders `keys` (absolute); resolves to the function that ends it
   * (to call once, when the request is answered). `signal`: the request is no longer wanted while it waits.
   */
  take(keys: readonly string[], signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        keys,
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          const token = {};
          this.running.set(token, keys);
          let ended = false;
          resolve(() => {
            if (ended) return;
            ended = true;
            this.running.delete(token);
            this.next();
          });
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error("the request was cancelled"));
        this.next();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
      this.next();
    });
  }

  /** Starts each waiter whose folders are free of running requests and of earlier waiters, while slots last. */
  private next(): void {
    const claimed: string[] = [];
    for (let i = 0; i < this.waiting.length;) {
      const w = this.waiting[i]!;
      const free =
        this.running.size < this.maxRunning &&
        !clash(w.keys, claimed) &&
        ![...this.running.values()].some((keys) => clash(w.keys, keys));
      if (!free) {
        // An earlier request of these folders goes first: a later one of them waits behind it.
        claimed.push(...w.keys);
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      w.start();
    }
  }
}
