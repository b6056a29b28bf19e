// Core overheads: what the protocol + pipeline add to a call, and memory under a 1 GiB output.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms, timeIt } from "./stats.mjs";

/** A tool result's JSON: its text content (structuredContent only comes with an outputSchema). */
const resultJson = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = (p) => import(path.join(root, "dist", p));
const N = 50;
// Calls before timing: the server's JIT needs about a hundred calls to settle (medians fall from ~9 to ~4 ms).
const WARMUP = 150;

function project() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-core-")));
  fs.writeFileSync(
    path.join(dir, "app.py"),
    "import os\nimport sys\n\n\ndef main(argv):\n    x = [1,2,\n 3]\n    return sys.argv\n".repeat(20),
  );
  return dir;
}

async function stdioClient(dir, PATH) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(root, "dist/cli.js"),
      "--mode",
      "stdio",
      "--allowed-paths",
      dir,
      "--rate-limit",
      "false",
      "--log-level",
      "error",
      "--audit-log",
      path.join(dir, ".audit.log"),
    ],
    cwd: dir,
    env: { ...process.env, PATH, VIRTUAL_ENV: "" },
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

function vmHwmKb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
}

export default async function run() {
  const dir = project();
  const file = path.join(dir, "app.py");
  const rows = [];
  const notes = [];

  // 1. Embedded ruff lint: adapter alone, engine pipeline in-process, and MCP over stdio.
  const { EmbeddedRuff } = await dist("adapters/python/ruff-embedded.js");
  const ruff = new EmbeddedRuff();
  const adapter = await timeIt(() => ruff.lint(file, dir, undefined, { timeoutMs: 60_000 }), N, WARMUP);
  await ruff.close();
  const { loadConfig } = await dist("config.js");
  const { Engine } = await dist("engine/engine.js");
  const { toolsFor } = await dist("mcp/tools/index.js");
  const { silentLogger } = await dist("log.js");
  const savedPath = process.env.PATH;
  process.env.PATH = "/usr/bin:/bin";
  const engine = new Engine(
    loadConfig(
      ["--allowed-paths", dir, "--rate-limit", "false", "--audit-log", path.join(dir, ".audit-inproc.log")],
      {},
      dir,
    ),
    silentLogger,
    toolsFor(["core"]),
  );
  const inProcess = await timeIt(() => engine.call("lint", { path: file }), N, WARMUP);
  process.env.PATH = savedPath;
  const { client } = await stdioClient(dir, "/usr/bin:/bin");
  const overStdio = await timeIt(
    () => client.callTool({ name: "lint", arguments: { path: file } }),
    N,
    WARMUP,
  );
  await client.close();
  rows.push({ case: "lint, embedded ruff: adapter only", median_ms: ms(median(adapter)), n: N });
  rows.push({ case: "lint, embedded ruff: engine.call in-process", median_ms: ms(median(inProcess)), n: N });
  rows.push({ case: "lint, embedded ruff: MCP over stdio (warm)", median_ms: ms(median(overStdio)), n: N });
  notes.push(
    `protocol + pipeline cost per call (stdio − adapter): ${ms(median(overStdio) - median(adapter))} ms`,
  );

  // 2. A spawned tool: black --check through the server vs run directly.
  if (spawnSync("black", ["--version"]).status === 0) {
    const direct = await timeIt(
      () => new Promise((r) => spawn("black", ["--check", "--", file], { stdio: "ignore" }).on("exit", r)),
      N,
      2,
    );
    const { client: c2 } = await stdioClient(dir, process.env.PATH);
    const viaServer = await timeIt(
      () => c2.callTool({ name: "format_check", arguments: { path: file, formatter: "black" } }),
      N,
      2,
    );
    await c2.close();
    rows.push({ case: "black --check: spawned directly", median_ms: ms(median(direct)), n: N });
    rows.push({ case: "black --check: format_check over stdio", median_ms: ms(median(viaServer)), n: N });
    notes.push(
      `server overhead on a spawned tool: ${ms(median(viaServer) - median(direct))} ms (${ms(median(viaServer) / median(direct))}×)`,
    );
  } else notes.push("black not installed: spawned-tool overhead not measured");

  // 3. A tool that prints 1 GiB: the server's peak RSS and the size of the result it returns.
  const bin = path.join(dir, ".bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, "flake8"),
    "#!/bin/sh\nhead -c 1073741824 /dev/zero | tr '\\0' x\nexit 1\n",
    { mode: 0o755 },
  );
  const { client: c3, pid } = await stdioClient(dir, `${bin}:/usr/bin:/bin`);
  const before = vmHwmKb(pid);
  const t = performance.now();
  const big = await c3.callTool({ name: "lint", arguments: { path: file, linter: "flake8" } }, undefined, {
    timeout: 600_000,
  });
  const elapsed = performance.now() - t;
  const after = vmHwmKb(pid);
  await c3.close();
  rows.push({
    case: "1 GiB on stdout: server peak RSS before → after (MiB)",
    median_ms: ms(elapsed),
    n: 1,
    value: `${Math.round(before / 1024)} → ${Math.round(after / 1024)}`,
  });
  const result = resultJson(big);
  rows.push({
    case: "1 GiB on stdout: result size (bytes)",
    median_ms: "",
    n: 1,
    value: JSON.stringify(result).length,
  });
  notes.push(
    `1 GiB result: error_type ${result.error_type}, truncated ${result.truncated}, output ${result.output?.length} chars`,
  );
  fs.rmSync(dir, { recursive: true, force: true });
  return { title: "Core: per-call overhead and bounded output", rows, notes };
}
