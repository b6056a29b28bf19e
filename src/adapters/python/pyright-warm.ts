/**
 * pyright kept warm as its language server (`pyright-langserver --stdio`), one process per (project
 * root, working directory, configuration, interpreter). Chosen over its watch mode on measurement
 * (bench/python-types.bench.mjs): the watch mode waits about a second after a change before it starts,
 * and re-prints the whole report; the language server is told exactly which files changed and is asked
 * for each file's diagnostics (LSP pull diagnostics), so a call ends the moment the last file is
 * known, and files whose diagnostics did not change cost one "unchanged" answer.
 *
 * A call: walk the project's Python files; send the language server the ones whose size, mtime or
 * inode changed (`workspace/didChangeWatchedFiles`: pyright marks them and their importers dirty);
 * pull every file's diagnostics (`textDocument/diagnostic` with the previous result id, so a file
 * pyright need not re-check answers "unchanged"); rebuild the CLI's `--outputjson` report from them.
 * A file added or removed replaces the process (pyright re-lists its files on start). With pull
 * diagnostics on, pyright does no background analysis: it checks what it is asked for, when asked.
 * A call that finds no fitting process runs the CLI cold and starts one after answering (`prime`).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import type { MessageConnection } from "vscode-jsonrpc/node";
import type { ToolContext } from "../../engine/tool.js";
import { readOnlySandbox } from "../warm-sandbox.js";
import { ToolError } from "../../errors.js";
import { DaemonProcess } from "../../exec/warm-daemons.js";
import { QueuedDaemon } from "./queued-daemon.js";
import type { SandboxRun } from "../../exec/sandbox/launch.js";
import { fileSignature } from "../../exec/warm-worker.js";
import { warmDaemons } from "./mypy-warm.js";
import {
  MAX_PYTHON_FILES,
  pythonFileStates,
  reportFromLsp,
  treeChanges,
  type LspDiagnostic,
} from "./pyright-lsp-report.js";
import { codePath } from "../../package-root.js";

const require = createRequire(import.meta.url);
const EXIT_WITH_PARENT = pathToFileURL(codePath("adapters", "python", "exit-with-parent.js")).href;
type Jsonrpc = typeof import("vscode-jsonrpc/node");
let jsonrpc: Jsonrpc | undefined;
/** Loaded with the first language server (about 40 ms of every cold start otherwise); it is CommonJS. */
const loadJsonrpc = () => (jsonrpc ??= require("vscode-jsonrpc/node") as Jsonrpc);
const LANGSERVER = path.join(path.dirname(require.resolve("pyright")), "langserver.index.js");
/** pyright logs this once its file list is built; pulls before it see no files. */
const FILES_FOUND = /^(Found \d+ source files?|No source files found)/;

interface PullResult {
  kind: "full" | "unchanged";
  resultId?: string;
  items?: LspDiagnostic[];
}

export interface LangserverCheck {
  report: string;
  errors: number;
  warnings: number;
  /** Files pyright re-checked for this call (the rest answered "unchanged"). */
  rechecked: number;
  files: number;
}

export class PyrightLangserver extends QueuedDaemon {
  readonly tool = "pyright";
  protected readonly proc: DaemonProcess;
  private readonly connection: MessageConnection;
  private readonly ready: Promise<void>;
  private readonly initialized: Promise<unknown>;
  /** The tree as pyright was last told about it; undefined before the first check. */
  private known: Map<string, string> | undefined;
  private readonly results = new Map<string, { resultId?: string; items: LspDiagnostic[] }>();

  constructor(
    readonly root: string,
    cwd: string,
    pythonPath: string | undefined,
    private readonly version: string,
    sandbox?: SandboxRun,
  ) {
    super();
    this.proc = new DaemonProcess({
      sandbox,
      program: process.execPath,
      args: ["--import", EXIT_WITH_PARENT, LANGSERVER, "--stdio"],
      cwd,
      stdinPipe: true,
      stdoutPipe: true,
    });
    const { stdout, stdin } = this.proc.child;
    if (!stdout || !stdin) throw new Error("pyright's language server has no pipes");
    const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = loadJsonrpc();
    this.connection = createMessageConnection(
      new StreamMessageReader(stdout),
      new StreamMessageWriter(stdin),
    );
    let markReady: () => void = () => undefined;
    this.ready = new Promise<void>((resolve) => (markReady = resolve));
    const settings = { diagnosticMode: "workspace" };
    this.connection.onRequest("workspace/configuration", (params: { items: { section?: string }[] }) =>
      params.items.map((item) =>
        item.section === "python.analysis"
          ? settings
          : item.section === "python"
            ? { analysis: settings, ...(pythonPath ? { pythonPath } : {}) }
            : null,
      ),
    );
    // Watchers and pull diagnostics are registered dynamically; the server does the watching itself.
    this.connection.onRequest("client/registerCapability", () => null);
    this.connection.onRequest("client/unregisterCapability", () => null);
    this.connection.onNotification("window/logMessage", (m: { message?: string }) => {
      if (FILES_FOUND.test(m.message ?? "")) markReady();
    });
    this.connection.onError(() => this.proc.kill());
    stdin.on("error", () => this.proc.kill());
    this.connection.listen();
    const uri = pathToFileURL(cwd).href;
    this.initialized = this.connection
      .sendRequest("initialize", {
        // No pid: the language server would watch it and exit, and in its sandbox's pid namespace the
        // server's pid is not there. It exits with its stdin instead (exit-with-parent.ts).
        processId: null,
        locale: "en",
        rootUri: uri,
        workspaceFolders: [{ uri, name: path.basename(cwd) }],
        capabilities: {
          workspace: { configuration: true, didChangeWatchedFiles: { dynamicRegistration: true } },
          textDocument: { diagnostic: { dynamicRegistration: true } },
        },
      })
      .then(() => this.connection.sendNotification("initialized", {}));
    this.initialized.catch(() => this.proc.kill());
  }

