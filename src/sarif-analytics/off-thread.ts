/**
 * Runs a trend job in a worker thread of its own (ended once it answers, on timeout or cancellation), so a
 * large comparison never blocks the event loop. Small jobs are cheaper inline: the caller decides.
 */
import { Worker } from "node:worker_threads";
import { ToolError } from "../errors.js";
import type { TrendJob, TrendReply } from "./trend-job.js";
import { codePath } from "../package-root.js";

const THREAD_SCRIPT = codePath("sarif-analytics", "trend-thread.js");

export interface OffThreadOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Heap cap of the thread (MB). */
  maxHeapMb?: number;
}

export function runTrendOffThread(job: TrendJob, options: OffThreadOptions): Promise<TrendReply> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(THREAD_SCRIPT, {
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 2048 },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new ToolError(
              "timeout",
              `the trend analysis exceeded the ${Math.round(options.timeoutMs / 1000)} s timeout and was stopped`,
            ),
          ),
        ),
      options.timeoutMs,
    );
    const onAbort = () => finish(() => reject(new ToolError("tool_error", "the call was cancelled")));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (reply: TrendReply | { crashed: string }) =>
      finish(() =>
        "crashed" in reply
          ? reject(new Error(`the trend analysis failed: ${reply.crashed}`))
          : resolve(reply),
      ),
    );
    worker.once("error", (err) =>
      finish(() => reject(new ToolError("tool_error", `the trend analysis thread failed: ${err.message}`))),
    );
    worker.once("exit", (code) =>
      finish(() =>
        reject(new ToolError("tool_error", `the trend analysis thread ended (exit code ${code})`)),
      ),
    );
    worker.postMessage(job);
  });
}
