/**
 * The one pipeline every tool call goes through:
 * validate → rate limit → path allowlist → concurrency slot → handler → result → audit entry.
 */
import { treeChangesSeen, treeMayHaveChanged } from "../paths/tree-scan.js";
import { validationEpoch } from "../cache/file-hashes.js";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import pLimit, { type LimitFunction } from "p-limit";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import { Allowlist } from "../paths/allowlist.js";
import { projectRootOf } from "../paths/project-root.js";
import { refuseLinksInArgs } from "../paths/outside-links.js";
import { ProgramNotFoundError, runBounded } from "../exec/runner.js";
import {
  invisibleNote,
  invisiblePaths,
  limitsFrom,
  probeSandbox,
  unsandboxedNote,
  type SandboxRun,
} from "../exec/sandbox/launch.js";
import { hostLayout } from "../exec/sandbox/host.js";
import { planProfile } from "../exec/sandbox/plan.js";
import { currentWritableRoots, testsNetworkCut } from "../exec/sandbox/scope.js";
import { AuditLog } from "./audit-log.js";
import { InvalidArgumentsError, ToolError } from "../errors.js";
import { DEFAULT_RATE_LIMITS, SlidingWindowRateLimiter } from "./rate-limiter.js";
import { compactResult, displayCommand, combinedOutput } from "./result.js";
import { capResultBytes } from "./result-cap.js";
import { refuseNulInProcessText } from "./argv-text.js";
import { CallProgress, type ProgressUpdate } from "./progress.js";
import { budgetNotes, effectiveTokens } from "../findings/budget.js";
import { sanitizeStrings } from "./sanitize.js";
import { Services } from "./services.js";
import {
  PAGED_LISTING,
  RESULT_IS_ERROR,
  type RunOptions,
  type ToolContext,
  type ToolDefinition,
  type ToolFailure,
  type ToolResult,
} from "./tool.js";

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * The result's byte cap for this call instead of --max-result-bytes. The cap protects an MCP client's
   * message buffer; an in-process caller with none (`check`, which reads every finding from the SARIF log)
   * passes Infinity and gets the whole result.
   */
  maxResultBytes?: number;
  /** Receives the call's progress (the client sent a progressToken): see engine/progress.ts. */
  onProgress?: (update: ProgressUpdate) => void;
}

export class Engine {
  readonly allowlist: Allowlist;
  readonly audit: AuditLog;
  readonly services = new Services();
  readonly slots: LimitFunction;
  readonly rateLimiter: SlidingWindowRateLimiter;
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(
    readonly config: Config,
    readonly log: Logger,
    tools: readonly ToolDefinition[],
  ) {
    this.allowlist = new Allowlist(config.allowedPaths, config.cwd);
    for (const d of this.allowlist.roots.dropped) log.warn(`allowed path ${d.path} ignored: ${d.reason}`);
    if (this.allowlist.roots.effective.length === 0)
      log.warn("no allowed path exists: every path will be refused");
    this.audit = new AuditLog(config.auditLog, config.auditLogMaxBytes, (e) =>
      log.warn(`audit log: ${String(e)}`),
    );
    this.slots = pLimit(config.maxConcurrent);
    this.rateLimiter = new SlidingWindowRateLimiter(config.rateLimit ? DEFAULT_RATE_LIMITS : {});
    for (const t of tools) {
      if (this.tools.has(t.name)) throw new Error(`tool ${t.name} is defined twice`);
      this.tools.set(t.name, t);
    }
  }

  listTools(): ToolDefinition[] {
    return [...this.tools.values()];
  }

