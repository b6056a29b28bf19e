/**
 * One cargo run at a time per workspace, across every server process of this user. A crate without a
 * Cargo.lock gets one from cargo for the run, removed afterwards (cargo-run.ts); without this lock a
 * second server could see that passing file as the crate's own, pass `--locked` and fail once it was
 * removed ("cannot create the lock file … because --locked was passed"), or leave one behind. cargo
 * already runs one build at a time in the shared target dir, so this costs next to nothing.
 * The lock is a proper-lockfile lock in the per-user scratch root (no sandbox sees it), never in the project.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { properLockfile } from "../../exec/lockfile-lazy.js";
import { ToolError } from "../../errors.js";
import { scratchRoot } from "../../exec/sandbox/scratch.js";

// Short: a cargo check of a small crate takes ~100 ms, and waiting runs should follow each other closely.
const POLL_MS = 25;

/** Runs `fn` holding the lock of `workspace`; waits for it at most `waitMs`. */
export async function withWorkspaceLock<T>(
  workspace: string,
  waitMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  const dir = path.join(scratchRoot(), "cargo-workspace-locks");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = createHash("sha256").update(workspace).digest("hex").slice(0, 32);
  let release: () => Promise<void>;
  try {
    release = await properLockfile().lock(path.join(dir, key), {
      realpath: false,
      lockfilePath: path.join(dir, `${key}.lock`),
      retries: {
        retries: Math.max(1, Math.ceil(waitMs / POLL_MS)),
        factor: 1,
        minTimeout: POLL_MS,
        maxTimeout: POLL_MS,
      },
      onCompromised: () => {},
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED")
      throw new ToolError(
        "timeout",
        `another cargo run on ${workspace} held it for longer than ${Math.round(waitMs / 1000)} s (--timeout)`,
      );
    throw err;
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}
