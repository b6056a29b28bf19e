/**
 * Server configuration: every flag, its environment variable, default and range, validated once at start.
 * A bad value throws ConfigError naming the flag, and the CLI stops with that message.
 */
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { LOG_LEVELS, type LogLevel } from "./log.js";
import { defaultResultCacheDir } from "./cache/location.js";
import { SANDBOX_MODES, type SandboxMode } from "./exec/sandbox/launch.js";

/** `client` calls a running HTTP server's tool from the command line (seed 000). */
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

export class ConfigError extends Error {
  constructor(
    readonly flag: string,
    message: string,
  ) {
    super(`${flag}: ${message}`);
    this.name = "ConfigError";
  }
}

type Parse<T> = (raw: string, flag: string) => T;

interface OptionSpec<K extends keyof Config> {
  key: K;
  flag: string;
  env?: string[];
  /** Default, computed lazily so it can depend on the environment. */
  fallback: (cwd: string) => Config[K];
  parse: Parse<Config[K]>;
  help: string;
}

const int =
  (min: number, max: number): Parse<number> =>
  (raw, flag) => {
    if (!/^\d+$/.test(raw.trim()))
      throw new ConfigError(flag, `expected an integer in ${min}-${max}, got "${raw}"`);
    const n = Number(raw.trim());
    if (n < min || n > max) throw new ConfigError(flag, `must be in ${min}-${max}, got ${n}`);
    return n;
  };

const bool: Parse<boolean> = (raw, flag) => {
  const v = raw.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(v)) return true;
  if (["false", "0", "no", "off"].includes(v)) return false;
  throw new ConfigError(flag, `expected true or false, got "${raw}"`);
};

/**
 * --retain-traces: `all` (true) retains every run, `per-call` offers `retain` on every finding tool, `off`
 * (false) only on the tools that write anyway; the read-only tools then stay read-only (mcp/tools/sarif-output.ts).
 */
export type RetainMode = "off" | "per-call" | "all";

const retainMode: Parse<RetainMode> = (raw, flag) => {
  if (raw.trim().toLowerCase() === "per-call") return "per-call";
  try {
    return bool(raw, flag) ? "all" : "off";
  } catch {
    throw new ConfigError(flag, `expected true, false or per-call, got "${raw}"`);
  }
};

const oneOf =
  <T extends string>(values: readonly T[]): Parse<T> =>
  (raw, flag) => {
    if ((values as readonly string[]).includes(raw)) return raw as T;
    throw new ConfigError(flag, `expected one of ${values.join(", ")}, got "${raw}"`);
  };

const nonEmpty: Parse<string> = (raw, flag) => {
  if (raw.trim() === "") throw new ConfigError(flag, "must not be empty");
  return raw;
};

const list =
  (separator: RegExp): Parse<string[]> =>
  (raw, flag) => {
    const items = raw
      .split(separator)
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0) throw new ConfigError(flag, "must name at least one entry");
    return items;
  };

// `server` is seed 000's name for the HTTP server, `http` ours; both mean standalone.
const MODES = ["stdio", "standalone", "http", "server", "client"] as const;
const parseMode: Parse<Mode> = (raw, flag) => {
  const m = oneOf(MODES)(raw, flag);
  return m === "http" || m === "server" ? "standalone" : m;
};

export const KNOWN_TOOLSETS = ["core", "policy", "eslint-typescript", "rubocop"] as const;
const parseToolsets: Parse<string[]> = (raw, flag) => {
  const sets = list(/,/)(raw, flag);
  for (const s of sets)
    if (!(KNOWN_TOOLSETS as readonly string[]).includes(s))
      throw new ConfigError(flag, `unknown toolset "${s}"; known: ${KNOWN_TOOLSETS.join(", ")}`);
  return [...new Set(sets)];
};

/** Agent CLIs remediation_advice can ask (src/policy/advice/providers.ts has their adapters). */
export const ADVICE_PROVIDERS = ["claude", "codex", "gemini"] as const;

