/**
 * The embedded ruff's thread (a worker_thread started by ruff-thread-host.ts): compiles the wasm module
 * and runs every check and format, so no call blocks the server's event loop.
 *
 * The module is compiled with Liftoff only (V8's baseline wasm compiler). With the default tiering, V8
 * recompiles the 10 MB module's hot functions with TurboFan during the first hundreds of calls: the
 * process grew from about 90 MB to 490 MB and those calls were several times slower, for a steady state
 * only ~10% faster (bench/memory.bench.mjs, docs/embedded-ruff.md). V8 flags are process-wide, so this
 * also applies to any wasm compiled later in the server (undici's small HTTP parser); that is harmless.
 */
import { createRequire } from "node:module";
import v8 from "node:v8";
import { parentPort } from "node:worker_threads";
import type {
  RuffThreadMemory,
  RuffThreadReady,
  RuffThreadReply,
  RuffThreadRequest,
} from "./ruff-thread-protocol.js";
import type { RuffOptions } from "./ruff-settings.js";

v8.setFlagsFromString("--liftoff-only");

type RuffModule = typeof import("@astral-sh/ruff-wasm-nodejs");
type Workspace = InstanceType<RuffModule["Workspace"]>;

const ruff = createRequire(import.meta.url)("@astral-sh/ruff-wasm-nodejs") as RuffModule;
const workspaces = new Map<string, Workspace>();
const MAX_WORKSPACES = 32;

class SettingsError extends Error {}

/** A Workspace per distinct options object, reused across calls. */
function workspace(options: RuffOptions): Workspace {
  const key = JSON.stringify(options);
  let ws = workspaces.get(key);
  if (!ws) {
    try {
      // Utf32 columns are code points, which is what the ruff CLI prints.
      ws = new ruff.Workspace(options, ruff.PositionEncoding.Utf32);
    } catch (err) {
      throw new SettingsError(String(err));
    }
    if (workspaces.size >= MAX_WORKSPACES) {
      for (const old of workspaces.values()) old.free();
      workspaces.clear();
    }
    workspaces.set(key, ws);
  }
  return ws;
}

function memory(): RuffThreadMemory {
  const h = v8.getHeapStatistics();
  // external_memory is this isolate's: the wasm linear memory and buffers.
  return { heapUsedBytes: h.used_heap_size, wasmMemoryBytes: h.external_memory };
}

interface Diagnostic {
  code: string | null;
}

/**
 * The file's diagnostics (with positions and fixes) less those its per-file ignores drop, as one JSON
 * string: one string crosses back to the server instead of an object per diagnostic (200,000
 * diagnostics as structured-cloned objects took the server's event loop seconds to receive).
 */
function lintJson(ws: Workspace, source: string, ignored: string[]): string {
  const kept = (ws.check(source) as Diagnostic[]).filter((d) => {
    const code = d.code ?? "invalid-syntax";
    return !ignored.some((prefix) => prefix === "ALL" || code.startsWith(prefix));
  });
  return JSON.stringify(kept);
}

function run(req: RuffThreadRequest): unknown {
  const ws = workspace(req.options);
  if (req.op === "check") return ws.check(req.source);
  if (req.op === "format") return ws.format(req.source);
  return lintJson(ws, req.source, req.ignored);
}

function handle(req: RuffThreadRequest): RuffThreadReply {
  try {
    const result = run(req);
    return { id: req.id, ok: true, result, memory: memory() };
  } catch (err) {
    // A trap (a Rust panic) can leave the instance's state corrupt: the host replaces the thread.
    const kind =
      err instanceof SettingsError
        ? "settings"
        : err instanceof Error && err.name === "RuntimeError"
          ? "panic"
          : "input";
    const message = err instanceof SettingsError ? err.message : String(err);
    return { id: req.id, ok: false, kind, message, memory: memory() };
  }
}

const port = parentPort;
if (!port) throw new Error("ruff-thread.js runs as a worker thread only");
port.on("message", (req: RuffThreadRequest) => port.postMessage(handle(req)));
port.postMessage({ ready: true, version: ruff.Workspace.version() } satisfies RuffThreadReady);
