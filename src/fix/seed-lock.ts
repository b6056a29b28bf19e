/**
 * The original seed 001 server's lock, taken beside ours so that the two servers never fix the same
 * project at once (a team switching from eslint-typescript-mcp 1.2.0 runs both for a while). The original
 * (its src/lock.ts and src/config.ts) locks `<cwd>/.mcp-cache/locks/.cwd-sentinel` with proper-lockfile:
 * the sentinel made empty when missing (`writeFile(…, '', {flag: 'a'})`), the lock folder
 * `.cwd-sentinel.lock`, `realpath: false`, stale after 60 s, refreshed every 5 s, five retries over about
 * 3 s before it gives up (`locked-out`). We take the same lock folder with the same stale time, after our
 * own root lock, so either server waits for (or is locked out by) the other.
 *
 * A lock the original holds is never taken before it is 60 s stale, as the original itself would. One a
 * server of ours holds follows our own rule: taken over once unrefreshed for LOCK_STALE_MS (its holder was
 * killed or stalled, and has lost our root lock by then too), when it is provably ours: a holder record
 * beside it names this host and the lock folder's identity (inode and creation time), which no other lock
 * folder has. Otherwise a killed or stopped server would hold up every fix of the project for a minute.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { properLockfile } from "../exec/lockfile-lazy.js";
import { readFileIn, removeFileIn, writeFileIn, type SafeDir } from "../paths/safe-fs.js";
import type { CachePaths } from "./cache-dir.js";
import { lockIdentity } from "./lock-identity.js";

export const SEED_SENTINEL = ".cwd-sentinel";
/** The original's LOCK_STALE_MS and LOCK_UPDATE_MS. */
export const SEED_LOCK_STALE_MS = 60_000;
export const SEED_LOCK_UPDATE_MS = 5_000;
const HOLDER = ".cwd-sentinel.mcq-holder";
const RETRY_MS = 100;

/** The options the original locks its sentinel with (what makes two processes exclude each other). */
export function seedLockOptions(sentinel: string) {
  return {
    stale: SEED_LOCK_STALE_MS,
    update: SEED_LOCK_UPDATE_MS,
    realpath: false,
    lockfilePath: `${sentinel}.lock`,
  };
}

export interface HeldSeedLock {
  compromised(): Error | undefined;
  release(): Promise<void>;
}

/** Whether the held sentinel lock is one a server of ours took and no longer refreshes (module comment). */
function ourStaleLock(paths: CachePaths, locks: SafeDir, staleMs: number): boolean {
  let holder: { host?: unknown; lock?: unknown };
  try {
    const read = readFileIn(paths.root, path.join(paths.locks, HOLDER), "refuse");
    if (!read) return false;
    holder = JSON.parse(read.content.toString("utf8")) as typeof holder;
  } catch {
    return false;
  }
  const st = locks.lstat(`${SEED_SENTINEL}.lock`);
  return (
    st !== undefined &&
    st.isDirectory() &&
    holder.host === os.hostname() &&
    holder.lock === lockIdentity(st) &&
    Date.now() - st.mtimeMs > staleMs
  );
}

/**
 * Waits until `deadline` (performance.now() time) for the original's lock of the project, the sentinel
 * made when missing (never through a link); undefined when it stayed held. `ourStaleMs`: how long our own
 * own holder's lock must have gone unrefreshed before it is taken over.
 */
export async function acquireSeedLock(
  paths: CachePaths,
  locks: SafeDir,
  deadline: number,
  ourStaleMs: number,
  updateMs: number,
  signal?: AbortSignal,
): Promise<HeldSeedLock | undefined> {
  const { O_WRONLY, O_CREAT, O_APPEND, O_NOFOLLOW } = fs.constants;
  fs.closeSync(fs.openSync(locks.entry(SEED_SENTINEL), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o600));
  const lockDir = locks.entry(`${SEED_SENTINEL}.lock`);
  for (;;) {
    let compromised: Error | undefined;
    try {
      const release = await properLockfile().lock(locks.entry(SEED_SENTINEL), {
        ...seedLockOptions(locks.entry(SEED_SENTINEL)),
        // Refreshed more often than the original does: a fresher lock is as good to it, and a stall shows sooner.
        update: updateMs,
        retries: 0,
        onCompromised: (err) => {
          compromised = err;
        },
      });
      const identity = lockIdentity(fs.statSync(lockDir));
      writeFileIn(
        paths.root,
        path.join(paths.locks, HOLDER),
        JSON.stringify({ host: os.hostname(), pid: process.pid, lock: identity }),
        { mode: 0o600, links: "refuse" },
      );
      return {
        compromised: () => {
          if (compromised) return compromised;
          const now = fs.statSync(lockDir, { throwIfNoEntry: false });
          if (!now || lockIdentity(now) !== identity)
            return new Error("the original server's lock folder was removed or replaced by another process");
          return undefined;
        },
        release: async () => {
          await release().catch(() => {});
          try {
            const read = readFileIn(paths.root, path.join(paths.locks, HOLDER), "refuse");
            const record = read ? (JSON.parse(read.content.toString("utf8")) as { lock?: unknown }) : {};
            if (record.lock === identity) removeFileIn(paths.root, path.join(paths.locks, HOLDER));
          } catch {
            // Another holder's record, or none: left as it is.
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw err;
    }
    if (ourStaleLock(paths, locks, ourStaleMs)) {
      // Ours, and stale by our rule: taken over now rather than after the original's 60 s.
      fs.rmdirSync(lockDir);
      continue;
    }
    if (performance.now() >= deadline || signal?.aborted) return undefined;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}