const absolutePath: Parse<string> = (raw, flag) => {
  if (!path.isAbsolute(raw)) throw new ConfigError(flag, `must be an absolute path, got "${raw}"`);
  return path.normalize(raw);
};

const httpUrl: Parse<string> = (raw, flag) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(flag, `not a URL: "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError(flag, `must be an http:// or https:// URL, got "${raw}"`);
  if (url.username || url.password)
    throw new ConfigError(flag, "put the token in --remote-cache-token, not the URL");
  return url.toString().replace(/\/+$/, "");
};

function defaultAuditLog(): string {
  const state = process.env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(state, "mcp-code-quality", "audit.log");
}

/** Every option of the server, in the order `--help` lists them. */
export const OPTIONS: OptionSpec<keyof Config>[] = [
  opt({
    key: "mode",
    flag: "--mode",
    fallback: () => "standalone",
    parse: parseMode,
    help: "stdio, standalone (HTTP; aliases http, server), or client (call a running HTTP server's tool)",
  }),
  opt({
    key: "port",
    flag: "--port",
    env: ["MCP_CODE_QUALITY_PORT"],
    fallback: () => 8000,
    parse: int(0, 65535),
    help: "HTTP port (0 picks a free one)",
  }),
  opt({
    key: "host",
    flag: "--host",
    env: ["MCP_CODE_QUALITY_HOST"],
    fallback: () => "127.0.0.1",
    parse: nonEmpty,
    help: "HTTP bind address; a non-loopback bind requires --auth-token",
  }),
  opt({
    key: "logLevel",
    flag: "--log-level",
    env: ["MCP_CODE_QUALITY_LOG_LEVEL", "ESLINT_MCP_LOG_LEVEL"],
    fallback: () => "info",
    parse: oneOf(LOG_LEVELS),
    help: "debug, info, warn, error, silent (stderr only)",
  }),
  opt({
    key: "timeout",
    flag: "--timeout",
    env: ["MCP_CODE_QUALITY_TIMEOUT"],
    fallback: () => 600,
    parse: int(1, 86400),
    help: "seconds per tool run (1-86400)",
  }),
  opt({
    key: "allowedPaths",
    flag: "--allowed-paths",
    env: ["MCP_CODE_QUALITY_ALLOWED_PATHS"],
    fallback: (cwd) => [cwd],
    parse: list(/,/),
    help: "comma-separated allowed roots (default: the working directory)",
  }),
  opt({
    key: "auditLog",
    flag: "--audit-log",
    env: ["MCP_CODE_QUALITY_AUDIT_LOG"],
    fallback: defaultAuditLog,
    parse: nonEmpty,
    help: "JSON-lines audit log file",
  }),
  opt({
    key: "auditLogMaxBytes",
    flag: "--audit-log-max-bytes",
    env: ["MCP_CODE_QUALITY_AUDIT_LOG_MAX_BYTES"],
    fallback: () => 10_485_760,
    parse: int(4096, 2 ** 40),
    help: "rotate the audit log to <file>.1 beyond this (min 4096)",
  }),
  opt({
    key: "rateLimit",
    flag: "--rate-limit",
    env: ["MCP_CODE_QUALITY_RATE_LIMIT"],
    fallback: () => true,
    parse: bool,
    help: "per-tool rate limits (true/false)",
  }),
  opt({
    key: "maxOutputBytes",
    flag: "--max-output-bytes",
    env: ["MCP_CODE_QUALITY_MAX_OUTPUT_BYTES"],
    fallback: () => 100_000,
    parse: int(1024, 64 * 1024 * 1024),
    help: "bytes kept per output stream (1 KiB - 64 MiB)",
  }),
  opt({
    key: "maxConcurrent",
    flag: "--max-concurrent",
    env: ["MCP_CODE_QUALITY_MAX_CONCURRENT"],
    fallback: () => 4,
    parse: int(1, 64),
    help: "simultaneous tool runs (1-64)",
  }),
  opt({
    key: "authToken",
    flag: "--auth-token",
    env: ["MCP_CODE_QUALITY_AUTH_TOKEN"],
    fallback: () => undefined,
    parse: nonEmpty,
    help: "bearer token required by the HTTP server",
  }),
  opt({
    key: "maxBodyBytes",
    flag: "--max-body-bytes",
    env: ["MCP_CODE_QUALITY_MAX_BODY_BYTES"],
    fallback: () => 4 * 1024 * 1024,
    parse: int(1024, 256 * 1024 * 1024),
    help: "largest HTTP request body (1 KiB - 256 MiB)",
  }),
  opt({
    key: "maxResultBytes",
    flag: "--max-result-bytes",
    env: ["MCP_CODE_QUALITY_MAX_RESULT_BYTES"],
    fallback: () => 1024 * 1024,
    // A drop-in result carries the JSON twice (text and structuredContent): 3 MiB stays under 10 MiB clients.
    parse: int(16 * 1024, 3 * 1024 * 1024),
    help: "hard cap on one tool result's JSON (16 KiB - 3 MiB)",
  }),
  opt({
    key: "maxResultTokens",
    flag: "--max-result-tokens",
    env: ["MCP_CODE_QUALITY_MAX_RESULT_TOKENS"],
    fallback: () => 8000,
    parse: int(500, 250_000),
    help: "default max_result_tokens of tools that list findings (chars / 4; 500 - 250000)",
  }),
  opt({
    key: "httpRequestTimeout",
    flag: "--http-request-timeout",
    env: ["MCP_CODE_QUALITY_HTTP_REQUEST_TIMEOUT"],
    fallback: () => 30,
    parse: int(1, 3600),
    help: "seconds an HTTP client has to send its request (1-3600)",
  }),
  opt({
    key: "maxConnections",
    flag: "--max-connections",
    env: ["MCP_CODE_QUALITY_MAX_CONNECTIONS"],
    fallback: () => 128,
    parse: int(1, 10000),
    help: "HTTP connections open at once (1-10000)",
  }),
  opt({
    key: "warmCheckers",
    flag: "--warm-checkers",
    env: ["MCP_CODE_QUALITY_WARM_CHECKERS"],
    fallback: () => true,
    parse: bool,
    help: "keep mypy (dmypy) and pyright (its language server) warm between calls (true/false)",
  }),
  opt({
    key: "workerIdleTtl",
    flag: "--worker-idle-ttl",
    env: ["MCP_CODE_QUALITY_WORKER_IDLE_TTL"],
    fallback: () => 600,
    parse: int(1, 86400),
    help: "seconds an idle ESLint/TypeScript worker stays warm",
  }),
  opt({
    key: "maxWorkers",
    flag: "--max-workers",
    env: ["MCP_CODE_QUALITY_MAX_WORKERS"],
    fallback: () => 8,
    parse: int(1, 64),
    help: "warm workers alive at once (LRU beyond)",
  }),
  opt({
    key: "workerMaxHeapMb",
    flag: "--worker-max-heap-mb",
    env: ["MCP_CODE_QUALITY_WORKER_MAX_HEAP_MB"],
    fallback: () => 2048,
    parse: int(64, 16384),
    help: "heap cap of one warm worker, MiB",
  }),
  opt({
    key: "embeddedRuffMaxFileBytes",
    flag: "--embedded-ruff-max-file-bytes",
    env: ["MCP_CODE_QUALITY_EMBEDDED_RUFF_MAX_FILE_BYTES"],
    fallback: () => 4 * 1024 * 1024,
    parse: int(1024, 1024 * 1024 * 1024),
    help: "largest file the embedded ruff takes (1 KiB - 1 GiB); larger ones are refused",
  }),
  opt({
    key: "toolsets",
    flag: "--toolsets",
    env: ["MCP_CODE_QUALITY_TOOLSETS"],
    fallback: () => ["core", "policy"],
    parse: parseToolsets,
    help: `comma-separated toolsets: ${KNOWN_TOOLSETS.join(", ")}`,
  }),
  opt({
    key: "snapshotMaxBytes",
    flag: "--snapshot-max-bytes",
    env: ["MCP_CODE_QUALITY_SNAPSHOT_MAX_BYTES", "ESLINT_MCP_SNAPSHOT_MAX_BYTES"],
    fallback: () => 50 * 1024 * 1024,
    parse: int(0, 2 ** 40),
    help: "skip the pre-fix snapshot beyond this many bytes",
  }),
  opt({
    key: "cacheAuditMaxBytes",
    flag: "--cache-audit-max-bytes",
    env: ["MCP_CODE_QUALITY_CACHE_AUDIT_MAX_BYTES", "ESLINT_MCP_AUDIT_MAX_BYTES"],
    fallback: () => 10 * 1024 * 1024,
    parse: int(4096, 2 ** 40),
    help: "rotate .mcp-cache/audit.jsonl beyond this",
  }),
  opt({
    key: "allowPrivateLinks",
    flag: "--allow-private-links",
    env: ["MCP_CODE_QUALITY_ALLOW_PRIVATE_LINKS"],
    fallback: () => false,
    parse: bool,
    help: "let link checks request loopback, link-local and private addresses (true/false)",
  }),
  opt({
    key: "retainTraces",
    flag: "--retain-traces",
    env: ["MCP_CODE_QUALITY_RETAIN_TRACES"],
    fallback: () => "off" as const,
    parse: retainMode,
    help: "keep runs of the finding tools as traces in .mcp-cache/lint-runs/: true (every run), per-call (`retain` per call), false (only lint_fix/fix_all with `retain`)",
  }),
  opt({
    key: "traceMaxCount",
    flag: "--trace-max-count",
    env: ["MCP_CODE_QUALITY_TRACE_MAX_COUNT"],
    fallback: () => 50,
    parse: int(1, 100_000),
    help: "traces kept per project, oldest dropped first (1-100000)",
  }),
  opt({
    key: "traceMaxBytes",
    flag: "--trace-max-bytes",
    env: ["MCP_CODE_QUALITY_TRACE_MAX_BYTES"],
    fallback: () => 64 * 1024 * 1024,
    parse: int(4096, 2 ** 40),
    help: "bytes of traces kept per project, oldest dropped first (min 4096)",
  }),
  opt({
    key: "sarifMaxBytes",
    flag: "--sarif-max-bytes",
    env: ["MCP_CODE_QUALITY_SARIF_MAX_BYTES"],
    fallback: () => 16 * 1024 * 1024,
    parse: int(1024, 1024 * 1024 * 1024),
    help: "largest SARIF log the sarif_* tools read (1 KiB - 1 GiB)",
  }),
  opt({
    key: "adviceProvider",
    flag: "--advice-provider",
    env: ["MCP_CODE_QUALITY_ADVICE_PROVIDER"],
    fallback: () => undefined,
    parse: oneOf(ADVICE_PROVIDERS),
    help: `remediation_advice provider: ${ADVICE_PROVIDERS.join(", ")} (default: none, local advice)`,
  }),
  opt({
    key: "adviceProviderPath",
    flag: "--advice-provider-path",
    env: ["MCP_CODE_QUALITY_ADVICE_PROVIDER_PATH"],
    fallback: () => undefined,
    parse: absolutePath,
    help: "approved absolute path of the provider's executable",
  }),
  opt({
    key: "adviceAllowNetwork",
    flag: "--advice-allow-network",
    env: ["MCP_CODE_QUALITY_ADVICE_ALLOW_NETWORK"],
    fallback: () => false,
    parse: bool,
    help: "let the advice provider use the network (true/false)",
  }),
  opt({
    key: "sandbox",
    flag: "--sandbox",
    env: ["MCP_CODE_QUALITY_SANDBOX"],
    fallback: () => "auto" as SandboxMode,
    parse: oneOf(SANDBOX_MODES),
    help: "run every tool in bubblewrap: auto (where it works, else unsandboxed and said so), required, off",
  }),
  opt({
    key: "testsNetwork",
    flag: "--tests-network",
    env: ["MCP_CODE_QUALITY_TESTS_NETWORK"],
    fallback: () => true,
    parse: bool,
    help: "let run_tests reach the network from its sandbox (true/false; a project setting can cut it)",
  }),
  opt({
    key: "toolMaxCpuSeconds",
    flag: "--tool-max-cpu-seconds",
    env: ["MCP_CODE_QUALITY_TOOL_MAX_CPU_SECONDS"],
    fallback: () => 0,
    parse: int(0, 86_400),
    help: "CPU seconds a sandboxed tool run may use (RLIMIT_CPU; not the warm workers, whose CPU adds up over calls); 0: none",
  }),
  opt({
    key: "toolMaxMemoryMb",
    flag: "--tool-max-memory-mb",
    env: ["MCP_CODE_QUALITY_TOOL_MAX_MEMORY_MB"],
    fallback: () => 0,
    parse: int(0, 1_048_576),
    help: "memory a sandboxed process may allocate, MiB (RLIMIT_DATA); 0: none",
  }),
  opt({
    key: "adviceTimeout",
    flag: "--advice-timeout",
    env: ["MCP_CODE_QUALITY_ADVICE_TIMEOUT"],
    fallback: () => 120,
    parse: int(1, 3600),
    help: "seconds per advice provider run (1-3600)",
  }),
  opt({
    key: "adviceMaxInputBytes",
    flag: "--advice-max-input-bytes",
    env: ["MCP_CODE_QUALITY_ADVICE_MAX_INPUT_BYTES"],
    fallback: () => 32_768,
    // One argv entry: Linux caps a single argument at 128 KiB.
    parse: int(1024, 120_000),
    help: "largest advice prompt (1 KiB - 120000 bytes)",
  }),
  opt({
    key: "adviceMaxOutputBytes",
    flag: "--advice-max-output-bytes",
    env: ["MCP_CODE_QUALITY_ADVICE_MAX_OUTPUT_BYTES"],
    fallback: () => 65_536,
    parse: int(1024, 4 * 1024 * 1024),
    help: "largest advice provider reply (1 KiB - 4 MiB)",
  }),
  opt({
    key: "policyAllowLoosening",
    flag: "--policy-allow-loosening",
    env: ["MCP_CODE_QUALITY_POLICY_ALLOW_LOOSENING"],
    fallback: () => false,
    parse: bool,
    help: "let .mcp-code-quality/policy.yaml loosen shipped policies (true/false; operator only)",
  }),
  opt({
    key: "resultCache",
    flag: "--result-cache",
    env: ["MCP_CODE_QUALITY_RESULT_CACHE"],
    fallback: () => true,
    parse: bool,
    help: "reuse results of unchanged files and projects (true/false; docs/result-cache.md)",
  }),
  opt({
    key: "resultCacheDir",
    flag: "--result-cache-dir",
    env: ["MCP_CODE_QUALITY_RESULT_CACHE_DIR"],
    fallback: () => defaultResultCacheDir(),
    parse: absolutePath,
    help: "folder of the result cache (default $XDG_CACHE_HOME/mcp-code-quality/results)",
  }),
  opt({
    key: "resultCacheMaxMb",
    flag: "--result-cache-max-mb",
    env: ["MCP_CODE_QUALITY_RESULT_CACHE_MAX_MB"],
    fallback: () => 512,
    parse: int(1, 1024 * 1024),
    help: "MiB the result cache is kept under, least recently used out (default 512)",
  }),
  opt({
    key: "remoteCacheUrl",
    flag: "--remote-cache-url",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_URL"],
    fallback: () => undefined,
    parse: httpUrl,
    help: "a team's Turborepo remote cache server (e.g. https://cache.example.com); off by default",
  }),
  opt({
    key: "remoteCacheToken",
    flag: "--remote-cache-token",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_TOKEN", "TURBO_TOKEN"],
    fallback: () => undefined,
    parse: nonEmpty,
    help: "bearer token of the remote cache",
  }),
  opt({
    key: "remoteCacheTeam",
    flag: "--remote-cache-team",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_TEAM", "TURBO_TEAM"],
    fallback: () => undefined,
    parse: nonEmpty,
    help: "team id of the remote cache (its teamId)",
  }),
  opt({
    key: "remoteCacheSecret",
    flag: "--remote-cache-secret",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_SECRET", "TURBO_REMOTE_CACHE_SIGNATURE_KEY"],
    fallback: () => undefined,
    parse: nonEmpty,
    help: "the team's secret that names and signs its entries (required with --remote-cache-url)",
  }),
  opt({
    key: "remoteCacheTimeoutMs",
    flag: "--remote-cache-timeout-ms",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_TIMEOUT_MS"],
    fallback: () => 1500,
    parse: int(50, 60_000),
    help: "ms a remote cache request may take before the local cache answers alone (50-60000)",
  }),
  opt({
    key: "remoteCacheReadOnly",
    flag: "--remote-cache-read-only",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_READ_ONLY"],
    fallback: () => false,
    parse: bool,
    help: "read from the remote cache, never write to it (true/false)",
  }),
  opt({
    key: "clientTool",
    flag: "--tool",
    fallback: () => undefined,
    parse: nonEmpty,
    help: "client mode: the tool to call (e.g. lint)",
  }),
  opt({
    key: "clientArguments",
    flag: "--arguments",
    fallback: () => undefined,
    parse: nonEmpty,
    help: 'client mode: its arguments as a JSON object (e.g. \'{"path": "."}\')',
  }),
];

