/** Calls into the warm worker pool from the JS adapters, with the pool's failures mapped to ToolErrors. */
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";
import { WORKER_POOL_SERVICE, WorkerPool } from "../../exec/worker-pool.js";
import type { WorkerSpec } from "../../exec/warm-worker.js";
import {
  WorkerCpuLimitError,
  WorkerExitError,
  WorkerRequestError,
  WorkerTimeoutError,
} from "../../exec/worker-errors.js";
import { warmBudget } from "../../exec/warm-budget.js";
import { readOnlySandbox } from "../warm-sandbox.js";
import { codePath } from "../../package-root.js";
import { declaredButMissing, notInstalledError, packageNotFound } from "./dependencies.js";

export type WorkerTool = "eslint" | "tsc" | "prettier";

const TOOL_NAMES: Record<WorkerTool | "rubocop", string> = {
  eslint: "ESLint",
  tsc: "tsc",
  prettier: "Prettier",
  rubocop: "RuboCop",
};

/** The entry script of a tool's worker (compiled to dist/adapters/js/workers/). */
export function workerScript(tool: WorkerTool): string {
  return codePath("adapters", "js", "workers", `${tool}-worker.js`);
}

export function workerPool(ctx: ToolContext): WorkerPool {
  return ctx.services.get(
    WORKER_POOL_SERVICE,
    () =>
      new WorkerPool(
        {
          idleTtlMs: ctx.config.workerIdleTtl * 1000,
          maxWorkers: ctx.config.maxWorkers,
          maxHeapMb: ctx.config.workerMaxHeapMb,
        },
        warmBudget(ctx.services, ctx.config.maxWorkers),
      ),
  );
}

export interface WarmResult<T> {
  result: T;
  /** Says which worker answered and whether it was a cold start. */
  note: string;
}

/** One request to the warm worker of (tool, root); `command` is what errors display. */
export async function warmRequest<T>(
  ctx: ToolContext,
  /** A worker of another runtime (RuboCop's, in Ruby) names its own script and runtime. */
  spec: Omit<WorkerSpec, "script"> & { tool: WorkerTool | "rubocop"; script?: string },
  method: string,
  params: unknown,
  command: string,
  /** Prefixes the tool's own failure messages, e.g. "ESLint failed". */
  failure = `${spec.tool} failed`,
): Promise<WarmResult<T>> {
  try {
    const reply = await workerPool(ctx).request<T>(
      {
        ...spec,
        script: spec.script ?? workerScript(spec.tool as WorkerTool),
        sandbox: readOnlySandbox(ctx),
      },
      method,
      params,
      // A worker's request is bounded as a one-shot run is: by the timeout and by --tool-max-cpu-seconds.
      { timeoutMs: ctx.config.timeout * 1000, cpuSeconds: ctx.config.toolMaxCpuSeconds, signal: ctx.signal },
    );
    const state =
      reply.requestNumber === 1
        ? `cold start: new ${spec.tool} worker pid ${reply.pid}${reply.restartedBecause ? ` (${reply.restartedBecause})` : ""}`
        : `warm ${spec.tool} worker pid ${reply.pid}, request ${reply.requestNumber}`;
    return { result: reply.result, note: state };
  } catch (err) {
    if (err instanceof WorkerTimeoutError) throw new ToolError("timeout", err.message, { command });
    if (err instanceof WorkerRequestError) {
      if (err.kind === "invalid_input") throw new ToolError("invalid_input", err.message, { command });
      // A config or plugin importing a package the project declares but has not installed (ESLint's
      // `Cannot find package '@eslint/js'`): the missing install, said once for every JS tool.
      const name = packageNotFound(err.message);
      const missing = name
        ? declaredButMissing([name], spec.root, ctx.allowlist.rootOf(spec.root) ?? spec.root)
        : undefined;
      if (missing)
        throw notInstalledError(TOOL_NAMES[spec.tool], missing, `${failure}: ${err.message}`, { command });
      throw new ToolError("tool_error", `${failure}: ${err.message}`, { command });
    }
    if (err instanceof WorkerExitError || err instanceof WorkerCpuLimitError)
      throw new ToolError("tool_error", err.message, { command });
    throw err;
  }
}
