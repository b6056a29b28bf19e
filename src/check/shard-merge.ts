/**
 * `check --merge-sarif`: the SARIF logs of a CI matrix's `check --shard i/n` jobs joined into one upload.
 * Each shard's runs keep their locations relative to %SRCROOT% (the jobs' checkouts may lie at different
 * absolute paths); runs of one tool are joined by the same merge `--sarif` uses (rules re-indexed,
 * invocations kept), and a result two shards both reported is kept once.
 */
import fs from "node:fs";
import { SRCROOT } from "../findings/sarif.js";
import { mergeSarif, type SarifLogLike, type SarifRunLike } from "./sarif-merge.js";
import { UsageError } from "./options.js";

/** A shard's log, read and checked for the shape check writes (SARIF 2.1.0 with runs). */
export function readShardLog(file: string): SarifLogLike {
  let log: SarifLogLike;
  try {
    log = JSON.parse(fs.readFileSync(file, "utf8")) as SarifLogLike;
  } catch (err) {
    throw new UsageError(`--merge-sarif: ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (log?.version !== "2.1.0" || !Array.isArray(log.runs) || log.runs.some((r) => !r?.tool?.driver?.name))
    throw new UsageError(`--merge-sarif: ${file} is not a SARIF 2.1.0 log with runs`);
  return log;
}

/** The shards' logs as one: %SRCROOT% of the first log's runs for all, one run per tool, no duplicates. */
export function mergeShardLogs(logs: readonly SarifLogLike[], cwd: string): SarifLogLike {
  const root = logs.flatMap((l) => l.runs).find((r) => r.originalUriBaseIds?.[SRCROOT])?.originalUriBaseIds;
  const base = root?.[SRCROOT]?.uri ? new URL(root[SRCROOT].uri).pathname.replace(/\/$/, "") : cwd;
  const same = logs.map((l) => ({
    ...l,
    runs: l.runs.map((r): SarifRunLike => (root ? { ...r, originalUriBaseIds: root } : r)),
  }));
  const merged = mergeSarif(same, decodeURIComponent(base));
  for (const run of merged.runs) {
    const seen = new Set<string>();
    run.results = (run.results ?? []).filter((r) => {
      const k = JSON.stringify(r);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  return merged;
}
