/** The server's configuration as the rest of the code reads it (src/config/load.ts builds it). */
import type { LogLevel } from "../log.js";
import type { SandboxMode } from "../exec/sandbox/launch.js";

export type Mode = "stdio" | "standalone" | "client";

export interface Config {
  mode: Mode;
  port: number;
  host: string;
  logLevel: LogLevel;
  /** Seconds per tool run. */
  timeout: number;
  /** Allowed roots as configured (before canonicalization). */
  allowedPaths: string[];
  auditLog: string;
  auditLogMaxBytes: number;
  rateLimit: boolean;
  /** Keep mypy and pyright warm (daemon, language server); off for one-shot runs such as `check`. */
  warmCheckers: boolean;
  maxOutputBytes: number;
  maxConcurrent: number;
  authToken: string | undefined;
  /** Largest accepted HTTP request body, in bytes. */
  maxBodyBytes: number;
  /** Hard cap on one tool result (its JSON), in bytes: nothing a tool returns goes past it. */
  maxResultBytes: number;
  /** Default `max_result_tokens` of tools that list findings (estimated as characters / 4). */
  maxResultTokens: number;
  /** Seconds an HTTP client has to send a whole request (headers within at most 10 s of it). */
  httpRequestTimeout: number;
  /** Most HTTP connections open at once; more are refused. */
  maxConnections: number;
  /** Seconds an idle warm worker (ESLint, TypeScript) is kept before it exits. */
  workerIdleTtl: number;
  /** Most warm workers alive at once; the least recently used is ended past this. */
  maxWorkers: number;
  /** Heap cap of one warm worker, in MiB. */
  workerMaxHeapMb: number;
  /** Largest file (or inline source) the embedded ruff accepts, in bytes. */
  embeddedRuffMaxFileBytes: number;
  /** Toolsets exposed over MCP. */
  toolsets: string[];
  /** Snapshots larger than this skip the snapshot (and auto-rollback) for that transaction. */
  snapshotMaxBytes: number;
  /** The per-project transaction audit (.mcp-cache/audit.jsonl) rotates beyond this. */
  cacheAuditMaxBytes: number;
  /** check_markdown_links may request loopback, link-local and private addresses. */
  allowPrivateLinks: boolean;
  /** Retain every run of the tools that report findings as a trace (.mcp-cache/lint-runs/). */
  retainTraces: RetainMode;
  /** Most traces kept per project; the oldest are dropped beyond. */
  traceMaxCount: number;
  /** Most bytes of traces kept per project; the oldest are dropped beyond. */
  traceMaxBytes: number;
  /** Largest SARIF log (argument or trace) the sarif_* tools read. */
  sarifMaxBytes: number;
  /** remediation_advice's provider (claude, codex, gemini); undefined: local advice only. */
  adviceProvider: string | undefined;
  /** The approved absolute path of the provider's executable (required with a provider). */
  adviceProviderPath: string | undefined;
  /** The operator lets the provider reach the network (every hosted provider needs it). */
  adviceAllowNetwork: boolean;
  /** Seconds a provider run may take before its process group is killed. */
  adviceTimeout: number;
  /** Largest prompt sent to a provider, in bytes (it travels as one argv entry). */
  adviceMaxInputBytes: number;
  /** Largest provider reply read, in bytes; a longer one fails the call. */
  adviceMaxOutputBytes: number;
  /** The operator lets a project's policy file loosen shipped policies. */
  policyAllowLoosening: boolean;
  /** Reuse results of unchanged files and projects (see docs/result-cache.md). */
  resultCache: boolean;
  /** A long-lived server learns the tree's changes from inotify instead of a stat of every file a call. */
  treeWatch: boolean;
  /** Folder of the local result cache (default: the per-user cache folder). */
  resultCacheDir: string;
  /** The local result cache is kept under this many MiB (least recently used entries go). */
  resultCacheMaxMb: number;
  /** Base URL of a Turborepo remote cache server shared by a team; undefined: local only. */
  remoteCacheUrl: string | undefined;
  remoteCacheToken: string | undefined;
  remoteCacheTeam: string | undefined;
  /** The team's secret: it names and signs the team's entries (HMAC-SHA256). */
  remoteCacheSecret: string | undefined;
  /** Milliseconds a remote cache request may take before the local cache answers alone. */
  remoteCacheTimeoutMs: number;
  /** Read from the remote cache but never write to it. */
  remoteCacheReadOnly: boolean;
  /** Every external process runs in bubblewrap (auto: where it works; required: or not at all; off). */
  sandbox: SandboxMode;
  /** run_tests keeps the network inside its sandbox (test suites talk to local services). */
  testsNetwork: boolean;
  /** CPU seconds one sandboxed tool process may use (RLIMIT_CPU through prlimit); 0: no limit. */
  toolMaxCpuSeconds: number;
  /** Memory one sandboxed process may allocate, MiB (RLIMIT_DATA through prlimit); 0: no limit. */
  toolMaxMemoryMb: number;
  /**
   * `check` only (no server flag): folders Markdown link targets may also be read in, read-only, beyond the
   * allowed paths (the git work tree around each path checked).
   */
  linkReadRoots?: string[];
  /** `check --shard i/n` only (no server flag): per-file tools run on this shard's files. */
  shard?: { index: number; count: number };
  /**
   * `check` without `--sarif` only (no server flag): the SARIF logs of its calls are read for their findings,
   * never written, so fixes that cost a tool extra work (RuboCop's correction edits) are left out.
   */
  sarifWithoutFixes?: boolean;
  /** Working directory relative paths resolve against. */
  cwd: string;
  /** Client mode: the tool to call and its arguments (a JSON object). */
  clientTool: string | undefined;
  clientArguments: string | undefined;
}

/**
 * --retain-traces: `all` (true) retains every run, `per-call` offers `retain` on every finding tool, `off`
 * (false) only on the tools that write anyway; the read-only tools then stay read-only (mcp/tools/sarif-output.ts).
 */
export type RetainMode = "off" | "per-call" | "all";

/** The toolsets --toolsets can name. */
export const KNOWN_TOOLSETS = ["core", "policy", "eslint-typescript", "rubocop"] as const;

/** Agent CLIs remediation_advice can ask (src/policy/advice/providers.ts has their adapters). */
export const ADVICE_PROVIDERS = ["claude", "codex", "gemini"] as const;
