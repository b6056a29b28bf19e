/**
 * A SARIF log cut to a byte budget, saying so: the results that fit are kept, the most severe first (errors,
 * warnings, notes; in their order within a level), the log stays valid SARIF, and each run that lost results
 * says in a notification how many and where the whole log is (a retained trace). The caller puts the counts
 * in its result (`sarif_truncated`). Pure.
 */
import { withRunNotification, type SarifLogLike, type SarifResult } from "./sarif-log.js";

export interface SarifFit {
  results_total: number;
  results_kept: number;
  /** Per run that lost results. */
  runs: { tool: string; total: number; kept: number }[];
  max_bytes: number;
  /** The retained trace that holds every result, when the run was retained. */
  trace_id?: string;
}

const SEVERITY: Record<string, number> = { error: 3, warning: 2, note: 1, none: 0 };
const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? "");
/** Room for the notifications added to the cut runs. */
const NOTE_BYTES = 400;

/**
 * The log within `maxBytes` of JSON (it is returned as it is when it fits); `where` says where the whole log
 * can be read and the result's cap (`capBytes`, of which `maxBytes` is the log's share), for the notifications.
 */
export function fitSarif(
  log: SarifLogLike,
  maxBytes: number,
  where: { trace_id?: string; hint: string; capBytes?: number },
): { log: SarifLogLike; fit?: SarifFit } {
  const total = bytesOf(log);
  if (total <= maxBytes) return { log };
  const skeleton = bytesOf({ ...log, runs: log.runs.map((r) => ({ ...r, results: [] })) });
  let room = maxBytes - skeleton - NOTE_BYTES * log.runs.length;
  const ranked: { run: number; at: number; s: number; r: SarifResult }[] = [];
  log.runs.forEach((run, i) =>
    (run.results ?? []).forEach((r, at) =>
      ranked.push({ run: i, at, s: SEVERITY[r.level ?? "warning"] ?? 2, r }),
    ),
  );
  ranked.sort((a, b) => b.s - a.s || a.run - b.run || a.at - b.at);
  const keep = log.runs.map(() => new Set<number>());
  for (const x of ranked) {
    const cost = bytesOf(x.r) + 1;
    if (cost > room) break;
    room -= cost;
    keep[x.run]!.add(x.at);
  }
  const fit: SarifFit = {
    results_total: ranked.length,
    results_kept: keep.reduce((n, k) => n + k.size, 0),
    runs: [],
    max_bytes: where.capBytes ?? maxBytes,
    ...(where.trace_id ? { trace_id: where.trace_id } : {}),
  };
  const runs = log.runs.map((run, i) => {
    const all = run.results ?? [];
    const kept = keep[i]!;
    if (kept.size === all.length) return run;
    const tool = run.tool.driver.name;
    fit.runs.push({ tool, total: all.length, kept: kept.size });
    return withRunNotification(
      { ...run, results: all.filter((_, at) => kept.has(at)) },
      {
        level: "warning",
        message: {
          text: `${all.length - kept.size} of ${all.length} results left out to fit the result in ${where.capBytes ?? maxBytes} bytes (--max-result-bytes), the most severe kept; ${where.trace_id ? `trace ${where.trace_id} holds them all` : where.hint}`,
        },
      },
    );
  });
  return { log: { ...log, runs }, fit };
}
