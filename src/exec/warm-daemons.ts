/**
 * Long-lived checker processes that are not Node workers (the mypy daemon, pyright's language server): one
 * per key (tool, project root, configuration), each detached into its own process group so that a
 * timeout or shutdown kills it whole. The registry starts them on first use, replaces one that died or
 * whose watched files changed, ends them after the idle TTL and keeps at most `maxWorkers` alive,
 * counted with the worker pool's (one budget, warm-budget.ts; least recently used idle ones go first). `list()` has the same shape as the worker pool's.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { killGroup } from "./runner.js";
import { rssMbOf } from "./warm-processes.js";
import { sandboxLaunch, type SandboxRun } from "./sandbox/launch.js";
import { WarmBudget, type BudgetMember, type BudgetSlot } from "./warm-budget.js";

export const WARM_DAEMONS_SERVICE = "warm-python-daemons";

export interface DaemonLimits {
  idleTtlMs: number;
  maxWorkers: number;
}

export interface DaemonLaunch {
  program: string;
  args: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Receives the process's stdout (pyright's watch reports); ignored when absent. */
  onStdout?: (chunk: string) => void;
  /** Gives it a stdin pipe: it reaches EOF when the server ends, however. */
  stdinPipe?: boolean;
  /** Gives it a raw stdout pipe (bytes, read through `child.stdout`), e.g. for a JSON-RPC stream. */
  stdoutPipe?: boolean;
  /** The sandbox it starts in (once: its requests pay nothing for it). */
  sandbox?: SandboxRun;
}

const STDERR_TAIL_BYTES = 4096;

/** One detached process with its own process group; `exited` settles when it is gone. */
export class DaemonProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly startedAt = Date.now();
  dead = false;
  stderrTail = "";
  exitCode: number | null = null;
  exitSignal: NodeJS.Signals | null = null;
  readonly exited: Promise<void>;

  constructor(launch: DaemonLaunch) {
    const sandboxed = sandboxLaunch(
      launch.program,
      launch.args,
      launch.cwd,
      launch.sandbox,
      launch.env ?? {},
    );
    // The sandbox layer's environment for it (never the server's secrets; sandbox/env.ts).
    const env: NodeJS.ProcessEnv = { ...sandboxed.env, NO_COLOR: "1", TERM: "dumb", ...launch.env };
    delete env.FORCE_COLOR;
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    this.child = spawn(sandboxed.program, sandboxed.args, {
      cwd: launch.cwd,
      env,
      stdio: [
        launch.stdinPipe ? "pipe" : "ignore",
        launch.onStdout || launch.stdoutPipe ? "pipe" : "ignore",
        "pipe",
      ],
      detached: true, // its own process group: a timeout or shutdown kills it and all it started
      windowsHide: true,
    });
    if (!this.child.pid) throw new Error(`could not start ${launch.program}`);
    this.pid = this.child.pid;
    // A daemon never keeps the server alive by itself.
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr])
      (s as unknown as { unref?: () => void } | null)?.unref?.();
    this.child.stderr?.on("data", (c: Buffer) => {
      this.stderrTail = (this.stderrTail + c.toString()).slice(-STDERR_TAIL_BYTES);
    });
    if (launch.onStdout) {
      this.child.stdout?.setEncoding("utf8");
      this.child.stdout?.on("data", launch.onStdout);
    }
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.dead = true;
        this.exitCode = code;
        this.exitSignal = signal;
        resolve();
      });
    });
    this.child.once("error", () => {
      this.dead = true;
      killGroup(this.pid, "SIGKILL");
    });
  }

  /** Why it ended, for error messages. */
  describeExit(tool: string): string {
    const why = this.exitSignal ? `was killed by ${this.exitSignal}` : `exited with code ${this.exitCode}`;
    const tail = this.stderrTail.trim().split("\n").slice(-5).join("\n");
    return `the ${tool} daemon (pid ${this.pid}) ${why}${tail ? `: ${tail}` : ""}`;
  }

  kill(): void {
    this.dead = true;
    killGroup(this.pid, "SIGKILL");
  }
}

/** What the registry needs of a warm checker. */
export interface WarmDaemon {
  readonly tool: string;
  readonly root: string;
  readonly pid: number;
  readonly startedAt: number;
  /** Requests served so far. */
  requests: number;
  /** Requests running or queued. */
  busy: number;
  lastUsed: number;
  readonly dead: boolean;
  /** Ends it with its process group and removes what it left in the server's temp dir. */
  stop(): Promise<void>;
}

