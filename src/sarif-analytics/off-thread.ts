/**
 * Runs SARIF analyses in worker threads (piscina), so a large log never blocks the event loop: the server
 * answers other calls while one is summarised. A timed-out or cancelled analysis ends its thread (piscina
 * terminates a thread whose task is aborted). Idle threads stay warm for a while, then exit; they never keep
 * the process alive. Small inputs are cheaper inline: the caller decides.
 */
import type { Piscina } from "piscina";
import { ToolError } from "../errors.js";
import { codePath } from "../package-root.js";
import type { AnalyticsReply } from "./analytics-job.js";
import type { AnalyticsTask } from "./analytics-thread.js";

const THREAD_SCRIPT = codePath("sarif-analytics", "analytics-thread.js");
const MAX_THREADS = 2;
const IDLE_MS = 30_000;

export interface OffThreadOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

let pool: Piscina | undefined;

// piscina loads node:worker_threads as it loads: taken on the first analysis (src/exec/worker-threads.ts).
async function poolOf(): Promise<Piscina> {
  const { Piscina } = await import("piscina");
  pool ??= new Piscina({
    filename: THREAD_SCRIPT,
    minThreads: 0,
    maxThreads: MAX_THREADS,
    idleTimeout: IDLE_MS,
    // Normalizing a 16 MiB log holds several copies of it.
    resourceLimits: { maxOldGenerationSizeMb: 2048 },
  });
  return pool;
}

export async function runAnalyticsOffThread(
  task: AnalyticsTask,
  options: OffThreadOptions,
): Promise<AnalyticsReply> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    return (await (await poolOf()).run(task, { signal })) as AnalyticsReply;
  } catch (err) {
    if (timeout.aborted)
      throw new ToolError(
        "timeout",
        `the SARIF analysis exceeded the ${Math.round(options.timeoutMs / 1000)} s timeout and was stopped`,
      );
    if (options.signal?.aborted) throw new ToolError("tool_error", "the call was cancelled");
    throw new ToolError(
      "tool_error",
      `the SARIF analysis thread failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
