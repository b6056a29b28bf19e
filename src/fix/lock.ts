/**
 * The cross-process lock of one project root (proper-lockfile on `.mcp-cache/locks/root`). A holder that
 * dies stops refreshing the lock, which becomes stale and is taken over after LOCK_STALE_MS.
 */
import lockfile from "proper-lockfile";
import path from "node:path";
import type { CachePaths } from "./cache-dir.js";

export const LOCK_STALE_MS = 8_000;
export const LOCK_UPDATE_MS = 1_500;
const RETRY_MS = 100;

export interface HeldLock {
  waitMs: number;
  acquiredAt: Date;
  /** Set when the lock was taken from us (e.g. the event loop stalled beyond the stale time). */
  compromised(): Error | undefined;
  release(): Promise<void>;
}

/** The lock options every process must share so that they exclude each other. */
export function lockOptions(paths: CachePaths) {
  return {
    stale: LOCK_STALE_MS,
    update: LOCK_UPDATE_MS,
    realpath: false,
    lockfilePath: path.join(paths.locks, "root.lock"),
  };
}

export function lockTarget(paths: CachePaths): string {
  return path.join(paths.locks, "root");
}

/** Waits up to `waitMs` for the lock; undefined when it stayed held by someone else. */
export async function acquireLock(
  paths: CachePaths,
  waitMs: number,
  signal?: AbortSignal,
): Promise<HeldLock | undefined> {
  const started = performance.now();
  let compromised: Error | undefined;
  for (;;) {
    try {
      const release = await lockfile.lock(lockTarget(paths), {
        ...lockOptions(paths),
        retries: 0,
        onCompromised: (err) => {
          compromised = err;
        },
      });
      return {
        waitMs: Math.round(performance.now() - started),
        acquiredAt: new Date(),
        compromised: () => compromised,
        release: () => release().catch(() => {}),
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw err;
    }
    if (performance.now() - started >= waitMs || signal?.aborted) return undefined;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}
