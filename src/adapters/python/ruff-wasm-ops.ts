/**
 * What the embedded ruff does with one request, wherever it runs (the server's main thread for a small
 * source, the ruff thread for a large one): loads the wasm module on first use, keeps a Workspace per
 * distinct options object, and answers with a reply the host maps to a result or an error.
 *
 * The module is compiled with Liftoff only (V8's baseline wasm compiler). With the default tiering, V8
 * recompiles the 10 MB module's hot functions with TurboFan during the first hundreds of calls: the
 * process grew from about 90 MB to 490 MB and those calls were several times slower, for a steady state
 * only ~10% faster (docs/embedded-ruff.md). V8 flags are process-wide, so this also applies to any wasm
 * compiled later in the server (undici's small HTTP parser); that is harmless.
 */
import { createRequire } from "node:module";
import v8 from "node:v8";
import type { RuffThreadMemory, RuffThreadReply, RuffThreadRequest } from "./ruff-thread-protocol.js";
import type { RuffOptions } from "./ruff-settings.js";
import { selectorCovers } from "./ruff-selectors.js";

type RuffModule = typeof import("@astral-sh/ruff-wasm-nodejs");
type Workspace = InstanceType<RuffModule["Workspace"]>;

const MAX_WORKSPACES = 32;

class SettingsError extends Error {}

interface Diagnostic {
  code: string | null;
}

/** One instance of the wasm module with its Workspaces (one per thread that loads it). */
export class RuffWasm {
  private readonly ruff: RuffModule;
  private readonly workspaces = new Map<string, Workspace>();

  constructor() {
    v8.setFlagsFromString("--liftoff-only");
    this.ruff = createRequire(import.meta.url)("@astral-sh/ruff-wasm-nodejs") as RuffModule;
  }

  version(): string {
    return this.ruff.Workspace.version();
  }

  /** A Workspace per distinct options object, reused across calls. */
  private workspace(options: RuffOptions): Workspace {
    const key = JSON.stringify(options);
    let ws = this.workspaces.get(key);
    if (!ws) {
      try {
        // Utf32 columns are code points, which is what the ruff CLI prints.
        ws = new this.ruff.Workspace(options, this.ruff.PositionEncoding.Utf32);
      } catch (err) {
        throw new SettingsError(String(err));
      }
      if (this.workspaces.size >= MAX_WORKSPACES) {
        for (const old of this.workspaces.values()) old.free();
        this.workspaces.clear();
      }
      this.workspaces.set(key, ws);
    }
    return ws;
  }

  private run(req: RuffThreadRequest, sameThread: boolean): unknown {
    const ws = this.workspace(req.options);
    if (req.op === "check") return ws.check(req.source);
    if (req.op === "format") return ws.format(req.source);
    const kept = lintKept(ws, req.source, req.ignored);
    return sameThread ? kept : JSON.stringify(kept);
  }

  /**
   * One request. `sameThread`: the caller is on this thread (the server's main thread), so a lint's
   * diagnostics are handed back as they are; for another thread they are one JSON string.
   */
  handle(req: RuffThreadRequest, sameThread = false): RuffThreadReply {
    try {
      const result = this.run(req, sameThread);
      return { id: req.id, ok: true, result, memory: memory() };
    } catch (err) {
      // A trap (a Rust panic) can leave the instance's state corrupt: the host replaces it.
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
}

function memory(): RuffThreadMemory {
  const h = v8.getHeapStatistics();
  // external_memory is this isolate's: the wasm linear memory and buffers.
  return { heapUsedBytes: h.used_heap_size, wasmMemoryBytes: h.external_memory };
}

/**
 * The file's diagnostics (with positions and fixes) less those its per-file ignores drop. From another
 * thread they cross back as one JSON string, not an object per diagnostic (200,000 diagnostics as
 * structured-cloned objects took the server's event loop seconds to receive); on the main thread the
 * string would only be built and parsed again (0.77 ms of a 2 ms check for 98 diagnostics).
 */
function lintKept(ws: Workspace, source: string, ignored: string[]): Diagnostic[] {
  return (ws.check(source) as Diagnostic[]).filter((d) => {
    const code = d.code ?? "invalid-syntax";
    return !ignored.some((selector) => selectorCovers(selector, code));
  });
}
