// The machine's own scatter, as a control for per-call latency: a child process that compiles the
// embedded ruff as the server does (Liftoff only) and, on each request, times one bare `Workspace.check`
// of the given source. Asked right after each server call, it runs in the same moments as the server.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const CHILD = `
const v8 = require("node:v8");
v8.setFlagsFromString("--liftoff-only");
const ruff = require(${JSON.stringify(path.join(REPO, "node_modules/@astral-sh/ruff-wasm-nodejs"))});
const ws = new ruff.Workspace({}, ruff.PositionEncoding.Utf32);
const source = Buffer.from(process.argv[1], "base64").toString("utf8");
let pending = "";
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let nl = pending.indexOf("\\n"); nl >= 0; nl = pending.indexOf("\\n")) {
    pending = pending.slice(nl + 1);
    const t = performance.now();
    ws.check(source);
    process.stdout.write(String(performance.now() - t) + "\\n");
  }
});
`;

/** { time(): Promise<ms of one bare check>, close() } for `source`. */
export function wasmControl(source) {
  const child = spawn(process.execPath, ["-e", CHILD, Buffer.from(source).toString("base64")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let buffered = "";
  const waiting = [];
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      waiting.shift()?.(Number(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
  });
  return {
    time: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write("\n");
      }),
    close: () => child.kill(),
  };
}
