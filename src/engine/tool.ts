/** What a tool is: its schema, annotations, path arguments and handler. The pipeline does the rest. */
import type { z } from "zod";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { Allowlist, PathKind } from "../paths/allowlist.js";
import type { RunResult, RunSpec } from "../exec/runner.js";
import type { SandboxRun } from "../exec/sandbox/launch.js";
import type { Services } from "./services.js";
import type { AuditLog } from "./audit-log.js";
import type { SlidingWindowRateLimiter } from "./rate-limiter.js";
import type { ProgressReport } from "./progress.js";

/** What a tool may know of the engine running it. */
export interface EngineInfo {
  audit: AuditLog;
  rateLimiter: SlidingWindowRateLimiter;
  listTools(): ToolDefinition[];
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Annotations of a tool that only reads: safe to call at will. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const satisfies ToolAnnotations;

/**
 * Annotations of a tool that only reads, but asks a service out of the machine (a vulnerability database,
 * the URLs of links): the world it reads is open, so a repeated call may answer otherwise.
 */
export const READ_ONLY_NETWORK = { ...READ_ONLY, openWorldHint: true } as const satisfies ToolAnnotations;

/** Annotations of a tool that rewrites project files (as a transaction; repeating it changes nothing more). */
export const WRITES_FILES = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
} as const satisfies ToolAnnotations;

/**
 * What a tool does beyond its annotations, listed in its `_meta` (see src/mcp/tool-traits.ts): only advises
 * (changes nothing, runs nothing of the project's), reads project files, runs managed tools, persists traces.
 */
export interface ToolTraits {
  advisory: boolean;
  reads_files: boolean;
  runs_tools: boolean;
  persists_traces: boolean;
}

/** A path argument the pipeline canonicalizes through the allowlist before the handler runs. */
export interface PathArgument {
  /** Argument name. */
  arg: string;
  kind: PathKind;
  /** Used when the argument is absent. */
  default?: string;
  /** Another (directory) argument that relative values resolve against, e.g. run_tests' working_dir. */
  base?: string;
  /** The value is an array of paths. */
  list?: boolean;
  /** The path need not exist (inline `source_code` linted as if it were there); it must still be allowed. */
  mayBeMissing?: boolean;
}

/** The usual pair: a target `path` (file or directory) and an optional `config` file. */
export const PATH_AND_CONFIG: readonly PathArgument[] = [
  { arg: "path", kind: "any" },
  { arg: "config", kind: "file" },
];

/**
 * What a result lists under a budget, declared (under this symbol, never serialized) so the hard byte cap
 * can shorten the listing as a whole and keep `next_offset` the first finding not shown (engine/result-cap.ts).
 */
export const PAGED_LISTING = Symbol("pagedListing");

/** Overrides `isError` of the MCP result (default: `success === false`). */
export const RESULT_IS_ERROR = Symbol("resultIsError");

export interface PagedListing {
  /** Top-level lists with one entry per listed finding, in the same order (`issues`, `offenses`, ...). */
  lists: string[];
  /** A per-file list whose entries' `messages` are the listed findings, in order (ESLint's `files`). */
  perFile?: string;
  /** The index of the first listed finding when a page was asked for; undefined for a trimmed listing. */
  offset?: number;
}

/** The result object every tool returns (seed 000's shape; tools add their own fields). */
export interface ToolResult {
  success: boolean;
  [PAGED_LISTING]?: PagedListing;
  /** Set by a drop-in surface whose original flags only some failures as isError (see mcp/server.ts). */
  [RESULT_IS_ERROR]?: boolean;
  [key: string]: unknown;
}

export type { SandboxRun } from "../exec/sandbox/launch.js";

export type RunOptions = Omit<RunSpec, "timeoutMs" | "maxOutputBytes" | "cwd" | "signal"> & {
  cwd?: string;
  timeoutMs?: number;
};

export interface ToolContext {
  /** The engine running the call (for tools about the server itself: status, audit). */
  engine: EngineInfo;
  config: Config;
  allowlist: Allowlist;
  log: Logger;
  services: Services;
  signal?: AbortSignal;
  /**
   * The byte cap this call's result gets (--max-result-bytes, or the caller's own: Infinity for check), so a
   * tool can fit a part of its result itself and say what it left out (a SARIF log's results).
   */
  maxResultBytes?: number;
  /**
   * Runs a program through the bounded runner with the server's limits.
   * Throws ToolError: tool_not_found when missing, timeout when killed at the time limit.
   */
  run(options: RunOptions): Promise<RunResult>;
  /**
   * The sandbox a process started for this call gets (the call's kind, the allowed roots, the running
   * transaction's roots): for the warm workers and daemons, which start outside `run`.
   */
  sandbox(): SandboxRun;
  /** Adds a note to this call's result (said once), e.g. that a tool ran unsandboxed. */
  note(text: string): void;
  /**
   * Tells a client that asked for progress (MCP `progressToken`) how the call is going: `done` of `total` where
   * the tool counts its work (files of a link check), else what it is doing. A no-op otherwise; the engine
   * itself reports every process the call starts and a heartbeat while it runs (engine/progress.ts).
   */
  progress?(report: ProgressReport): void;
}

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  /** Strict object schema; null values are treated as absent before validation. */
  input: S;
  /**
   * Another surface's names for this tool's arguments, mapped onto ours before `input` validates them (seed
   * 002's, src/mcp/tools/seed-002-aliases.ts); throws InvalidArgumentsError for a bad aliased value.
   */
  aliases?(args: Record<string, unknown>): Record<string, unknown>;
  annotations: ToolAnnotations;
  /** Declared here, or kept in src/mcp/tool-traits.ts for tools that predate it. */
  traits?: ToolTraits;
  paths?: readonly PathArgument[];
  /** Results the handler returns keep their exact shape (no `duration_ms` added, nothing compacted); errors do not. */
  exactResult?: boolean;
  /**
   * The text content of a successful result, when it is not the result's JSON (seed 003: corrected inline
   * source comes back as plain text, the structured result beside it as structuredContent).
   */
  textContent?(result: ToolResult): string | undefined;
  /** JSON Schema of every result (handler results and errors alike), advertised as the tool's outputSchema. */
  outputSchema?: Record<string, unknown>;
  /**
   * A drop-in surface's own error shape: failures, invalid arguments included, become this result
   * (an isError tool result) instead of `{success: false, error, error_type}` or an InvalidParams error.
   */
  errorResult?(failure: ToolFailure, rawArgs: Record<string, unknown>, config: Config): ToolResult;
  handler(args: z.infer<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** A failed call, as the engine reports it. */
export interface ToolFailure {
  error: string;
  error_type: string;
  [key: string]: unknown;
}

/** Helps TypeScript infer handler argument types from the schema. */
export function defineTool<S extends z.ZodObject>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
