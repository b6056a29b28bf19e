/**
 * pyright kept warm in its watch mode (`pyright --outputjson --watch`), one process per (project root,
 * working directory, arguments): it prints a full JSON report each time its file watcher sees a change
 * and re-analyses only what the change affects. A call returns the newest report once it is known to
 * cover the files as they are now: the server fingerprints the project's Python files (paths, sizes,
 * mtimes) when each report arrives, and waits for the next report when the files differ from the
 * last report's fingerprint. A file written while an analysis ran makes that report uncertain, so the
 * next one is awaited too. No report within the settle time means the watcher missed something: the
 * process is replaced and the check runs cold.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ToolContext } from "../../engine/tool.js";
import { DaemonProcess, type WarmDaemon } from "../../exec/warm-daemons.js";
import { fileSignature } from "../../exec/worker-pool.js";
import { pyrightCli } from "./pyright.js";
import { warmDaemons } from "./mypy-warm.js";

const EXIT_WITH_PARENT = pathToFileURL(fileURLToPath(new URL("./exit-with-parent.js", import.meta.url))).href;
const SKIP_DIRS = new Set(["node_modules", "__pycache__", "venv", "site-packages", "build", "dist"]);
const MAX_FILES = 20_000;
/**
 * How long a changed tree may take to produce a report before the watcher is deemed to have missed it:
 * pyright waits about a second after a change before it re-analyses, then takes up to its last full
 * analysis time.
 */
const SETTLE_MS = 10_000;
/** A report that may have missed a change made during its analysis is taken if no other follows this soon. */
const QUIET_MS = 1500;

/**
 * Path, size and mtime of every .py/.pyi file under `dirs` (dot folders, virtualenvs and build
 * folders skipped), plus the newest mtime seen.
 */
export function sourceFingerprint(dirs: readonly string[]): { signature: string; newestMtimeMs: number } {
  const parts: string[] = [];
  let newest = 0;
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (parts.length >= MAX_FILES) return;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith(".") && !SKIP_DIRS.has(e.name)) walk(p);
      } else if (e.isFile() && /\.pyi?$/.test(e.name)) {
        try {
          const st = fs.statSync(p);
          parts.push(`${p}:${st.size}:${st.mtimeMs}`);
          newest = Math.max(newest, st.mtimeMs);
        } catch {
          parts.push(`${p}:-`);
        }
      }
    }
  };
  for (const d of dirs) walk(d);
  return { signature: parts.sort().join("|"), newestMtimeMs: newest };
}

interface Report {
  text: string;
  /** The tree's fingerprint when it arrived, or undefined when a file changed during its analysis. */
  signature: string | undefined;
  /** The fingerprint when it arrived, whether or not a file changed during its analysis. */
  rawSignature: string;
  analysisMs: number;
  errors: number;
  warnings: number;
}

/**
 * Splits pyright's watch-mode stdout into its JSON reports (each a pretty-printed object that ends
 * with a `}` line); returns the complete ones and what is left over.
 */
export function splitReports(buffer: string): { reports: string[]; rest: string } {
  const reports: string[] = [];
  let rest = buffer;
  for (;;) {
    const start = rest.indexOf("{");
    const end = rest.indexOf("\n}\n", start);
    if (start === -1 || end === -1) break;
    reports.push(rest.slice(start, end + 2));
    rest = rest.slice(end + 3);
  }
  return { reports, rest };
}

export class PyrightWatcher implements WarmDaemon {
  readonly tool = "pyright";
  requests = 0;
  busy = 0;
  lastUsed = Date.now();
  private readonly proc: DaemonProcess;
  private buffer = "";
  private latest: Report | undefined;
  private waiters: (() => void)[] = [];

  constructor(
    readonly root: string,
    cwd: string,
    args: readonly string[],
    private readonly watchDirs: readonly string[],
  ) {
    this.proc = new DaemonProcess({
      program: process.execPath,
      args: ["--import", EXIT_WITH_PARENT, pyrightCli(), ...args, "--watch"],
      cwd,
      onStdout: (chunk) => this.onOutput(chunk),
      stdinPipe: true,
    });
    void this.proc.exited.then(() => this.wake());
  }

