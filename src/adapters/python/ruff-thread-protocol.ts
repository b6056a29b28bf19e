/** Messages between the server and the embedded-ruff thread (structured clone: plain data only). */
import type { RuffOptions } from "./ruff-settings.js";

export type RuffThreadRequest =
  | { id: number; op: "check"; options: RuffOptions; source: string }
  | { id: number; op: "format"; options: RuffOptions; source: string }
  | {
      id: number;
      op: "lint";
      options: RuffOptions;
      source: string;
      /** Rule-code prefixes the file's per-file ignores drop ("ALL" drops every one). */
      ignored: string[];
    };

/** Per-op extra fields of a request (besides id, op, options, source). */
export type RuffOpExtras<Op extends RuffThreadRequest["op"]> = Omit<
  Extract<RuffThreadRequest, { op: Op }>,
  "id" | "op" | "options" | "source"
>;

/** What the thread reports about itself with every reply, for get_status. */
export interface RuffThreadMemory {
  /** The thread's V8 heap in use, bytes. */
  heapUsedBytes: number;
  /** The wasm module's linear memory, bytes. */
  wasmMemoryBytes: number;
}

export type RuffThreadReply =
  | { id: number; ok: true; result: unknown; memory: RuffThreadMemory }
  | {
      id: number;
      ok: false;
      /** "settings": the options were refused; "input": the source could not be handled; "panic": wasm trapped. */
      kind: "settings" | "input" | "panic";
      message: string;
      memory: RuffThreadMemory;
    };

/** Sent once, when the wasm module is compiled and instantiated. */
export interface RuffThreadReady {
  ready: true;
  version: string;
}