function opt<K extends keyof Config>(spec: OptionSpec<K>): OptionSpec<keyof Config> {
  return spec as unknown as OptionSpec<keyof Config>;
}

/**
 * Builds a Config from `--flag value` / `--flag=value` arguments and the environment.
 * Flags win over environment variables, which win over defaults. Throws ConfigError on any bad value.
 */
export function loadConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Config {
  const given = parseFlags(argv);
  const config: Partial<Record<keyof Config, unknown>> = { cwd };
  for (const spec of OPTIONS) {
    const fromFlag = given.get(spec.flag);
    const envName = spec.env?.find((name) => env[name] !== undefined && env[name] !== "");
    if (fromFlag !== undefined) config[spec.key] = spec.parse(fromFlag, spec.flag);
    else if (envName) config[spec.key] = spec.parse(env[envName] as string, `${spec.flag} (from ${envName})`);
    else config[spec.key] = spec.fallback(cwd);
  }
  // seed 001's colon-separated allowlist variable adds roots.
  if (env.ESLINT_MCP_ALLOW_DIRS && !given.has("--allowed-paths") && !env.MCP_CODE_QUALITY_ALLOWED_PATHS) {
    const extra = env.ESLINT_MCP_ALLOW_DIRS.split(":").filter(Boolean);
    config.allowedPaths = [cwd, ...extra];
  }
  const c = config as Config;
  if (c.adviceProvider && !c.adviceProviderPath)
    throw new ConfigError(
      "--advice-provider-path",
      `--advice-provider ${c.adviceProvider} needs the approved executable path`,
    );
  if (c.remoteCacheUrl) {
    const need: [keyof Config, string][] = [
      ["remoteCacheToken", "--remote-cache-token"],
      ["remoteCacheTeam", "--remote-cache-team"],
      ["remoteCacheSecret", "--remote-cache-secret"],
    ];
    for (const [key, flag] of need)
      if (!c[key]) throw new ConfigError(flag, `--remote-cache-url needs ${flag} as well`);
  }
  c.allowedPaths = c.allowedPaths.map((p) => path.resolve(cwd, p));
  c.auditLog = path.resolve(cwd, c.auditLog);
  if (c.adviceProvider && c.adviceProviderPath) {
    const refused = providerPathProblem(c.adviceProviderPath, c.allowedPaths);
    if (refused) throw new ConfigError("--advice-provider-path", refused);
  }
  return c;
}

