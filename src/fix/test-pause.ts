/**
 * TEST ONLY. With MCP_CODE_QUALITY_TEST_PAUSE_AFTER_WRITES=1 in its environment, a server's transaction
 * stops for good after its first writing step (before any further write or the commit) and says so on
 * stderr with its pid, so a crash-recovery test can `kill -9` it at a known point. Never set it otherwise.
 */
export const TEST_PAUSE_ENV = "MCP_CODE_QUALITY_TEST_PAUSE_AFTER_WRITES";
export const TEST_PAUSE_MESSAGE = "test pause after writes";

export async function pauseForCrashTest(runId: string): Promise<void> {
  if (process.env[TEST_PAUSE_ENV] !== "1") return;
  process.stderr.write(`${TEST_PAUSE_MESSAGE}: run ${runId} pid ${process.pid}\n`);
  await new Promise<never>(() => {});
}

/**
 * TEST ONLY. With MCP_CODE_QUALITY_TEST_STOP_BEFORE_CLAIM=1, a transaction stops its own process
 * (SIGSTOP) once its work is done and its lock checked, just before it reads what changed to claim it as
 * its own: the window in which a stall lets another server take the lock and write. The test continues
 * it with SIGCONT. Never set it otherwise.
 */
export const TEST_STOP_ENV = "MCP_CODE_QUALITY_TEST_STOP_BEFORE_CLAIM";
export const TEST_STOP_MESSAGE = "test stop before claiming writes";

export function stopBeforeClaimForTest(runId: string): void {
  if (process.env[TEST_STOP_ENV] !== "1") return;
  process.stderr.write(`${TEST_STOP_MESSAGE}: run ${runId} pid ${process.pid}\n`);
  process.kill(process.pid, "SIGSTOP");
}

/** The once-per-process stops that already happened, by their environment variable. */
const stoppedOnce = new Set<string>();

/**
 * Stops this process (SIGSTOP) the first time it gets here with `env` set to `value`, after saying
 * `message` with the run and pid on stderr, where the test waits for it. The stops below share it.
 */
function stopOnceForTest(env: string, value: string, message: string, runId: string): void {
  if (stoppedOnce.has(env) || process.env[env] !== value) return;
  stoppedOnce.add(env);
  process.stderr.write(`${message}: run ${runId} pid ${process.pid}\n`);
  process.kill(process.pid, "SIGSTOP");
}

/**
 * TEST ONLY. With MCP_CODE_QUALITY_TEST_STOP_AFTER_STEP=<n> (or `verify`), a transaction stops its own
 * process (SIGSTOP) once its n-th writing step is recorded (or once all its writes are claimed, before the
 * verification), so a test can edit a file at that point and continue it with SIGCONT. Once per process, so
 * the test's later calls run through. Never set it otherwise.
 */
export const TEST_STEP_STOP_ENV = "MCP_CODE_QUALITY_TEST_STOP_AFTER_STEP";
export const TEST_STEP_STOP_MESSAGE = "test stop after step";

export function stopAfterStepForTest(runId: string, step: string): void {
  stopOnceForTest(TEST_STEP_STOP_ENV, step, `${TEST_STEP_STOP_MESSAGE} ${step}`, runId);
}

/**
 * TEST ONLY. With MCP_CODE_QUALITY_TEST_STOP_BEFORE_RESTORE=1, a transaction rolling back stops its own
 * process (SIGSTOP) once it has decided to restore a file (it found its own write there) and before it
 * writes: the stall in which another server may take the lock and commit over that file. Once per process.
 * The test continues it with SIGCONT. Never set it otherwise.
 */
export const TEST_RESTORE_STOP_ENV = "MCP_CODE_QUALITY_TEST_STOP_BEFORE_RESTORE";
export const TEST_RESTORE_STOP_MESSAGE = "test stop before restoring";

export function stopBeforeRestoreForTest(runId: string, file: string): void {
  stopOnceForTest(TEST_RESTORE_STOP_ENV, "1", `${TEST_RESTORE_STOP_MESSAGE} ${file}`, runId);
}

/**
 * TEST ONLY. With MCP_CODE_QUALITY_TEST_STOP_BEFORE_WRITE=1, a transaction stops its own process (SIGSTOP)
 * at its first write of a file it may change, once the writer checked the file still holds what it read and
 * before the write is let through: the stall in which another server may take the lock and commit that
 * file. Once per process. Never set it otherwise.
 */
export const TEST_WRITE_STOP_ENV = "MCP_CODE_QUALITY_TEST_STOP_BEFORE_WRITE";
export const TEST_WRITE_STOP_MESSAGE = "test stop before writing";

export function stopBeforeWriteForTest(runId: string, file: string): void {
  stopOnceForTest(TEST_WRITE_STOP_ENV, "1", `${TEST_WRITE_STOP_MESSAGE} ${file}`, runId);
}
