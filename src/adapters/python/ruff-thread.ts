/**
 * The embedded ruff's thread (a worker_thread started by ruff-thread-host.ts): runs the checks and
 * formats of sources too large for the main thread (ruff-wasm-ops.ts does the work), so no call blocks
 * the server's event loop for long.
 */
import { parentPort } from "node:worker_threads";
import type { RuffThreadReady, RuffThreadRequest } from "./ruff-thread-protocol.js";
import { RuffWasm } from "./ruff-wasm-ops.js";

const wasm = new RuffWasm();
const port = parentPort;
if (!port) throw new Error("ruff-thread.js runs as a worker thread only");
port.on("message", (req: RuffThreadRequest) => port.postMessage(wasm.handle(req)));
port.postMessage({ ready: true, version: wasm.version() } satisfies RuffThreadReady);