/**
 * Why an advice provider's executable is not one the operator can approve: it must exist, be an executable
 * regular file that is not a symbolic link (an agent could re-point a link), and lie outside the allowed
 * paths (the agent can edit those). Checked at start, so a bad path stops the server, not the first call.
 */
export function providerPathProblem(executable: string, allowedPaths: readonly string[]): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(executable);
  } catch {
    return `${executable} does not exist`;
  }
  if (st.isSymbolicLink()) return `${executable} is a symbolic link; give the executable itself`;
  if (!st.isFile()) return `${executable} is not a regular file`;
  try {
    fs.accessSync(executable, fs.constants.X_OK);
  } catch {
    return `${executable} is not executable`;
  }
  const real = (p: string) => {
    try {
      return fs.realpathSync.native(p);
    } catch {
      return path.resolve(p);
    }
  };
  const file = real(executable);
  const inside = allowedPaths
    .map(real)
    .find((root) => file === root || file.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
  if (inside)
    return `${executable} lies inside the allowed path ${inside}, which the agent can edit; approve an executable outside it`;
  return undefined;
}

function parseFlags(argv: readonly string[]): Map<string, string> {
  const known = new Set(OPTIONS.map((o) => o.flag));
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--"))
      throw new ConfigError(arg, "unexpected argument (flags look like --name value)");
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (!known.has(flag)) throw new ConfigError(flag, "unknown flag (see --help)");
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || (value.startsWith("--") && value.length > 2))
        throw new ConfigError(flag, "needs a value");
      i++;
    }
    out.set(flag, value);
  }
  return out;
}

