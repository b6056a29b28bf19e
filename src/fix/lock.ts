/**
 * The locks of one transaction: its scope (src/fix/scope-lock.ts: no overlapping project root is being
 * written by any server of this user), the cross-process lock of its project root (proper-lockfile on
 * `.mcp-cache/locks/root`, reached through the open `locks` folder, so a link swapped in is never followed),
 * and the original seed 001 server's lock of the same folder (seed-lock.ts), taken in that order.
 * A holder that dies stops refreshing its locks, which become stale and are taken over after LOCK_STALE_MS.
 *
 * A holder whose event loop stalls stops refreshing too, and another process may then take its lock. The
 * held lock reports itself compromised when proper-lockfile says so, when the lock folder is no longer the
 * one it created (inode and creation time), when its last refresh is older than LOCK_STALE_MS -
 * LOCK_UPDATE_MS, or when the event loop went that long without a tick (a refresh may have come too late):
 * the transaction then rolls back instead of committing.
 */
import fs from "node:fs";
import path from "node:path";
import { properLockfile } from "../exec/lockfile-lazy.js";
import { openDirIn } from "../paths/safe-fs.js";
import type { CachePaths } from "./cache-dir.js";
import { acquireScope } from "./scope-lock.js";
import { lockIdentity } from "./lock-identity.js";
import { acquireSeedLock } from "./seed-lock.js";

export const LOCK_STALE_MS = 8_000;
export const LOCK_UPDATE_MS = 1_500;
/** A stall this long may have let the lock go stale for others. */
export const STALL_LIMIT_MS = LOCK_STALE_MS - LOCK_UPDATE_MS;
const RETRY_MS = 100;
const TICK_MS = 250;

export interface HeldLock {
  waitMs: number;
  acquiredAt: Date;
  /** Set when the lock may have been taken from us (e.g. the event loop stalled beyond the stale time). */
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

/** The longest gap between event-loop ticks since start, the current one included. */
function stallWatch() {
  let last = Date.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, TICK_MS);
  timer.unref();
  return { worst: () => Math.max(worst, Date.now() - last), stop: () => clearInterval(timer) };
}

/** Waits up to `waitMs` for the scope and root locks; undefined when they stayed held by someone else. */
export async function acquireLock(
  paths: CachePaths,
  waitMs: number,
  signal?: AbortSignal,
): Promise<HeldLock | undefined> {
  const started = performance.now();
  const scope = await acquireScope(
    paths.root,
    waitMs,
    { stale: LOCK_STALE_MS, update: LOCK_UPDATE_MS },
    signal,
  );
  if (!scope) return undefined;
  let locks;
  try {
    locks = openDirIn(paths.root, paths.locks, { create: 0o700 });
  } catch (err) {
    await scope.release();
    throw err;
  }
  const lockDir = locks.entry("root.lock");
  const options = { ...lockOptions(paths), lockfilePath: lockDir };
  let compromised: Error | undefined;
  for (;;) {
    try {
      const release = await properLockfile().lock(locks.entry("root"), {
        ...options,
        retries: 0,
        onCompromised: (err) => {
          compromised = err;
        },
      });
      const identity = lockIdentity(fs.statSync(lockDir));
      const stalls = stallWatch();
      // The original seed 001 server's lock too (seed-lock.ts), so that the two never fix this project at once.
      let seed;
      try {
        seed = await acquireSeedLock(paths, locks, started + waitMs, LOCK_STALE_MS, LOCK_UPDATE_MS, signal);
      } catch (err) {
        seed = err instanceof Error ? err : new Error(String(err));
      }
      if (!seed || seed instanceof Error) {
        stalls.stop();
        await release().catch(() => {});
        locks.close();
        await scope.release();
        if (seed) throw seed;
        return undefined;
      }
      const seedLock = seed;
      return {
        waitMs: Math.round(performance.now() - started),
        acquiredAt: new Date(),
        compromised: () => {
          if (compromised) return compromised;
          const lost = scope.compromised() ?? seedLock.compromised();
          if (lost) return lost;
          const stall = stalls.worst();
          if (stall > STALL_LIMIT_MS)
            return new Error(
              `the event loop stalled for ${stall} ms, past the lock's refresh margin (${STALL_LIMIT_MS} ms)`,
            );
          const now = fs.statSync(lockDir, { throwIfNoEntry: false });
          if (!now || lockIdentity(now) !== identity)
            return new Error("the lock folder was removed or replaced by another process");
          // A refresh late for any reason (the thread pool busy with the fix's own file reads, not only a
          // stalled event loop) lets another process take the lock as stale: lost before that can happen.
          const age = Math.round(Date.now() - now.mtimeMs);
          if (age > STALL_LIMIT_MS)
            return new Error(
              `the lock was last refreshed ${age} ms ago, past its refresh margin (${STALL_LIMIT_MS} ms)`,
            );
          return undefined;
        },
        release: async () => {
          stalls.stop();
          await seedLock.release();
          await release().catch(() => {});
          locks.close();
          await scope.release();
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") {
        locks.close();
        await scope.release();
        throw err;
      }
    }
    if (performance.now() - started >= waitMs || signal?.aborted) {
      locks.close();
      await scope.release();
      return undefined;
    }
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}
