/**
 * What get_status lists as warm: every long-lived process or thread the server keeps between calls
 * (the worker pool's ESLint/TypeScript/Prettier workers, the embedded-ruff thread, type-checker daemons).
 * Each owner registers a source once; get_status asks every source for its current entries.
 */
import fs from "node:fs";

export interface WarmProcessInfo {
  /** Tool name (eslint, tsc, prettier, ruff (embedded), dmypy, pyright, ...). */
  tool: string;
  /** Project root the process serves; null for one shared by every root (the ruff thread). */
  root: string | null;
  /** "process": its own pid; "thread": a thread of the server (pid is the server's). */
  kind: "process" | "thread";
  pid: number;
  /** Worker-thread id, for kind "thread". */
  thread_id?: number;
  age_seconds: number;
  requests: number;
  busy: boolean;
  /** Resident memory of the process, MiB (null when unknown); for a thread, see memory_mb. */
  rss_mb: number | null;
  /** A thread's own memory (its V8 heap plus wasm/buffers), MiB. */
  memory_mb?: number;
}

export interface WarmProcessSource {
  warmProcesses(): WarmProcessInfo[];
}

/** The set of sources of one server (kept in its Services under WARM_PROCESSES_SERVICE). */
export class WarmProcessRegistry {
  private readonly sources = new Set<WarmProcessSource>();

  register(source: WarmProcessSource): void {
    this.sources.add(source);
  }

  unregister(source: WarmProcessSource): void {
    this.sources.delete(source);
  }

  list(): WarmProcessInfo[] {
    return [...this.sources].flatMap((s) => s.warmProcesses());
  }
}

export const WARM_PROCESSES_SERVICE = "warm-processes";

/** The registry of a server, from anything shaped like its Services. */
export function warmProcessRegistry(services: {
  get<T extends object>(key: string, create: () => T): T;
}): WarmProcessRegistry {
  return services.get(WARM_PROCESSES_SERVICE, () => new WarmProcessRegistry());
}

/**
 * Resident set size of a live process and its descendants in MiB, from /proc (null where there is no /proc or
 * it ended): a sandboxed worker is bwrap, its init and the worker under them.
 */
export function rssMbOf(pid: number): number | null {
  const own = rssKb(pid);
  if (own === null) return null;
  let kb = own;
  const seen = new Set([pid]);
  const queue = childrenOf(pid);
  while (queue.length && seen.size < 64) {
    const next = queue.shift() as number;
    if (seen.has(next)) continue;
    seen.add(next);
    kb += rssKb(next) ?? 0;
    queue.push(...childrenOf(next));
  }
  return Math.round(kb / 102.4) / 10;
}

function rssKb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .split(" ")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

export function ageSeconds(startedAt: number, now = Date.now()): number {
  return Math.round((now - startedAt) / 100) / 10;
}
