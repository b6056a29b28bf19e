// The result cache (issue 29), each target a ratio measured side by side in one run, edits interleaved:
// - a generated monorepo (bench/lib/monorepo.mjs: 5,000 Python and 5,000 TypeScript files, real configs):
//   a whole-project `lint` (ruff, eslint) through a warm server after a one-file edit against `ruff check`
//   with its cache and `eslint --cache` on the same edit; `check --only ruff,ruff-format,eslint,prettier`
//   (a fresh process, the cache on disk warm) against those tools with their caches, one after another;
// - the per-call path: a warm `lint` / `format_check` of one edited file (ruff CLI) against ruff direct, and
//   a warm call of each other CLI-backed tool (gofmt, go vet, staticcheck, rustfmt, clippy, ty) after an
//   edit of a small project against the tool's own command on the same edit;
// - a hit in the shared cache (turborepo-remote-cache, local storage) against a hit in the local cache,
//   each in a fresh server with its first call.
// BENCH_MONO_FILES (default 5000 per language) and BENCH_EDITS (default 5) scale it down.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { generateMonorepo } from "./lib/monorepo.mjs";
import { median, ms } from "./stats.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(repo, "dist", "cli.js");
const VENV = path.join(repo, ".tools", "venv", "bin");
const GO_TOOLS = path.join(repo, ".tools", "go", "bin");
const PATH = `${VENV}:${GO_TOOLS}:${process.env.PATH}`;
const FILES = Number(process.env.BENCH_MONO_FILES ?? 5000);
const EDITS = Number(process.env.BENCH_EDITS ?? 5);
const ESLINT = path.join(repo, "node_modules", "eslint", "bin", "eslint.js");
const PRETTIER = path.join(repo, "node_modules", "prettier", "bin", "prettier.cjs");
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");

