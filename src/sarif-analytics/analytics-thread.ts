/**
 * The worker thread of a large SARIF analysis (piscina runs it; off-thread.ts): normalizing and summarising
 * tens of thousands of results takes seconds, which must not stop the server answering other calls. The
 * policy advice comes from the server's own bundle, compiled here from its spec.
 */
import fs from "node:fs";
import { EMPTY_ADVISOR, type PolicyAdvisor } from "../policy/advisor.js";
import type { BundleSpec } from "../policy/bundle-spec.js";
import { bundleOfSpec } from "../policy/compiled-bundles.js";
import { runAnalyticsJob, type AnalyticsJob, type AnalyticsReply } from "./analytics-job.js";
import { holdForTest } from "./test-hold.js";

export interface AnalyticsTask {
  job: AnalyticsJob;
  /** The server's bundle; none: no advice (every result `mapped: false`). */
  advisor?: BundleSpec;
}

async function advisorOf(spec: BundleSpec | undefined): Promise<PolicyAdvisor> {
  if (!spec) return EMPTY_ADVISOR;
  const bundle = await bundleOfSpec(spec);
  return { bundleHash: bundle.hash, adviseDiagnostic: (d) => bundle.adviseDiagnostic(d) };
}

export default async function analyze(task: AnalyticsTask): Promise<AnalyticsReply> {
  const finished = holdForTest();
  const reply = runAnalyticsJob(task.job, await advisorOf(task.advisor));
  if (finished) fs.writeFileSync(finished, "");
  return reply;
}
