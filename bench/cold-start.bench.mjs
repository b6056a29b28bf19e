// Cold paths, side by side in one run: process start plus MCP `initialize` against a bare MCP SDK server,
// and the first type_check of a fresh server against a spawned `tsc --noEmit` (same TypeScript, same
// generated 200-file project), for this checkout and the baseline (main, built apart: lib/baseline.mjs).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseline } from "./lib/baseline.mjs";
import { generateProject } from "./js.bench.mjs";
import { median, ms } from "./stats.mjs";

/** A tool result's JSON: its text content (structuredContent only comes with an outputSchema). */
const resultJson = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INIT_RUNS = Number(process.env.COLD_INIT_RUNS ?? 15);
const TSC_RUNS = Number(process.env.COLD_TSC_RUNS ?? 3);
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
});

/** ms from spawn to the first line of the `initialize` response on stdout. */
function startAndInitialize(args, cwd) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      if (!out.includes("\n")) return;
      const elapsed = performance.now() - t;
      const reply = JSON.parse(out.slice(0, out.indexOf("\n")));
      child.kill();
      if (!reply.result?.serverInfo) reject(new Error(`no initialize result: ${out}`));
      else resolve(elapsed);
    });
    child.on("error", reject);
    child.stdin.write(`${INITIALIZE}\n`);
  });
}

function serverArgs(cli, dir) {
  return [
    cli,
    "--mode",
    "stdio",
    "--log-level",
    "error",
    "--allowed-paths",
    dir,
    "--rate-limit",
    "false",
    "--audit-log",
    path.join(dir, ".audit.log"),
  ];
}

/**
 * A fresh server's first type_check: the call alone, and spawn → result. With `listFirst`, the client
 * lists the tools before calling, as MCP clients do (the call is timed from after the listing).
 */
async function firstTypeCheck(cli, dir, listFirst = false) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: serverArgs(cli, dir),
    cwd: dir,
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  if (listFirst) await client.listTools();
  const t1 = performance.now();
  const r = await client.callTool({ name: "type_check", arguments: { path: "." } }, undefined, {
    timeout: 600_000,
  });
  const t2 = performance.now();
  await client.close();
  if (!resultJson(r).success) throw new Error(`type_check failed: ${JSON.stringify(resultJson(r))}`);
  return { call: t2 - t1, total: t2 - t0, issues: resultJson(r).issue_count };
}

function spawnedTsc(dir) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(
      process.execPath,
      [path.join(REPO, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", "tsconfig.json"],
      { cwd: dir, stdio: ["ignore", "pipe", "ignore"] },
    );
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("exit", () =>
      resolve({
        elapsed: performance.now() - t,
        lines: out.split("\n").filter((l) => /error TS/.test(l)).length,
      }),
    );
  });
}

export default async function run() {
  const base = baseline(REPO);
  const rows = [];
  const notes = [];
  const dir = generateProject();
  try {
    const sides = [
      ["bare MCP SDK server", [path.join(REPO, "bench/lib/bare-mcp-server.mjs")]],
      ...(base ? [[`baseline ${base.ref} ${base.commit}`, serverArgs(base.cli, dir)]] : []),
      ["this checkout", serverArgs(path.join(REPO, "dist/cli.js"), dir)],
    ];
    const times = sides.map(() => []);
    for (let i = 0; i < INIT_RUNS + 1; i++)
      for (const [k, [, args]] of sides.entries()) {
        const elapsed = await startAndInitialize(args, dir);
        if (i > 0) times[k].push(elapsed); // the first round warms the file cache
      }
    const bare = median(times[0]);
    for (const [k, [name]] of sides.entries())
      rows.push({
        case: `start + initialize: ${name}`,
        runs: INIT_RUNS,
        median_ms: ms(median(times[k])),
        vs_bare_ms: k === 0 ? "" : ms(median(times[k]) - bare),
      });

    const tsc = [];
    const servers = [
      ...(base ? [[`baseline ${base.ref} ${base.commit}`, base.cli]] : []),
      ["this checkout", path.join(REPO, "dist/cli.js")],
    ];
    const calls = servers.map(() => ({ call: [], total: [], afterList: [] }));
    let tscErrors;
    const issues = new Set();
    for (let i = 0; i < TSC_RUNS; i++) {
      const t = await spawnedTsc(dir);
      tsc.push(t.elapsed);
      tscErrors = t.lines;
      for (const [k, [, cli]] of servers.entries()) {
        const r = await firstTypeCheck(cli, dir);
        calls[k].call.push(r.call);
        calls[k].total.push(r.total);
        issues.add(r.issues);
        calls[k].afterList.push((await firstTypeCheck(cli, dir, true)).call);
      }
    }
    rows.push({
      case: "tsc --noEmit, spawned (node …/typescript/bin/tsc)",
      runs: TSC_RUNS,
      median_ms: ms(median(tsc)),
      vs_bare_ms: "",
    });
    for (const [k, [name]] of servers.entries()) {
      rows.push({
        case: `first type_check of a fresh server: ${name}`,
        runs: TSC_RUNS,
        median_ms: ms(median(calls[k].call)),
        vs_bare_ms: "",
        vs_tsc: `${(median(calls[k].call) / median(tsc)).toFixed(2)}x`,
      });
      rows.push({
        case: `  same, called after tools/list: ${name}`,
        runs: TSC_RUNS,
        median_ms: ms(median(calls[k].afterList)),
        vs_bare_ms: "",
        vs_tsc: `${(median(calls[k].afterList) / median(tsc)).toFixed(2)}x`,
      });
      rows.push({
        case: `  same, spawn → result: ${name}`,
        runs: TSC_RUNS,
        median_ms: ms(median(calls[k].total)),
        vs_bare_ms: "",
        vs_tsc: `${(median(calls[k].total) / median(tsc)).toFixed(2)}x`,
      });
    }
    notes.push(
      "start + initialize: spawn → first line of the initialize response, raw JSON-RPC over stdio, sides interleaved, first round dropped",
      "first type_check: timed from the call, sent right after initialize (the engine loads meanwhile), or after tools/list as MCP clients do (a fresh server each time); spawn → result: the whole first case",
      `type_check: generated 200-file TypeScript project, bundled TypeScript ${JSON.parse(fs.readFileSync(path.join(REPO, "node_modules/typescript/package.json"), "utf8")).version} on both sides; tsc printed ${tscErrors} errors, the servers ${[...issues].join("/")} issues`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { title: "Cold paths: start + initialize, first type_check", rows, notes };
}
