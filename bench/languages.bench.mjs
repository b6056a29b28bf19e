// Go, Rust and Ruby through the server (stdio, SDK client) against the same command run directly, side by side
// in one run: RuboCop lint of one file through the warm worker vs spawning `rubocop FILE` (target ≥ 10×), clippy
// and go vet on their fixtures (warm build caches on both sides).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms, timeIt } from "./stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = 15;

function copy(fixture) {
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-lang-"));
  fs.cpSync(path.join(root, "test", "fixtures", fixture), dest, { recursive: true });
  return fs.realpathSync(dest);
}

function have(program) {
  return spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
}

export default async function run() {
  const ruby = copy("ruby/project");
  const rust = copy("rust/lint-crate");
  const go = copy("go/lint-project");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(root, "dist", "cli.js"),
      "--mode",
      "stdio",
      "--log-level",
      "warn",
      "--rate-limit",
      "false",
      "--allowed-paths",
      [ruby, rust, go].join(","),
      "--audit-log",
      path.join(os.tmpdir(), `mcq-bench-lang-${process.pid}.log`),
    ],
    cwd: ruby,
    stderr: "pipe",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const call = (args) => client.callTool({ name: "lint", arguments: args }, undefined, { timeout: 300_000 });
  const cases = [
    [
      "rubocop app.rb",
      "rubocop",
      { path: path.join(ruby, "app.rb"), linter: "rubocop" },
      ["rubocop", "--format", "json", "app.rb"],
      ruby,
    ],
    [
      "clippy lint-crate",
      "cargo",
      { path: rust, linter: "clippy" },
      ["cargo", "clippy", "--message-format=json", "--quiet"],
      rust,
    ],
    ["go vet lint-project", "go", { path: go, linter: "govet" }, ["go", "vet", "-json", "./..."], go],
  ];
  const rows = [];
  for (const [label, program, args, argv, cwd] of cases) {
    if (!have(program)) {
      rows.push({ case: label, note: `${program} not installed` });
      continue;
    }
    await call(args); // warm the worker / build cache on the server's side
    spawnSync(argv[0], argv.slice(1), {
      cwd,
      env: { ...process.env, CARGO_TARGET_DIR: path.join(os.tmpdir(), "mcq-bench-direct-target") },
    });
    const server = [];
    const direct = [];
    // Interleaved, so both sides see the same machine load.
    for (let i = 0; i < RUNS; i++) {
      server.push(...(await timeIt(() => call(args), 1)));
      direct.push(
        ...(await timeIt(async () => {
          spawnSync(argv[0], argv.slice(1), {
            cwd,
            env: { ...process.env, CARGO_TARGET_DIR: path.join(os.tmpdir(), "mcq-bench-direct-target") },
          });
        }, 1)),
      );
    }
    rows.push({
      case: label,
      "server median ms": ms(median(server)),
      "direct median ms": ms(median(direct)),
      "direct / server": (median(direct) / median(server)).toFixed(1),
      runs: RUNS,
    });
  }
  await client.close();
  return {
    title: "Go, Rust and Ruby: through the server vs the command run directly",
    rows,
    notes: [
      "rubocop: the server's warm Ruby worker keeps RuboCop loaded; the direct side spawns `rubocop --format json FILE` (with its result cache).",
      "clippy and go vet: both sides reuse their build caches; the server adds the MCP round trip and parsing.",
    ],
  };
}
