/**
 * The result cache for tools that read the whole program (type checkers, go vet, staticcheck, clippy,
 * cargo check): one entry per project input set, keyed by the tool's identity and the content of every
 * input file. A one-file edit is a miss (the tool's warm worker or incremental state makes that cheap);
 * the same tree again, in this server, another one or another machine, is a hit.
 */
import { buildId } from "./build-id.js";
import { keyOf } from "./hash.js";
import { relativeKey } from "./rel-key.js";
import type { ResultCache } from "./result-cache.js";

export interface WholeJob<T> {
  cache: ResultCache;
  kind: string;
  identity: unknown;
  root: string;
  /** Every file the result can depend on (absolute). */
  inputs: readonly string[];
  run(): Promise<T>;
  /** As stored (paths relative to root) and back. */
  encode(value: T, root: string): unknown;
  decode(stored: unknown, root: string): T;
  /** A result worth keeping (not a failure of the run itself). */
  keep?(value: T): boolean;
}

export interface WholeOutcome<T> {
  value: T;
  /** Files the key covered, and whether the result came from the cache. */
  total: number;
  hit: boolean;
}

export async function runWhole<T>(job: WholeJob<T>): Promise<WholeOutcome<T>> {
  const { cache } = job;
  const rels = job.inputs.map((f) => relativeKey(job.root, f));
  const hashes = job.inputs.map((f) => cache.hashes.hashOf(f, true) ?? null);
  const key = keyOf("whole", job.kind, buildId(), job.identity, rels, hashes);
  const stored = cache.getLocal<{ s: unknown }>(key) ?? (await cache.getRemote<{ s: unknown }>(key));
  if (stored) return { value: job.decode(stored.s, job.root), total: job.inputs.length, hit: true };
  const value = await job.run();
  // Kept only if no input changed while the tool read them.
  const after = job.inputs.map((f) => cache.hashes.hashOf(f) ?? null);
  if ((job.keep?.(value) ?? true) && after.every((h, i) => h === hashes[i]))
    cache.put(key, { s: job.encode(value, job.root) });
  return { value, total: job.inputs.length, hit: false };
}