  getTool(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /**
   * Runs one tool call. Invalid arguments throw InvalidArgumentsError (a protocol error);
   * everything else, failures included, comes back as a result object.
   */
  async call(name: string, rawArgs: unknown, options: CallOptions = {}): Promise<ToolResult> {
    const started = performance.now();
    // The tree may have changed since the last call: its folders are stat'ed again (once each) in this one.
    // Not inside a check run's read-only checks (validationEpoch): there the tree is taken as the run found
    // it, as the files' stats are, until a process ran or the server wrote (runner.ts, safe-write.ts); the
    // run's first pass starts with it (src/check/command.ts).
    if (validationEpoch.getStore() === undefined) treeMayHaveChanged();
    await treeChangesSeen();
    const tool = this.tools.get(name);
    if (!tool) throw new InvalidArgumentsError(`Unknown tool: ${name}`);
    let args: Record<string, unknown>;
    try {
      args = validateArguments(tool, rawArgs);
    } catch (err) {
      if (!(err instanceof InvalidArgumentsError) || !tool.errorResult) throw err;
      // A drop-in surface answers invalid arguments as its original does: an isError result.
      const result = tool.errorResult(
        { error: err.message, error_type: "invalid_input" },
        rawObject(rawArgs),
        this.config,
      );
      void this.audit.append({ operation: name, path: null, success: false, details: auditDetails(result) });
      return result;
    }
    let auditPath: string | null = typeof args.path === "string" ? args.path : null;
    let result: ToolResult;
    let exact = false;
    // Notes the engine adds to whatever the handler returns (the sandbox's, about the processes it ran).
    const callNotes = new Set<string>();
    const sandboxRan = { value: false };
    // Nothing more once the call is over or given up.
    const progress = options.onProgress ? new CallProgress(options.onProgress, name) : undefined;
    const stopProgress = () => progress?.close();
    options.signal?.addEventListener("abort", stopProgress, { once: true });
    try {
      this.checkRateLimit(name);
      const resolved = this.resolvePaths(tool, args);
      const first = tool.paths?.[0];
      if (first && typeof resolved[first.arg] === "string") auditPath = resolved[first.arg] as string;
      result = await this.slots(() =>
        tool.handler(
          resolved,
          this.context(
            name,
            callNotes,
            sandboxRan,
            options.signal,
            options.maxResultBytes ?? this.config.maxResultBytes,
            args,
            progress,
          ),
        ),
      );
      exact = tool.exactResult === true;
    } catch (err) {
      result = errorResult(err, this.log);
      if (tool.errorResult) {
        result = tool.errorResult(result as unknown as ToolFailure, args, this.config);
        exact = true;
      }
    }
    // The call is over (answered, failed, refused before it ran): no more progress.
    stopProgress();
    options.signal?.removeEventListener("abort", stopProgress);
    // Declared beside the result, never part of its JSON: lost by the reshaping below, so taken first.
    const listing = result[PAGED_LISTING];
    const isError = result[RESULT_IS_ERROR];
    // A warm worker's tool (tsc, ESLint) reports what its sandbox hid in its findings, not in a run's output.
    if (!exact && sandboxRan.value && ![...callNotes].some((n) => n.includes(" could not see ")))
      this.noteInvisible(result, callNotes);
    if (!exact && callNotes.size > 0) {
      const own = Array.isArray(result.notes) ? (result.notes as unknown[]) : [];
      result = { ...result, notes: [...own, ...[...callNotes].filter((n) => !own.includes(n))] };
    }
    // A fixed-shape result (a drop-in surface) is returned exactly as its handler built it; errors are not.
    if (!exact) {
      if (result.duration_ms === undefined) result.duration_ms = Math.round(performance.now() - started);
      result = compactResult(result);
      // Notes count against the budget like the rest: an eighth of it at most, each said once.
      if (Array.isArray(result.notes)) {
        const budget =
          typeof args.max_result_tokens === "number" ? args.max_result_tokens : this.config.maxResultTokens;
        result.notes = budgetNotes(
          result.notes,
          Math.floor(effectiveTokens(budget, options.maxResultBytes ?? this.config.maxResultBytes) / 8),
        );
      }
    }
    // Whatever the tool: no control characters in any string, and never more than the result cap.
    result = sanitizeStrings(result);
    const cap = options.maxResultBytes ?? this.config.maxResultBytes;
    // Every result says what the cap cut: a fixed-shape one in its own `note` when its schema admits no more.
    if (Number.isFinite(cap))
      result = capResultBytes(result, cap, exact && tool.outputSchema ? "note" : "fields", listing);
    if (isError !== undefined) result = { ...result, [RESULT_IS_ERROR]: isError };
    void this.audit.append({
      operation: name,
      path: auditPath,
      success: result.success,
      details: auditDetails(result),
    });
    return result;
  }

  private checkRateLimit(name: string): void {
    const waitMs = this.rateLimiter.tryAcquire(name);
    if (waitMs > 0) {
      const limit = this.rateLimiter.limitOf(name);
      const seconds = Math.ceil(waitMs / 100) / 10;
      throw new ToolError(
        "rate_limit",
        `Rate limit for ${name} exceeded (${limit} calls per minute); retry in ${seconds} s`,
        { retry_after_seconds: seconds },
      );
    }
  }

  private resolvePaths(tool: ToolDefinition, args: Record<string, unknown>): Record<string, unknown> {
    const out = { ...args };
    for (const spec of tool.paths ?? []) {
      const given = out[spec.arg];
      const value = given ?? spec.default;
      if (value === undefined) continue;
      const baseArg = spec.base ? out[spec.base] : undefined;
      // A default path is the server's working directory's only when that lies inside an allowed root.
      const base =
        typeof baseArg === "string"
          ? baseArg
          : given === undefined
            ? this.defaultBase(tool, args)
            : undefined;
      const resolveOne = (v: string) =>
        spec.mayBeMissing && !fs.existsSync(this.allowlist.locate(v, base))
          ? this.allowlist.resolvePossiblyMissing(v, { base, label: spec.arg })
          : this.allowlist.resolve(v, { kind: spec.kind, base, label: spec.arg });
      out[spec.arg] = Array.isArray(value)
        ? value.map((v: string) => resolveOne(v))
        : resolveOne(value as string);
    }
    return out;
  }

  /**
   * Where a path argument's default resolves when the call leaves it out: the server's working directory when
   * it lies inside an allowed root; else the single allowed root; else the project of the (absolute) files the
   * call names; else the working directory (and the allowlist refuses it, saying which paths are allowed).
   */
  private defaultBase(tool: ToolDefinition, args: Record<string, unknown>): string | undefined {
    const roots = this.allowlist.roots.effective;
    if (this.allowlist.rootOf(this.allowlist.cwd)) return undefined;
    if (roots.length === 1) return roots[0];
    for (const spec of tool.paths ?? []) {
      const v = args[spec.arg];
      const first = (Array.isArray(v) ? v : [v]).find(
        (x): x is string => typeof x === "string" && path.isAbsolute(x),
      );
      const root = first ? this.allowlist.rootOf(first) : undefined;
      if (first && root) return projectRootOf(first, root);
    }
    return undefined;
  }

  /**
   * The sandbox of a process this call starts: run_tests gets the roots read-write (and the network unless
   * the operator or the project cut it), a transaction's work its own roots read-write, every other call the roots read-only.
   */
  sandboxFor(toolName: string, callArgs: Record<string, unknown> = {}): SandboxRun {
    const roots = this.allowlist.roots.effective;
    const writableRoots = currentWritableRoots();
    const base = { mode: this.config.sandbox, limits: limitsFrom(this.config) };
    if (toolName === "run_tests") {
      const own = this.testedProjects(callArgs);
      return {
        ...base,
        request: {
          kind: "tests",
          roots,
          ...(own.length ? { writableRoots: own } : {}),
          network: this.config.testsNetwork && !testsNetworkCut(),
        },
      };
    }
    if (writableRoots) return { ...base, request: { kind: "write", roots, writableRoots } };
    return { ...base, request: { kind: "read", roots } };
  }

  /**
   * The projects a run_tests call tests (its `path` and `working_dir`, each up to its project's root): the
   * only folders its tests may write. With every allowed root writable a test suite wrote into other
   * projects, and planted a conftest.py above them that every later run loaded (a red team's run). The paths
   * are resolved as the tool resolves them (`path` relative to `working_dir`, else to the working directory;
   * a node id by its file): a relative `path: "."` once named no project, and every root became writable.
   */
  private testedProjects(callArgs: Record<string, unknown>): string[] {
    const resolve = (v: unknown, base?: string): string | undefined => {
      if (typeof v !== "string") return undefined;
      try {
        return this.allowlist.resolve(v, base === undefined ? {} : { base });
      } catch {
        return undefined;
      }
    };
    const workingDir = resolve(callArgs.working_dir);
    const given = typeof callArgs.path === "string" ? callArgs.path : undefined;
    const nodeId = given?.indexOf("::") ?? -1;
    const target = resolve(nodeId === -1 ? given : given?.slice(0, nodeId), workingDir);
    const out = new Set<string>();
    for (const v of [target, workingDir]) {
      if (v === undefined) continue;
      const root = this.allowlist.rootOf(v);
      if (!root) continue;
      const dir = fs.statSync(v, { throwIfNoEntry: false })?.isDirectory() ? v : path.dirname(v);
      out.add(projectRootOf(dir, root));
    }
    return [...out];
  }

  private context(
    toolName: string,
    notes: Set<string>,
    sandboxRan: { value: boolean },
    signal: AbortSignal | undefined,
    maxResultBytes?: number,
    callArgs: Record<string, unknown> = {},
    progress?: CallProgress,
  ): ToolContext {
    const { config } = this;
    return {
      engine: this,
      config,
      allowlist: this.allowlist,
      log: this.log,
      services: this.services,
      signal,
      maxResultBytes,
      note: (text) => void notes.add(text),
      progress: (report) => progress?.report(report),
      sandbox: () => {
        const status = config.sandbox === "off" ? undefined : probeSandbox();
        if (status?.available) sandboxRan.value = true;
        else if (status && config.sandbox === "auto") notes.add(unsandboxedNote(status));
        return this.sandboxFor(toolName, callArgs);
      },
      run: async (options: RunOptions) => {
        // A call given up (its client went away, or cancelled it) starts nothing more: a step that waited
        // (for a lock, for the step before it) would otherwise run whole after the cancellation.
        if (signal?.aborted)
          throw new ToolError(
            "tool_error",
            `the call was cancelled before ${path.basename(options.program)} started; it did not run`,
          );
        refuseNulInProcessText(options.program, options.args, options.env, options.cwd, callArgs);
        this.refuseLinksOut(options.args, options.cwd);
        progress?.report({ message: `running ${path.basename(options.program)}` });
        const spec = {
          ...options,
          // A test run gets the user's colour variables, as the project's own run does: its tests may
          // assert what the code does under them.
          colorEnv: options.colorEnv ?? (toolName === "run_tests" ? ("keep" as const) : ("off" as const)),
          cwd: options.cwd ?? config.cwd,
          timeoutMs: options.timeoutMs ?? config.timeout * 1000,
          maxOutputBytes: config.maxOutputBytes,
          signal,
          sandbox: options.sandbox ?? this.sandboxFor(toolName, callArgs),
        };
        const run = await runBounded(spec);
        if (run.sandboxProfile) sandboxRan.value = true;
        for (const n of run.sandboxNotes) notes.add(n);
        if (run.invisiblePaths.length)
          notes.add(
            invisibleNote(path.basename(options.program), run.invisiblePaths, this.allowlist.roots.effective),
          );
        if (run.timedOut) {
          throw new ToolError(
            "timeout",
            `${path.basename(options.program)} exceeded the ${Math.round(spec.timeoutMs / 1000)} s timeout and was killed with its process group`,
            {
              command: displayCommand(options.program, options.args),
              output: combinedOutput(run.stdout, run.stderr),
              truncated: run.truncated,
            },
          );
        }
        return run;
      },
    };
  }

  /** Adds the note for host files the result names that a read-only sandbox of this server does not show. */
  private noteInvisible(result: ToolResult, notes: Set<string>): void {
    const roots = this.allowlist.roots.effective;
    const texts: string[] = [];
    if (typeof result.error === "string") texts.push(result.error);
    if (typeof result.output === "string") texts.push(result.output.slice(0, 100_000));
    if (Array.isArray(result.issues))
      texts.push(...result.issues.slice(0, 200).filter((i) => typeof i === "string"));
    if (Array.isArray(result.findings))
      for (const f of result.findings.slice(0, 200) as { message?: unknown }[])
        if (typeof f?.message === "string") texts.push(f.message);
    if (texts.length === 0) return;
    const profile = planProfile(hostLayout(), { kind: "read", roots }, "/usr/bin/true", roots[0] ?? "/");
    const hidden = invisiblePaths(profile, texts.join("\n"));
    if (hidden.length)
      notes.add(invisibleNote(String(result.checker ?? result.tool ?? "the tool"), hidden, roots));
  }

  /**
   * A tool given a directory follows the symlinks in it; one leading out of the allowed paths would let it
   * read (or a formatter write) files there. Checked for every directory argument, and the working
   * directory, before the tool runs.
   */
  private refuseLinksOut(args: readonly string[], cwd: string | undefined): void {
    refuseLinksInArgs(args, this.allowlist, cwd);
  }

  async close(): Promise<void> {
    await this.services.close();
  }
}

function rawObject(raw: unknown): Record<string, unknown> {
  return typeof raw === "object" && raw !== null && !Array.isArray(raw)
    ? (raw as Record<string, unknown>)
    : {};
}

/** Treats null as "not provided", then validates strictly; failures become InvalidArgumentsError. */
export function validateArguments(tool: ToolDefinition, rawArgs: unknown): Record<string, unknown> {
  const raw = rawArgs ?? {};
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new InvalidArgumentsError("arguments must be an object");
  const withoutNulls = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null));
  const parsed = tool.input.safeParse(tool.aliases ? tool.aliases(withoutNulls) : withoutNulls);
  if (!parsed.success) {
    throw new InvalidArgumentsError(`Invalid arguments for ${tool.name}: ${formatZodError(parsed.error)}`);
  }
  return parsed.data as Record<string, unknown>;
}

function formatZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.join(".") : "arguments";
      if (issue.code === "unrecognized_keys") return `${where}: unknown argument(s) ${issue.keys.join(", ")}`;
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}

function errorResult(err: unknown, log: Logger): ToolResult {
  if (err instanceof ToolError)
    return { success: false, error: err.message, error_type: err.errorType, ...err.extra };
  if (err instanceof ProgramNotFoundError)
    return { success: false, error: err.message, error_type: "tool_not_found" };
  log.error(`unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return { success: false, error: err instanceof Error ? err.message : String(err), error_type: "exception" };
}

function auditDetails(result: ToolResult): Record<string, unknown> {
  const details: Record<string, unknown> = { duration_ms: result.duration_ms };
  if (result.error_type) details.error_type = result.error_type;
  if (result.returncode !== undefined) details.returncode = result.returncode;
  if (typeof result.passed === "boolean") details.passed = result.passed;
  if (typeof result.formatted === "boolean") details.formatted = result.formatted;
  return details;
}
