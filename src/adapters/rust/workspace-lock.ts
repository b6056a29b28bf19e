/**
 * One cargo run at a time per workspace, across every server process of this user. A crate without a
 * Cargo.lock gets one from cargo for the run, removed afterwards (cargo-run.ts); without this lock a
 * second server could see that passing file as the crate's own, pass `--locked` and fail once it was
 * removed ("cannot create the lock file … because --locked was passed"), or leave one behind. cargo
 * already runs one build at a time in the shared target dir, so this costs next to nothing.
 * The lock is a proper-lockfile lock in the per-user scratch root (no sandbox sees it), never in the project.
 * Runs of one process queue for it in turn (each starts the moment the one before ends) and only the head
 * of the queue polls the lock file: a check runs cargo fmt, clippy and check of a crate at once, and each
 * polling waiter started up to a poll interval after its turn came.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { properLockfile } from "../../exec/lockfile-lazy.js";
import { ToolError } from "../../errors.js";
import { scratchRoot } from "../../exec/sandbox/scratch.js";

// Short: a cargo check of a small crate takes ~100 ms, and waiting runs should follow each other closely.
const POLL_MS = 25;

/** Per workspace, the end of the last run of this process that queued for its lock. */
const queues = new Map<string, Promise<void>>();

function timedOut(workspace: string, waitMs: number): ToolError {
  return new ToolError(
    "timeout",
    `another cargo run on ${workspace} held it for longer than ${Math.round(waitMs / 1000)} s (--timeout)`,
  );
}

/** Runs `fn` holding the lock of `workspace`; waits for it at most `waitMs`. */
export async function withWorkspaceLock<T>(
  workspace: string,
  waitMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const before = queues.get(workspace) ?? Promise.resolve();
  let done = () => {};
  const mine = new Promise<void>((resolve) => (done = resolve));
  // The next run's turn: after this one ends, and never before the one this run waits for.
  const turn = before.then(() => mine);
  queues.set(workspace, turn);
  try {
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      before.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (!waited) throw timedOut(workspace, waitMs);
    const left = Math.max(POLL_MS, waitMs - (performance.now() - started));
    return await lockedAcrossProcesses(workspace, left, fn, () => timedOut(workspace, waitMs));
  } finally {
    done();
    if (queues.get(workspace) === turn) queues.delete(workspace);
  }
}

/** The lock file's part: held across every server process of this user. */
async function lockedAcrossProcesses<T>(
  workspace: string,
  waitMs: number,
  fn: () => Promise<T>,
  tooLong: () => ToolError,
): Promise<T> {
  const dir = path.join(scratchRoot(), "cargo-workspace-locks");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = createHash("sha256").update(workspace).digest("hex").slice(0, 32);
  const file = path.join(dir, key);
  const options = { realpath: false, lockfilePath: `${file}.lock`, retries: 0, onCompromised: () => {} };
  // Polled here, each try once: proper-lockfile's own retries build (and copy) a table of every wait up
  // front, thousands of entries for a wait as long as --timeout, on every lock taken (~15 ms of CPU).
  const deadline = performance.now() + waitMs;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await properLockfile().lock(file, options);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw err;
      if (performance.now() + POLL_MS > deadline) throw tooLong();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}
