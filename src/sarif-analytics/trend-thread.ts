/**
 * The worker thread of a large sarif_trend_analysis (started by off-thread.ts, one per call): normalizing and
 * matching tens of thousands of results takes seconds, which must not stop the server answering other calls.
 */
import { parentPort } from "node:worker_threads";
import { runTrendJob, type TrendJob } from "./trend-job.js";

const port = parentPort;
if (!port) throw new Error("trend-thread.js runs as a worker thread only");
port.once("message", (job: TrendJob) => {
  try {
    port.postMessage(runTrendJob(job));
  } catch (err) {
    port.postMessage({ crashed: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
