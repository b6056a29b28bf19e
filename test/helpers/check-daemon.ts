/** Shared by the `check --daemon` tests: an environment of its own per test, the daemon's status, cleanup. */
import { runCheck, type CheckRun } from "./check.js";
import { tempDir } from "./tools.js";

export interface DaemonStatus {
  socket: string;
  pid: number;
  served: number;
  /** Requests answering now, and waiting their turn. */
  running: number;
  waiting: number;
}

const started: Record<string, string>[] = [];

/** `check --daemon-status` in `env`: the daemon's, or undefined when none runs. */
export async function daemonStatus(env: Record<string, string>): Promise<DaemonStatus | undefined> {
  const r = await runCheck(["--daemon-status"], { env });
  return r.status === 0 ? (JSON.parse(r.stdout) as DaemonStatus) : undefined;
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function until(what: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await what()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("timed out waiting");
}

/**
 * An environment of its own: a private TMPDIR and runtime folder (0700, as systemd makes it), so the daemon
 * folder, its secret and the sockets are this test's. Its daemon is stopped by stopDaemons().
 */
export function isolatedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = { TMPDIR: tempDir("mcq-daemon-tmp-"), XDG_RUNTIME_DIR: tempDir("mcq-daemon-run-"), ...extra };
  started.push(env);
  return env;
}

/** Another environment whose daemon stopDaemons() stops too. */
export function alsoStop(env: Record<string, string>): void {
  started.push(env);
}

/** Stops (and if need be kills) the daemon of every environment made since the last call: afterEach. */
export async function stopDaemons(): Promise<void> {
  for (const env of started.splice(0)) {
    const st = await daemonStatus(env);
    await runCheck(["--daemon-stop"], { env });
    if (st && alive(st.pid)) process.kill(st.pid, "SIGKILL");
  }
}

/** The JSON report without its timings (the only part two runs may differ in). */
export function timeless(run: CheckRun): unknown {
  return JSON.parse(run.stdout, (k, v: unknown) => (k === "duration_ms" ? undefined : v));
}