function tmp(prefix) {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

async function server(dir, extra = [], env = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      CLI,
      "--mode",
      "stdio",
      "--allowed-paths",
      dir,
      "--rate-limit",
      "false",
      "--log-level",
      "error",
      "--audit-log",
      path.join(tmp("mcq-bench-audit-"), "audit.log"),
      "--timeout",
      "3600",
      ...extra,
    ],
    cwd: dir,
    env: { ...process.env, PATH, ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return {
    call: async (name, args) => {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 3_600_000 });
      if (r.structuredContent) return r.structuredContent;
      // Results without an output schema come as their JSON text.
      const text = r.content?.[0]?.text;
      if (r.isError || typeof text !== "string")
        throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 2000)}`);
      return JSON.parse(text);
    },
    close: () => client.close(),
  };
}

const timed = async (fn) => {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
};

function run(program, args, cwd) {
  const t = performance.now();
  const r = spawnSync(program, args, { cwd, env: { ...process.env, PATH }, maxBuffer: 1 << 30 });
  if (r.status === null || r.status > 2) throw new Error(`${program} ${args.join(" ")}: ${r.stderr}`);
  return performance.now() - t;
}

/** An edit that changes a file's findings: a new unused import / variable, then the next file. */
/** `check` of the four per-file tools on the monorepo, the result cache on. */
function checkArgs(root, xdg, extra = []) {
  return [
    CLI,
    "check",
    root,
    ...extra,
    "--only",
    "ruff,ruff-format,eslint,prettier",
    "--result-cache",
    "true",
    "--audit-log",
    path.join(xdg, "audit.log"),
    "--timeout",
    "3600",
  ];
}

function editor(files, line) {
  let n = 0;
  return () => fs.appendFileSync(files[(n++ * 7919) % files.length], line(n));
}

async function monorepo(rows, notes) {
  const { root, files } = generateMonorepo({ pyFiles: FILES, tsFiles: FILES, repo });
  notes.push(
    `monorepo: ${FILES} Python + ${FILES} TypeScript files in ${root} (ruff ${spawnSync(
      "ruff",
      ["--version"],
      { env: { ...process.env, PATH } },
    )
      .stdout.toString()
      .trim()}, eslint ${JSON.parse(fs.readFileSync(path.join(repo, "node_modules/eslint/package.json"))).version})`,
  );
  const xdg = tmp("mcq-bench-xdg-");
  const s = await server(root, ["--result-cache", "true"], { XDG_CACHE_HOME: xdg });
  // First runs: the server's cache and the tools' own caches are filled.
  const [ruffFirst] = await timed(() => s.call("lint", { path: root, linter: "ruff" }));
  const [eslintFirst] = await timed(() => s.call("lint", { path: root, linter: "eslint" }));
  await s.call("format_check", { path: root, language: "python" });
  await s.call("format_check", { path: root, formatter: "prettier" });
  run("ruff", ["check", "--output-format", "json-lines", "."], root);
  run(process.execPath, [ESLINT, "--cache", "--format", "json", "."], root);
  run("ruff", ["format", "--check", "."], root);
  run(process.execPath, [PRETTIER, "--check", "--cache", "."], root);
  notes.push(
    `first whole-project lint through the server (cold cache): ruff ${ms(ruffFirst)} ms, eslint ${ms(eslintFirst)} ms`,
  );

  const py = editor(files.py, (n) => `\nimport re as re${n}\n`);
  const ts = editor(files.ts, (n) => `\nconst edit${n} = ${n};\n`);
  // The check daemon started, and the cache it keeps in memory filled, before anything is timed.
  run(process.execPath, checkArgs(root, xdg, ["--daemon"]), root);
  const t = {
    ruffServer: [],
    ruffDirect: [],
    eslintServer: [],
    eslintDirect: [],
    check: [],
    daemon: [],
    byHand: [],
  };
  let marker = "";
  for (let i = 0; i < EDITS; i++) {
    py();
    const [a, r] = await timed(() => s.call("lint", { path: root, linter: "ruff" }));
    t.ruffServer.push(a);
    marker = r.cached ?? JSON.stringify(r).slice(0, 300);
    py();
    t.ruffDirect.push(run("ruff", ["check", "--output-format", "json-lines", "."], root));
    ts();
    t.eslintServer.push((await timed(() => s.call("lint", { path: root, linter: "eslint" })))[0]);
    ts();
    t.eslintDirect.push(run(process.execPath, [ESLINT, "--cache", "--format", "json", "."], root));
    py();
    ts();
    t.check.push(run(process.execPath, checkArgs(root, xdg), root));
    py();
    ts();
    t.daemon.push(run(process.execPath, checkArgs(root, xdg, ["--daemon"]), root));
    py();
    ts();
    t.byHand.push(
      run("ruff", ["check", "--output-format", "json-lines", "."], root) +
        run("ruff", ["format", "--check", "."], root) +
        run(process.execPath, [ESLINT, "--cache", "--format", "json", "."], root) +
        run(process.execPath, [PRETTIER, "--check", "--cache", "."], root),
    );
  }
  await s.close();
  run(process.execPath, [CLI, "check", "--daemon-stop"], root);
  const row = (label, server, direct, directLabel) =>
    rows.push({
      case: label,
      "server median ms": ms(median(server)),
      [`direct median ms`]: ms(median(direct)),
      direct: directLabel,
      "direct / server": (median(direct) / median(server)).toFixed(2),
      runs: server.length,
    });
  row("monorepo lint ruff after a one-file edit", t.ruffServer, t.ruffDirect, "ruff check (its cache)");
  row("monorepo lint eslint after a one-file edit", t.eslintServer, t.eslintDirect, "eslint --cache");
  row(
    "monorepo check (fresh process) after two edits",
    t.check,
    t.byHand,
    "ruff, ruff format, eslint --cache, prettier --cache",
  );
  row(
    "monorepo check --daemon after two edits",
    t.daemon,
    t.byHand,
    "ruff, ruff format, eslint --cache, prettier --cache",
  );
  notes.push(`the server's ruff lint after an edit said cached: ${marker}`);
  fs.rmSync(root, { recursive: true, force: true });
}

