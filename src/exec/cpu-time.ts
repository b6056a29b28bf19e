/**
 * The CPU a process tree has used, from /proc: what bounds a warm worker's request (warm-worker.ts). An
 * rlimit counts a process's whole life, so it cannot bound one request of a process that serves many;
 * this counts the tree's CPU at the request's start and while it runs. Linux only: elsewhere it reads 0.
 */
import fs from "node:fs";

/** /proc counts in USER_HZ, which Linux fixes at 100 for every architecture (sysconf(_SC_CLK_TCK)). */
const MS_PER_TICK = 10;

/**
 * The parent and the CPU ticks (user and system, its own and those of the children it waited for) of a
 * /proc/<pid>/stat line; undefined when it is not one. Pure.
 */
export function statCpu(stat: string): { ppid: number; ticks: number } | undefined {
  // The command name may hold spaces and parentheses: the fields start after the last ")".
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  const f = stat.slice(close + 2).split(" ");
  // Fields 4, 14-17 of proc(5): ppid, utime, stime, cutime, cstime (f[0] is field 3, the state).
  const [ppid, ...times] = [f[1], f[11], f[12], f[13], f[14]].map(Number);
  if (ppid === undefined || !Number.isInteger(ppid) || times.some((t) => !Number.isFinite(t)))
    return undefined;
  return { ppid, ticks: times.reduce((a, b) => a + b, 0) };
}

/**
 * Milliseconds of CPU used so far by `root` and every process below it: one read of /proc (115 processes: 3.6 ms at
 * load 13 on 2 cores). A descendant that ended counts in its parent once waited for; one whose parent left
 * the tree (a double fork) is not counted here, and the request's timeout bounds it.
 */
export function treeCpuMs(root: number): number {
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return 0;
  }
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const name of names) {
    if (name.charCodeAt(0) > 57) continue; // not a pid
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const cpu = statCpu(stat);
    if (!cpu) continue;
    const pid = Number(name);
    ticks.set(pid, cpu.ticks);
    const siblings = children.get(cpu.ppid);
    if (siblings) siblings.push(pid);
    else children.set(cpu.ppid, [pid]);
  }
  let total = 0;
  const stack = [root];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    total += ticks.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total * MS_PER_TICK;
}

/** How often a watched tree's CPU is read. */
const WATCH_MS = 250;

/**
 * Calls `exceeded` (once) when `root`'s tree has used more than `seconds` of CPU from now on: what it used
 * before is not counted. Returns the function that stops the watch; 0 seconds watches nothing.
 */
export function watchCpu(root: number, seconds: number, exceeded: () => void): () => void {
  const limitMs = seconds * 1000;
  if (!(limitMs > 0)) return () => {};
  const before = treeCpuMs(root);
  const poll = setInterval(
    () => {
      if (treeCpuMs(root) - before <= limitMs) return;
      clearInterval(poll);
      exceeded();
    },
    Math.min(WATCH_MS, limitMs),
  );
  return () => clearInterval(poll);
}
