/**
 * Every process the server starts, and how to end them all.
 *
 * - Each child runs in its own process group, listed here while it lives (`trackChildGroup`), so a
 *   shutdown can end every group at once (`endAllChildren`). Whoever spawns a long-lived child (a warm
 *   worker, a type-checker daemon) registers it here.
 * - A descendant can leave its group (`setsid`, a daemon's double fork), so every child's environment
 *   also carries two marks, inherited by everything it starts: the server's token and a token of its
 *   own run (`markedEnv`). `killMarked` ends every process whose /proc/<pid>/environ carries a token —
 *   the technique of Jenkins' process-tree killer. A process that clears or rewrites its environment
 *   block (an `env -i` exec, prctl(PR_SET_MM)) escapes it; so does one running as another user.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";

export const SERVER_TOKEN_VAR = "MCQ_SERVER_TOKEN";
export const RUN_TOKEN_VAR = "MCQ_RUN_TOKEN";

/**
 * This server's mark, inherited by every process it starts (directly or not). Made on first use, not when
 * the module loads: the command line's start-up snapshot loads its modules once at build time, and a token
 * made then would be every process's.
 */
export function serverToken(): string {
  return (serverToken_ ??= randomBytes(16).toString("hex"));
}
let serverToken_: string | undefined;

export interface ChildGroup {
  /** Process group id (the leader's pid: children are spawned detached). */
  pgid: number;
  /** The run token in the child's environment, when it has one. */
  token?: string;
  /** What it is, for logs and status: "eslint worker", "ruff". */
  label: string;
}

const live = new Map<number, ChildGroup>();

/** A fresh token for one run or one long-lived child. */
export function newRunToken(): string {
  return randomBytes(16).toString("hex");
}

/**
 * Forgets the server's token and the count of uncontained children: for a snapshot's build, after its
 * warm-up check (src/snapshot-warm-up.ts), so that each process from the snapshot makes its own token.
 */
export function forgetChildMarks(): void {
  serverToken_ = undefined;
  uncontained = 0;
}

/**
 * Marked children started outside a pid namespace of their own: their descendants may outlive them, so
 * only these make the last scan of /proc (endAllChildren) worth its ~3 ms.
 */
let uncontained = 0;

/**
 * The environment variables that mark a child (and all its descendants) as ours. `contained`: the child
 * is a sandbox whose pid namespace ends with it (bwrap --unshare-pid --die-with-parent), so nothing it
 * starts outlives it, and killing its group ends them all.
 */
export function markedEnv(runToken: string, contained = false): Record<string, string> {
  if (!contained) uncontained++;
  return { [SERVER_TOKEN_VAR]: serverToken(), [RUN_TOKEN_VAR]: runToken };
}

/** Lists a live child group until the returned function is called (when it has exited). */
export function trackChildGroup(group: ChildGroup): () => void {
  live.set(group.pgid, group);
  return () => {
    if (live.get(group.pgid) === group) live.delete(group.pgid);
  };
}

/** The child groups alive now. */
export function liveChildGroups(): ChildGroup[] {
  return [...live.values()];
}

/** Sends a signal to a whole process group; a group that is already gone is fine. */
export function killGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (!pgid) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group has already exited.
  }
}

/** `\0NAME=token\0`: a whole entry, so neither a longer name nor a longer value matches. */
function environNeedle(name: string, token: string): Buffer {
  return Buffer.from(`\0${name}=${token}\0`);
}

function carries(environ: Buffer, needle: Buffer): boolean {
  return Buffer.concat([Buffer.of(0), environ, Buffer.of(0)]).includes(needle);
}

/**
 * Sends `signal` to every process (other than this one) whose environment carries `name=token`.
 * Returns their pids. Processes that vanish meanwhile are skipped. Without /proc it finds nothing.
 */
export async function killMarked(
  token: string,
  signal: NodeJS.Signals,
  name: string = RUN_TOKEN_VAR,
  /**
   * The pid of a run's leader that started less than a second ago: what escaped its group was forked
   * after it, so only larger pids are read, unless the pid counter has wrapped since (then all are).
   * On a machine with hundreds of processes this spares reading every /proc/<pid>/environ after each
   * short run (a few milliseconds of the server's main thread per call, issue 29).
   */
  newerThan?: number,
): Promise<number[]> {
  const needle = environNeedle(name, token);
  const names = await fsp.readdir("/proc").catch(() => [] as string[]);
  const killed: number[] = [];
  const since = newerThan !== undefined && lastPid() >= newerThan ? newerThan : 0;
  await Promise.all(
    names.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return;
      const pid = Number(entry);
      if (pid === process.pid || pid < since) return;
      const environ = await fsp.readFile(`/proc/${entry}/environ`).catch(() => undefined);
      if (!environ || !carries(environ, needle)) return;
      try {
        process.kill(pid, signal);
        killed.push(pid);
      } catch {
        // Gone already.
      }
    }),
  );
  return killed;
}

/** The last pid the kernel gave out (0 when it does not say: then every process is read). */
function lastPid(): number {
  try {
    return Number(fs.readFileSync("/proc/sys/kernel/ns_last_pid", "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

/** Synchronous variant, for the last moments of a server that is exiting. */
export function killMarkedSync(
  token: string,
  signal: NodeJS.Signals,
  name: string = SERVER_TOKEN_VAR,
): number {
  const needle = environNeedle(name, token);
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return 0;
  }
  let n = 0;
  for (const entry of names) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = fs.readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    if (!carries(environ, needle)) continue;
    try {
      process.kill(Number(entry), signal);
      n++;
    } catch {
      // Gone already.
    }
  }
  return n;
}

/**
 * Ends everything this server started: every registered group, then every process still carrying
 * the server's token (descendants that left their group). Synchronous, so it also works on exit.
 */
export function endAllChildren(signal: NodeJS.Signals = "SIGKILL"): void {
  for (const g of live.values()) killGroup(g.pgid, signal);
  // No token made: no child was ever marked, so none can be left (and a fresh `check` answered from its
  // cache skips the random generator's set-up and the scan of /proc). Only sandboxed children: whatever
  // they started died with their namespace, or dies with the group just killed.
  if (serverToken_ !== undefined && uncontained > 0) killMarkedSync(serverToken_, signal, SERVER_TOKEN_VAR);
}