  describeExit(): string {
    return this.proc.describeExit("pyright language server");
  }

  /** Whether the Python files are the ones this process listed (none added or removed since). */
  sameFiles(now: ReadonlyMap<string, string>): boolean {
    if (!this.known) return true;
    const { added, removed } = treeChanges(this.known, now);
    return added.length === 0 && removed.length === 0;
  }

  /** The project's diagnostics as they are now; one check at a time per process. */
  check(now: Map<string, string>): Promise<LangserverCheck> {
    this.requests++;
    return this.inTurn(() => this.checkNow(now));
  }

  private async checkNow(now: Map<string, string>): Promise<LangserverCheck> {
    const started = performance.now();
    // A process that ends leaves its requests unanswered: every wait is raced with its exit.
    const ended = this.proc.exited.then(() => {
      throw new Error(this.describeExit());
    });
    ended.catch(() => undefined);
    await Promise.race([this.initialized, ended]);
    await Promise.race([this.ready, ended]);
    const changed = this.known ? treeChanges(this.known, now).changed : [];
    if (changed.length)
      await this.connection.sendNotification("workspace/didChangeWatchedFiles", {
        changes: changed.map((f) => ({ uri: pathToFileURL(f).href, type: 2 })),
      });
    this.known = now;
    let rechecked = 0;
    const pulls = Promise.all(
      [...now.keys()].map(async (file) => {
        const uri = pathToFileURL(file).href;
        const previous = this.results.get(file);
        const r = await this.connection.sendRequest<PullResult>("textDocument/diagnostic", {
          textDocument: { uri },
          previousResultId: previous?.resultId,
        });
        if (r.kind === "full") {
          rechecked++;
          this.results.set(file, { resultId: r.resultId, items: r.items ?? [] });
        } else if (!previous) this.results.set(file, { resultId: r.resultId, items: [] });
      }),
    );
    await Promise.race([pulls, ended]);
    for (const file of this.results.keys()) if (!now.has(file)) this.results.delete(file);
    const byFile = new Map([...this.results].map(([file, r]) => [file, r.items]));
    const report = reportFromLsp(byFile, this.version, performance.now() - started);
    const { summary } = JSON.parse(report) as { summary: { errorCount: number; warningCount: number } };
    return {
      report,
      errors: summary.errorCount,
      warnings: summary.warningCount,
      rechecked,
      files: now.size,
    };
  }

  async stop(): Promise<void> {
    this.connection.dispose();
    this.proc.kill();
    await Promise.race([this.proc.exited, new Promise((r) => setTimeout(r, 2000).unref())]);
  }
}

export interface WarmPyrightRequest {
  root: string;
  cwd: string;
  /** The files the check covers: all of the project's (empty), or these files and folders. */
  targets: readonly string[];
  /** The config file the CLI would be given, when one was found or named. */
  config?: string;
  pythonPath?: string;
  strict: boolean;
  version: string;
  /** Folders whose Python files the check covers. */
  sourceDirs: string[];
}

export type WarmPyrightOutcome =
  | { kind: "warm"; report: string; returncode: number; note: string }
  /** `prime`, when given, is called once the cold run has answered: it starts the language server. */
  | { kind: "cold"; note: string; prime?: () => void };

/** Why the language server cannot give what the CLI would for this request, or undefined when it can. */
export function langserverUnsuitable(
  req: Pick<WarmPyrightRequest, "cwd" | "targets" | "config">,
): string | undefined {
  // The language server finds its config in its workspace folder, pyrightconfig.json first.
  if (req.config) {
    const expected = [path.join(req.cwd, "pyrightconfig.json"), path.join(req.cwd, "pyproject.toml")];
    if (path.dirname(req.config) !== req.cwd || !expected.includes(req.config))
      return `the config ${req.config} is not the one pyright's language server would find in ${req.cwd}`;
    if (req.targets.length)
      return "the path is outside the config's include list, which the language server follows";
  }
  return undefined;
}

