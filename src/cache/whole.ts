/**
 * The result cache for tools that read the whole program (type checkers, go vet, staticcheck, clippy,
 * cargo check): one entry per project input set, keyed by the tool's identity, the content of every
 * input file and the configuration closure (closure.ts: what the tool reads beyond the project, as it
 * resolves it, and what a run of it reported reading). A one-file edit is a miss (the tool's warm worker
 * or incremental state makes that cheap); the same tree again, in this server, another one or another
 * machine, is a hit.
 */
import { buildId } from "./build-id.js";
import {
  changedBetween,
  closureAfterRun,
  closureKey,
  closureOf,
  mergeClosures,
  rememberClosure,
  type Closure,
  type ClosureSpec,
} from "./closure.js";
import { keyOf } from "./hash.js";
import { relativeKey } from "./rel-key.js";
import type { ResultCache } from "./result-cache.js";

export interface WholeJob<T> {
  cache: ResultCache;
  kind: string;
  identity: unknown;
  root: string;
  /** Every file of the project the result can depend on (absolute). */
  inputs: readonly string[];
  /** What the tool resolves beyond the project (closure.ts). */
  closure?: ClosureSpec;
  /**
   * What a run reports it read beyond the closure resolved before it (a TypeScript program's sources
   * outside the project): remembered with the closure, and the result is stored under the whole of it.
   */
  reads?(value: T): Closure | undefined;
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
  /** Set when the result could not be stored, and why. */
  uncached?: string;
}

export async function runWhole<T>(job: WholeJob<T>): Promise<WholeOutcome<T>> {
  const { cache } = job;
  const closure = job.closure ? await closureOf(cache, job.closure, job.root) : undefined;
  const before = closureKey(cache, closure, job.root);
  if ("uncached" in before)
    return { value: await job.run(), total: job.inputs.length, hit: false, uncached: before.uncached };
  const rels = job.inputs.map((f) => relativeKey(job.root, f));
  const hashes = job.inputs.map((f) => cache.hashes.hashOf(f, true) ?? null);
  const keyWith = (parts: unknown) => keyOf("whole", job.kind, buildId(), job.identity, rels, hashes, parts);
  const key = keyWith(before.parts);
  const stored = cache.getLocal<{ s: unknown }>(key) ?? (await cache.getRemote<{ s: unknown }>(key));
  if (stored) return { value: job.decode(stored.s, job.root), total: job.inputs.length, hit: true };
  const value = await job.run();
  const outcome = { value, total: job.inputs.length, hit: false };
  if (!(job.keep?.(value) ?? true)) return outcome;
  // What the run read besides: remembered, and part of the key the result is stored under.
  // Files a run reports reading and those the tool's closure names by its end (read while it ran) alike.
  const late = await closureAfterRun(cache, job.closure, job.root, closure);
  const reported = job.reads?.(value);
  const read = reported ? mergeClosures(late.closure, reported) : late.closure;
  if (reported && job.closure) rememberClosure(cache, job.closure, job.root, read as Closure);
  const after = closureKey(cache, read, job.root, false);
  if ("uncached" in after) return { ...outcome, uncached: after.uncached };
  // Kept only if no input changed while the tool read them.
  const now = job.inputs.map((f) => cache.hashes.hashOf(f) ?? null);
  if (now.some((h, i) => h !== hashes[i]) || changedBetween(before, after))
    return { ...outcome, uncached: "a file changed during the run" };
  cache.put(keyWith(after.parts), { s: job.encode(value, job.root) });
  return outcome;
}
