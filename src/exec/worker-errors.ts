/**
 * How a warm worker's request can fail: past its time limit, the worker ended (with why, in a readable
 * line), the worker gone before the request was sent, or the tool's own error answered by a live worker.
 */

/** The request ran past its time limit; the worker was killed with its process group. */
export class WorkerTimeoutError extends Error {
  constructor(
    readonly tool: string,
    readonly timeoutMs: number,
    readonly pid: number,
  ) {
    super(
      `${tool} worker (pid ${pid}) exceeded the ${Math.round(timeoutMs / 1000)} s timeout and was killed with its process group`,
    );
    this.name = "WorkerTimeoutError";
  }
}

/**
 * The request used more CPU than --tool-max-cpu-seconds gives a tool run; the worker was killed with its
 * process group (an rlimit would count the worker's whole life, not one request: cpu-time.ts).
 */
export class WorkerCpuLimitError extends Error {
  constructor(
    readonly tool: string,
    readonly cpuSeconds: number,
    readonly pid: number,
  ) {
    super(
      `${tool} worker (pid ${pid}) used more than its CPU limit of ${cpuSeconds} s for one request (--tool-max-cpu-seconds) and was killed with its process group; raise it, or set 0 for none`,
    );
    this.name = "WorkerCpuLimitError";
  }
}

/** The worker process ended (crash, out of memory, killed) while a request was pending. */
export class WorkerExitError extends Error {
  constructor(
    readonly tool: string,
    message: string,
    readonly stderrTail: string,
  ) {
    super(message);
    this.name = "WorkerExitError";
  }
}

/** The worker ended before this request was sent to it (it was queued behind one that timed out). */
export class WorkerGoneError extends Error {
  constructor(readonly tool: string) {
    super(`the ${tool} worker ended before the request was sent`);
    this.name = "WorkerGoneError";
  }
}

/** The worker answered with an error (the tool's own failure); the worker is still alive. */
export class WorkerRequestError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = "WorkerRequestError";
  }
}

/** Why a worker ended, in one readable line or a few (out of memory is named as such). */
export function exitMessage(
  tool: string,
  pid: number,
  code: number | null,
  signal: NodeJS.Signals | null,
  stderrTail: string,
  maxHeapMb: number,
): string {
  if (/heap out of memory|Allocation failed/i.test(stderrTail))
    return `the ${tool} worker (pid ${pid}) ran out of memory at its ${maxHeapMb} MiB heap cap (--worker-max-heap-mb) and was ended`;
  const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const tail = stderrTail.trim().split("\n").slice(-5).join("\n");
  return `the ${tool} worker (pid ${pid}) ${why}${tail ? `: ${tail}` : ""}`;
}