const within = (file: string, targets: readonly string[]) =>
  targets.some((t) => file === t || file.startsWith(t.endsWith(path.sep) ? t : t + path.sep));

/**
 * The language server's answer for this check, or a note saying why pyright runs cold. When no live
 * language server fits (none yet, it ended, its config changed, a Python file was added or removed),
 * this call runs the CLI cold, which is as fast as a first check gets, and `prime` starts the new
 * process after it has answered: it checks every file once in the background, so the next call is warm.
 * A process that runs past the time limit during a call is killed with its process group (a `timeout`
 * error); priming may take the longer of the time limit and the idle TTL.
 */
export async function warmPyright(ctx: ToolContext, req: WarmPyrightRequest): Promise<WarmPyrightOutcome> {
  if (!ctx.config.warmCheckers) return { kind: "cold", note: "--warm-checkers false: pyright ran cold" };
  const unsuitable = langserverUnsuitable(req);
  if (unsuitable) return { kind: "cold", note: `pyright ran cold: ${unsuitable}` };
  const daemons = warmDaemons(ctx);
  const key = ["pyright", req.root, req.cwd, req.pythonPath ?? ""].join("\0");
  const watched = [path.join(req.cwd, "pyrightconfig.json"), path.join(req.cwd, "pyproject.toml")];
  const signature = fileSignature(watched);
  const dirs = req.sourceDirs.length ? req.sourceDirs : [req.cwd];
  const now = pythonFileStates(dirs);
  if (now.size >= MAX_PYTHON_FILES)
    return {
      kind: "cold",
      note: `pyright ran cold: more than ${MAX_PYTHON_FILES} Python files to keep track of`,
    };
  const create = () =>
    new PyrightLangserver(req.root, req.cwd, req.pythonPath, req.version, readOnlySandbox(ctx));
  let replace = daemons.wouldReplace(key, signature);
  let held: PyrightLangserver | undefined;
  if (!replace) {
    held = daemons.acquire(key, signature, create).daemon;
    if (!held.sameFiles(now)) {
      daemons.release(key, held);
      held = undefined;
      replace = "a Python file was added or removed, and pyright lists its files when it starts";
    }
  }
  const primeAfterCold = (reason: string | undefined): WarmPyrightOutcome => {
    const prime = () => {
      daemons.drop(key);
      const { daemon } = daemons.acquire(key, signature, create);
      const limit = setTimeout(
        () => daemons.drop(key),
        Math.max(ctx.config.timeout, ctx.config.workerIdleTtl) * 1000,
      );
      limit.unref();
      daemon
        .check(pythonFileStates(dirs))
        .catch(() => daemons.drop(key))
        .finally(() => {
          clearTimeout(limit);
          daemons.release(key, daemon);
        });
    };
    const why = reason ? `, replacing the previous one: ${reason}` : "";
    return {
      kind: "cold",
      note: `pyright ran cold; its language server starts after this check, for the next ones${why}`,
      prime,
    };
  };
  if (!held) return primeAfterCold(replace === "none is running" ? undefined : replace);
  const daemon = held;
  const limitMs = ctx.config.timeout * 1000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      daemon.check(now),
      new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), limitMs))),
    ]);
    if (result === "timeout") {
      daemons.drop(key);
      throw new ToolError(
        "timeout",
        `pyright's language server (pid ${daemon.pid}) exceeded the ${ctx.config.timeout} s timeout and was killed with its process group`,
      );
    }
    let report = result.report;
    let errors = result.errors;
    let warnings = result.warnings;
    if (req.targets.length) {
      const parsed = JSON.parse(report) as { generalDiagnostics: { file: string; severity: string }[] };
      parsed.generalDiagnostics = parsed.generalDiagnostics.filter((d) => within(d.file, req.targets));
      errors = parsed.generalDiagnostics.filter((d) => d.severity === "error").length;
      warnings = parsed.generalDiagnostics.filter((d) => d.severity === "warning").length;
      report = JSON.stringify(parsed);
    }
    const returncode = errors > 0 || (req.strict && warnings > 0) ? 1 : 0;
    const note = `warm pyright language server pid ${daemon.pid}, request ${daemon.requests}: ${result.rechecked} of ${result.files} files re-checked`;
    return { kind: "warm", report, returncode, note };
  } catch (err) {
    if (err instanceof ToolError) throw err;
    // It ended (killed from outside, crashed) while this call used it: answer cold, start another.
    const why = daemon.dead
      ? `the previous one (pid ${daemon.pid}) had ended`
      : `it failed: ${(err instanceof Error ? err.message : String(err)).slice(0, 300)}`;
    return primeAfterCold(why);
  } finally {
    clearTimeout(timer);
    daemons.release(key, daemon);
  }
}