/** The command line's programs: the server's own, and seed 001's drop-in (dist/eslint-typescript-mcp.js). */
export type Program = "mcp-code-quality" | "eslint-typescript-mcp";

const COMMANDS: [string, string][] = [
  [
    "[options]",
    "the MCP server: HTTP on 127.0.0.1 (--mode standalone, the default), or --mode stdio for MCP clients",
  ],
  [
    "check [PATH...] [options]",
    "run a project's format check, lint, type check and link check (check --help)",
  ],
  ["hook install claude-code|pre-commit", "install the policy hooks (hook --help)"],
  ["hook claude-code|pre-commit", "run a policy hook (what the installed hooks call)"],
  ["policy compile [options]", "validate the policy bundle and write it compiled (policy --help)"],
  ["--mode client --tool NAME --arguments JSON", "call a tool of a running HTTP server"],
];

/** `--help`: what the program is, its subcommands, and every server option. */
export function helpText(program: Program = "mcp-code-quality"): string {
  const rows = OPTIONS.map((o) => {
    const env = o.env ? ` [env ${o.env.join(", ")}]` : "";
    return `  ${o.flag.padEnd(24)} ${o.help}${env}`;
  });
  const head =
    program === "eslint-typescript-mcp"
      ? [
          "Usage: eslint-typescript-mcp [options]",
          "",
          "The drop-in for the ESLint & TypeScript MCP server: MCP over stdio with its six tools (lint, lint_fix,",
          "typecheck, fix_all, rollback, audit_log; --toolsets eslint-typescript), the working directory",
          "allowed. Its environment variables: ESLINT_MCP_ALLOW_DIRS (colon-separated folders added to the",
          "allowed paths), ESLINT_MCP_LOG_LEVEL, ESLINT_MCP_SNAPSHOT_MAX_BYTES, ESLINT_MCP_AUDIT_MAX_BYTES.",
          "It is mcp-code-quality started as `mcp-code-quality --mode stdio --toolsets eslint-typescript`:",
          "the options below apply after those (see mcp-code-quality --help for the other commands).",
        ]
      : [
          "Usage:",
          ...COMMANDS.map(([args, what]) => `  mcp-code-quality ${args}\n      ${what}`),
          "",
          "Docs: README.md and docs/ in the package (docs/check.md, docs/policy.md, ...).",
        ];
  return [
    ...head,
    "",
    "Options:",
    ...rows,
    "  --help                   print this help",
    "  --version                print the version",
  ].join("\n");
}

/** Is this bind address a loopback one (so no token is needed)? */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
