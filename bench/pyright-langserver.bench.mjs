// Issue 13: which long-lived pyright to keep warm. On the generated 200-module project of
// python-types.bench.mjs, side by side in one run, after each one-file edit (body-only, then signature):
// the server's type_check (pyright in watch mode), pyright's language server over stdio
// (`pyright-langserver --stdio`, workspace diagnostics, the edit sent as didChange; timed until its
// analysis progress ends), and a cold `pyright --outputjson`. Medians of BENCH_TYPES_RUNS (default 10).
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { generate, moduleText, run, server } from "./python-types.bench.mjs";
import { median, ms } from "./stats.mjs";

const require = createRequire(import.meta.url);
const PYRIGHT = require.resolve("pyright");
const LANGSERVER = path.join(path.dirname(PYRIGHT), "langserver.index.js");
const RUNS = Number(process.env.BENCH_TYPES_RUNS ?? 10);
const EDITED = 100;

/** A minimal LSP client (Content-Length framing) for pyright's language server. */
function langserver(dir) {
  const child = spawn(process.execPath, [LANGSERVER, "--stdio"], {
    cwd: dir,
    stdio: ["pipe", "pipe", "ignore"],
  });
  let buf = Buffer.alloc(0);
  let nextId = 1;
  const pending = new Map();
  const listeners = new Set();
  const errors = new Map();
  const send = (m) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...m }));
    child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  };
  const settings = { diagnosticMode: "workspace" };
  child.stdout.on("data", (c) => {
    buf = Buffer.concat([buf, c]);
    for (;;) {
      const h = buf.indexOf("\r\n\r\n");
      if (h < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, h).toString())[1]);
      if (buf.length < h + 4 + len) return;
      const msg = JSON.parse(buf.subarray(h + 4, h + 4 + len).toString());
      buf = buf.subarray(h + 4 + len);
      if (msg.id !== undefined && msg.method === undefined) {
        pending.get(msg.id)?.(msg.result);
        pending.delete(msg.id);
      } else if (msg.method === "workspace/configuration") {
        const result = msg.params.items.map((it) =>
          it.section === "python.analysis"
            ? settings
            : it.section === "python"
              ? { analysis: settings }
              : null,
        );
        send({ id: msg.id, result });
      } else if (msg.id !== undefined) send({ id: msg.id, result: null });
      else {
        if (msg.method === "textDocument/publishDiagnostics")
          errors.set(msg.params.uri, msg.params.diagnostics.filter((d) => d.severity === 1).length);
        for (const l of listeners) l(msg);
      }
    }
  });
  const analysisEnd = () =>
    new Promise((resolve) => {
      const l = (m) => {
        if (m.method === "$/progress" && m.params.value?.kind === "end") {
          listeners.delete(l);
          resolve();
        }
      };
      listeners.add(l);
    });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      send({ id, method, params });
    });
  let version = 1;
  return {
    async start() {
      const uri = pathToFileURL(dir).href;
      await request("initialize", {
        processId: process.pid,
        rootUri: uri,
        workspaceFolders: [{ uri, name: "bench" }],
        capabilities: { window: { workDoneProgress: true }, workspace: { configuration: true } },
      });
      const done = analysisEnd();
      send({ method: "initialized", params: {} });
      send({
        method: "workspace/didChangeConfiguration",
        params: { settings: { python: { analysis: settings } } },
      });
      await done;
    },
    open(file, text) {
      send({
        method: "textDocument/didOpen",
        params: {
          textDocument: { uri: pathToFileURL(file).href, languageId: "python", version: version++, text },
        },
      });
    },
    async change(file, text) {
      const done = analysisEnd();
      send({
        method: "textDocument/didChange",
        params: {
          textDocument: { uri: pathToFileURL(file).href, version: version++ },
          contentChanges: [{ text }],
        },
      });
      await done;
    },
    errorCount: () => [...errors.values()].reduce((a, b) => a + b, 0),
    close: () => child.kill(),
  };
}

export default async function bench() {
  const project = generate();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-lsp-cache-"));
  const edited = path.join(project, "pkg", `m${EDITED}.py`);
  const rows = [];
  const notes = [];
  const s = await server(project, cache);
  const ls = langserver(project);
  try {
    let t = performance.now();
    await s.check("pyright");
    const firstWatch = performance.now() - t;
    t = performance.now();
    await ls.start();
    const firstLs = performance.now() - t;
    const cold = () => run(process.execPath, [PYRIGHT, "--outputjson"], project);
    const firstCold = await cold();
    rows.push({
      case: "first (cold) check",
      "watch mode (server) ms": ms(firstWatch),
      "langserver ms": ms(firstLs),
      "cold pyright ms": ms(firstCold.ms),
    });
    ls.open(edited, moduleText(EDITED));
    let mismatches = 0;
    for (const kind of ["body-only edit", "signature edit"]) {
      const watch = [];
      const lsp = [];
      const direct = [];
      for (let i = 0; i < RUNS; i++) {
        const text =
          kind === "body-only edit"
            ? moduleText(EDITED, { k: i + 2 })
            : moduleText(EDITED, { signature: i % 2 === 0 });
        fs.writeFileSync(edited, text);
        const w = await s.check("pyright");
        t = performance.now();
        await ls.change(edited, text);
        lsp.push(performance.now() - t);
        const d = await cold();
        watch.push(w.ms);
        direct.push(d.ms);
        const coldCount = JSON.parse(d.stdout).generalDiagnostics.length;
        if (w.count !== coldCount || ls.errorCount() !== coldCount) mismatches++;
        process.stderr.write(
          `${JSON.stringify({ kind, i, watch: ms(w.ms), langserver: ms(lsp.at(-1)), cold: ms(d.ms), counts: [w.count, ls.errorCount(), coldCount] })}\n`,
        );
      }
      rows.push({
        case: `after a ${kind}`,
        "watch mode (server) ms": ms(median(watch)),
        "langserver ms": ms(median(lsp)),
        "cold pyright ms": ms(median(direct)),
        "cold / watch": ms(median(direct) / median(watch)),
        "cold / langserver": ms(median(direct) / median(lsp)),
      });
    }
    notes.push(
      `medians of ${RUNS} edits each, the three sides one after another per edit; error counts differed from cold in ${mismatches} edits`,
      "langserver: time from didChange to the end of its analysis progress (the diagnostics are published by then); watch mode: the whole type_check call over stdio",
    );
  } finally {
    ls.close();
    await s.close();
    fs.writeFileSync(edited, moduleText(EDITED));
    fs.rmSync(project, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  }
  return { title: "pyright kept warm: watch mode against its language server, 200 modules", rows, notes };
}