async function perCall(rows) {
  const dir = tmp("mcq-bench-percall-");
  const file = path.join(dir, "app.py");
  const src = "import os\nimport sys\n\n\ndef main(argv):\n    x = [1,2,\n 3]\n    return sys.argv\n".repeat(
    20,
  );
  fs.writeFileSync(file, src);
  for (const cache of ["false", "true"]) {
    const s = await server(dir, ["--result-cache", cache], { XDG_CACHE_HOME: tmp("mcq-bench-xdg-") });
    for (const [tool, args, direct] of [
      [
        "lint",
        { path: file, linter: "ruff" },
        ["check", "--no-fix", "--no-cache", "--output-format", "json-lines", "--", file],
      ],
      ["format_check", { path: file, language: "python" }, ["format", "--check", "--no-cache", "--", file]],
    ]) {
      for (let i = 0; i < 20; i++) await s.call(tool, args);
      const a = [];
      const b = [];
      for (let i = 0; i < 40; i++) {
        fs.writeFileSync(file, `${src}\nx${i} = ${i}\n`);
        a.push((await timed(() => s.call(tool, args)))[0]);
        b.push(run("ruff", direct, dir));
      }
      rows.push({
        case: `warm ${tool} of one edited file (ruff CLI), result cache ${cache === "true" ? "on" : "off"}`,
        "server median ms": ms(median(a)),
        "direct median ms": ms(median(b)),
        direct: `ruff ${direct[0]}`,
        "direct / server": (median(b) / median(a)).toFixed(2),
        "target ms (1.2x + 5)": ms(median(b) * 1.2 + 5),
        runs: a.length,
      });
    }
    await s.close();
  }
}

const have = (program) =>
  spawnSync("sh", ["-c", `command -v ${program}`], { env: { ...process.env, PATH } }).status === 0;