export interface WarmDaemonInfo {
  tool: string;
  root: string;
  pid: number;
  requests: number;
  busy: boolean;
  age_seconds: number;
  /** Resident memory of its process and descendants, from /proc (undefined where there is none). */
  rss_mb?: number;
}

/** Resident set size of a process and its descendants in MiB (a sandboxed daemon is bwrap over it). */
export function rssMb(pid: number): number | undefined {
  return rssMbOf(pid) ?? undefined;
}

interface Entry<D extends WarmDaemon> {
  daemon: D;
  signature: string;
  idle?: NodeJS.Timeout;
}

export class WarmDaemons implements BudgetMember {
  private readonly entries = new Map<string, Entry<WarmDaemon>>();

  constructor(
    private readonly limits: DaemonLimits,
    /** Shared with the server's worker pool; one of its own by default. */
    private readonly budget: WarmBudget = new WarmBudget(limits.maxWorkers),
  ) {
    budget.join(this);
  }

  slots(): BudgetSlot[] {
    return [...this.entries.entries()]
      .filter(([, e]) => !e.daemon.dead)
      .map(([key, e]) => ({
        lastUsed: e.daemon.lastUsed,
        idle: e.daemon.busy === 0,
        end: () => this.drop(key),
      }));
  }

  /**
   * The live daemon under `key`, or a new one from `create` when there is none, it died, or its
   * `signature` (of the files it depends on) changed; `restartedBecause` says why a new one was made.
   */
  acquire<D extends WarmDaemon>(
    key: string,
    signature: string,
    create: () => D,
  ): { daemon: D; fresh: boolean; restartedBecause?: string } {
    const entry = this.entries.get(key) as Entry<D> | undefined;
    let restartedBecause: string | undefined;
    if (entry && !entry.daemon.dead && entry.signature === signature) {
      if (entry.idle) clearTimeout(entry.idle);
      entry.idle = undefined;
      entry.daemon.busy++;
      return { daemon: entry.daemon, fresh: false };
    }
    if (entry) {
      restartedBecause = entry.daemon.dead
        ? `the previous one (pid ${entry.daemon.pid}) had ended`
        : "its configuration changed";
      this.drop(key);
    }
    this.budget.enforce(1);
    const daemon = create();
    daemon.busy++;
    this.entries.set(key, { daemon, signature });
    return { daemon, fresh: true, restartedBecause };
  }

  /**
   * Why `acquire` would make a new daemon under `key`, or undefined when the live one would be used:
   * lets a caller answer cold this time and start the new one after (see pyright-warm.ts).
   */
  wouldReplace(key: string, signature: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return "none is running";
    if (entry.daemon.dead) return `the previous one (pid ${entry.daemon.pid}) had ended`;
    if (entry.signature !== signature) return "its configuration changed";
    return undefined;
  }

  /** A request on the daemon under `key` is done: the idle clock starts when none is left. */
  release(key: string, daemon: WarmDaemon): void {
    daemon.busy = Math.max(0, daemon.busy - 1);
    daemon.lastUsed = Date.now();
    const entry = this.entries.get(key);
    if (!entry || entry.daemon !== daemon) {
      if (daemon.busy === 0) void daemon.stop();
      return;
    }
    if (daemon.dead) {
      this.entries.delete(key);
      void daemon.stop();
      return;
    }
    if (daemon.busy === 0) {
      entry.idle = setTimeout(() => this.drop(key), this.limits.idleTtlMs);
      entry.idle.unref();
    }
    this.budget.enforce();
  }

  /** Ends the daemon under `key` (after a timeout, or when it went bad). */
  drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    if (entry.idle) clearTimeout(entry.idle);
    void entry.daemon.stop();
  }

  list(): WarmDaemonInfo[] {
    const now = Date.now();
    return [...this.entries.values()]
      .filter((e) => !e.daemon.dead)
      .map(({ daemon: d }) => ({
        tool: d.tool,
        root: d.root,
        pid: d.pid,
        requests: d.requests,
        busy: d.busy > 0,
        age_seconds: Math.round((now - d.startedAt) / 1000),
        rss_mb: rssMb(d.pid),
      }));
  }

  async close(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    for (const e of all) if (e.idle) clearTimeout(e.idle);
    await Promise.race([
      Promise.allSettled(all.map((e) => e.daemon.stop())),
      new Promise((r) => setTimeout(r, 2000).unref()),
    ]);
  }
}