  get pid(): number {
    return this.proc.pid;
  }
  get startedAt(): number {
    return this.proc.startedAt;
  }
  get dead(): boolean {
    return this.proc.dead;
  }
  describeExit(): string {
    return this.proc.describeExit("pyright");
  }

  private onOutput(chunk: string): void {
    const { reports, rest } = splitReports(this.buffer + chunk);
    this.buffer = rest.slice(-1_000_000);
    for (const text of reports) {
      let summary: { errorCount?: number; warningCount?: number; timeInSec?: number } | undefined;
      try {
        summary = (JSON.parse(text) as { summary?: typeof summary }).summary;
      } catch {
        continue;
      }
      const { signature, newestMtimeMs } = sourceFingerprint(this.watchDirs);
      const analysisStart = Date.now() - (summary?.timeInSec ?? 0) * 1000 - 100;
      this.latest = {
        text,
        signature: newestMtimeMs >= analysisStart ? undefined : signature,
        rawSignature: signature,
        analysisMs: (summary?.timeInSec ?? 0) * 1000,
        errors: summary?.errorCount ?? 0,
        warnings: summary?.warningCount ?? 0,
      };
    }
    if (reports.length) this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private next(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /**
   * The report that covers the files as they are now: undefined when none came within the time
   * (`firstMs` for a fresh process's first analysis, the settle time after a change).
   */
  async current(firstMs: number): Promise<Report | undefined> {
    this.requests++;
    const deadline = Date.now() + (this.latest ? SETTLE_MS + 2 * this.latest.analysisMs : firstMs);
    for (;;) {
      if (this.proc.dead) return undefined;
      const now = sourceFingerprint(this.watchDirs).signature;
      const latest = this.latest;
      if (latest && latest.signature === now) return latest;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      // Written while it was analysed: pyright re-analyses soon if it saw a later change; else it is current.
      if (latest && latest.signature === undefined && latest.rawSignature === now) {
        if (!(await this.next(Math.min(left, QUIET_MS)))) return latest;
        continue;
      }
      await this.next(left);
    }
  }

  async stop(): Promise<void> {
    this.proc.kill();
    await Promise.race([this.proc.exited, new Promise((r) => setTimeout(r, 2000).unref())]);
  }
}

export interface WarmPyrightRequest {
  root: string;
  cwd: string;
  args: string[];
  config?: string;
  command: string;
  /** Folders whose Python files the check covers (fingerprinted to know when a report is current). */
  sourceDirs: string[];
}

export type WarmPyrightOutcome =
  { kind: "warm"; report: string; returncode: number; note: string } | { kind: "cold"; note: string };

/**
 * The watch-mode answer for this check, or a note saying why pyright runs cold. A process that gives
 * no report in time is replaced (the next call starts a new one).
 */
export async function warmPyright(ctx: ToolContext, req: WarmPyrightRequest): Promise<WarmPyrightOutcome> {
  const daemons = warmDaemons(ctx);
  const key = ["pyright", req.root, req.cwd, ...req.args].join("\0");
  const watched = [path.join(req.cwd, "pyrightconfig.json"), path.join(req.cwd, "pyproject.toml")];
  if (req.config && !watched.includes(req.config)) watched.push(req.config);
  const strict = req.args.includes("--warnings");
  const { daemon, fresh, restartedBecause } = daemons.acquire(
    key,
    fileSignature(watched),
    () => new PyrightWatcher(req.root, req.cwd, req.args, req.sourceDirs),
  );
  try {
    const report = await daemon.current(ctx.config.timeout * 1000);
    if (!report) {
      const why = daemon.dead ? daemon.describeExit() : "no report for the current files arrived in time";
      daemons.drop(key);
      return {
        kind: "cold",
        note: `the pyright watch process could not be used (${why.slice(0, 300)}): pyright ran cold`,
      };
    }
    const returncode = report.errors > 0 || (strict && report.warnings > 0) ? 1 : 0;
    const note = fresh
      ? `pyright watch process started, pid ${daemon.pid}${restartedBecause ? `, replacing the previous one: ${restartedBecause}` : ""}; this first check was cold`
      : `warm pyright watch process pid ${daemon.pid}, request ${daemon.requests}`;
    return { kind: "warm", report: report.text, returncode, note };
  } finally {
    daemons.release(key, daemon);
  }
}