/** A small Go module, Rust crate and Python file in one folder, for the warm calls of the other CLI tools. */
function smallProjects() {
  const dir = tmp("mcq-bench-percall-tools-");
  const put = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  put("go.mod", "module example.com/bench\n\ngo 1.22\n");
  put("main.go", 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n');
  put("crate/Cargo.toml", '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n');
  put("crate/src/main.rs", 'fn main() {\n    println!("hi");\n}\n');
  put("app.py", "import os\nimport sys\n\n\ndef main(argv):\n    return sys.argv\n".repeat(20));
  return dir;
}

/** Each CLI-backed tool but ruff: a warm call after an edit, against the tool's own command on that edit. */
async function perCallTools(rows) {
  const dir = smallProjects();
  const at = (rel) => path.join(dir, rel);
  const goEdit = (i) => `\nvar x${i} = ${i}\n`;
  const rustEdit = (i) => `\n#[allow(dead_code)]\nconst X${i}: i32 = ${i};\n`;
  const cases = [
    [
      "gofmt",
      "format_check",
      { path: at("main.go"), language: "go" },
      ["gofmt", "-l", at("main.go")],
      dir,
      "main.go",
      goEdit,
    ],
    ["go vet", "lint", { path: dir, linter: "govet" }, ["go", "vet", "./..."], dir, "main.go", goEdit],
    [
      "staticcheck",
      "lint",
      { path: dir, linter: "staticcheck" },
      ["staticcheck", "./..."],
      dir,
      "main.go",
      goEdit,
    ],
    [
      "rustfmt",
      "format_check",
      { path: at("crate/src/main.rs"), language: "rust" },
      ["rustfmt", "--check", "--edition", "2021", at("crate/src/main.rs")],
      at("crate"),
      "crate/src/main.rs",
      rustEdit,
    ],
    [
      "clippy",
      "lint",
      { path: at("crate"), linter: "clippy" },
      ["cargo", "clippy", "--quiet"],
      at("crate"),
      "crate/src/main.rs",
      rustEdit,
    ],
    [
      "ty",
      "type_check",
      { path: at("app.py"), checker: "ty" },
      ["ty", "check", at("app.py")],
      dir,
      "app.py",
      (i) => `\nx${i} = ${i}\n`,
    ],
  ];
  // The sandbox's share: a second server with --sandbox off, its calls interleaved with the first's and the
  // command's (each on an edit of its own), so all three are measured side by side.
  const sandboxed = await server(dir, ["--result-cache-dir", tmp("mcq-bench-rc-"), "--sandbox", "auto"]);
  const bare = await server(dir, ["--result-cache-dir", tmp("mcq-bench-rc-"), "--sandbox", "off"]);
  for (const [name, tool, args, direct, cwd, rel, edit] of cases) {
    const label = `warm ${tool} of one edited file (${name})`;
    if (!have(direct[0])) {
      rows.push({ case: label, direct: `${direct[0]} not installed` });
      continue;
    }
    const original = fs.readFileSync(at(rel), "utf8");
    const command = () => run(direct[0], direct.slice(1), cwd);
    for (let i = 0; i < 5; i++) {
      await sandboxed.call(tool, args);
      await bare.call(tool, args);
      command();
    }
    const t = { sandboxed: [], bare: [], direct: [] };
    for (let i = 0; i < 15; i++) {
      fs.writeFileSync(at(rel), original + edit(3 * i));
      t.sandboxed.push((await timed(() => sandboxed.call(tool, args)))[0]);
      fs.writeFileSync(at(rel), original + edit(3 * i + 1));
      t.bare.push((await timed(() => bare.call(tool, args)))[0]);
      fs.writeFileSync(at(rel), original + edit(3 * i + 2));
      t.direct.push(command());
    }
    fs.writeFileSync(at(rel), original);
    rows.push({
      case: label,
      "server median ms": ms(median(t.sandboxed)),
      "--sandbox off ms": ms(median(t.bare)),
      "direct median ms": ms(median(t.direct)),
      direct: direct.map((x) => (x.startsWith("/") ? path.relative(dir, x) : x)).join(" "),
      "direct / server": (median(t.direct) / median(t.sandboxed)).toFixed(2),
      "target ms (1.2x + 5)": ms(median(t.direct) * 1.2 + 5),
      runs: t.sandboxed.length,
    });
  }
  await sandboxed.close();
  await bare.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

async function startRemote() {
  const pkg = createRequire(import.meta.url).resolve("turborepo-remote-cache/package.json");
  const child = spawn(process.execPath, [path.join(path.dirname(pkg), "dist", "cli.js")], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: "0",
      TURBO_TOKEN: "bench",
      STORAGE_PROVIDER: "local",
      STORAGE_PATH: tmp("mcq-bench-turbo-"),
      STORAGE_PATH_USE_TMP_FOLDER: "false",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise((resolve, reject) => {
    const on = (c) => {
      out += c;
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    };
    child.stdout.on("data", on);
    child.stderr.on("data", on);
    child.once("exit", () => reject(new Error(out)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

async function remoteVsLocal(rows, notes) {
  const { root } = generateMonorepo({ pyFiles: 500, tsFiles: 0, repo });
  const remote = await startRemote();
  const flags = [
    "--result-cache",
    "true",
    "--remote-cache-url",
    remote.url,
    "--remote-cache-token",
    "bench",
    "--remote-cache-team",
    "bench",
    "--remote-cache-secret",
    "s3cret",
  ];
  const warmXdg = tmp("mcq-bench-xdg-");
  const first = await server(root, flags, { XDG_CACHE_HOME: warmXdg });
  await first.call("lint", { path: root, linter: "ruff" });
  await first.close(); // sends the entries to the remote
  const local = [];
  const shared = [];
  let markers = [];
  for (let i = 0; i < 7; i++) {
    for (const [list, extra, xdg] of [
      [local, ["--result-cache", "true"], warmXdg],
      [shared, flags, tmp("mcq-bench-xdg-")],
    ]) {
      const s = await server(root, extra, { XDG_CACHE_HOME: xdg });
      const [t, r] = await timed(() => s.call("lint", { path: root, linter: "ruff" }));
      list.push(t);
      markers.push(r.cached);
      await s.close();
    }
  }
  remote.stop();
  rows.push({
    case: "first lint of a fresh server, 500 unchanged files: hit from the remote vs from the local cache",
    "server median ms": ms(median(shared)),
    "direct median ms": ms(median(local)),
    direct: "local hit (warm disk cache)",
    "direct / server": (median(local) / median(shared)).toFixed(2),
    runs: shared.length,
  });
  notes.push(`remote vs local: every call said cached ${[...new Set(markers)].join(", ")}`);
  fs.rmSync(root, { recursive: true, force: true });
}

export default async function runBench() {
  const rows = [];
  const notes = [`load average at start ${load()} (2 cores, shared)`];
  // BENCH_PARTS=percall,percall-tools,remote,monorepo (default all) runs a part alone.
  const parts = (process.env.BENCH_PARTS ?? "percall,percall-tools,remote,monorepo").split(",");
  if (parts.includes("percall")) await perCall(rows);
  if (parts.includes("percall-tools")) await perCallTools(rows);
  if (parts.includes("remote")) await remoteVsLocal(rows, notes);
  if (parts.includes("monorepo")) await monorepo(rows, notes);
  notes.push(`load average at end ${load()}`);
  return { title: "Result cache: the server against the tools with their own caches", rows, notes };
}
