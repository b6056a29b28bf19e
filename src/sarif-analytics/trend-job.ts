/**
 * One sarif_trend_analysis computation from raw inputs (parsed SARIF or its JSON text): normalize every log,
 * compare, fit to the token budget. The same function runs on the main thread for small inputs and in a
 * worker thread (trend-thread.ts) for large ones. Pure.
 */
import { normalizeSarif, SarifInputError, type NormalizedLog } from "./normalize.js";
import { fitTrend, trendAnalysis } from "./trend.js";

export interface TrendInput {
  /** The argument it came from (`baseline`, `history_trace_ids[2] <id>`), for errors. */
  label: string;
  sarif: unknown;
}

export interface TrendJob {
  baseline: TrendInput;
  current: TrendInput;
  history: TrendInput[];
  maxTokens: number;
}

export type TrendReply =
  | { ok: true; trend: ReturnType<typeof fitTrend<ReturnType<typeof trendAnalysis>>>; notes: string[] }
  | { ok: false; label: string; jsonPath: string; message: string };

export function runTrendJob(job: TrendJob): TrendReply {
  const logs: NormalizedLog[] = [];
  for (const input of [job.baseline, job.current, ...job.history]) {
    try {
      logs.push(normalizeSarif(input.sarif));
    } catch (err) {
      if (err instanceof SarifInputError)
        return { ok: false, label: input.label, jsonPath: err.jsonPath, message: err.message };
      throw err;
    }
  }
  const [baseline, current, ...history] = logs as [NormalizedLog, NormalizedLog, ...NormalizedLog[]];
  const trend = fitTrend(trendAnalysis(baseline, current, history), job.maxTokens);
  return { ok: true, trend, notes: [...baseline.notes, ...current.notes] };
}
