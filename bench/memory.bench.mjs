// Memory over a long session, before (the baseline: main, built apart) and after (this checkout), side by
// side: two stdio servers get the same 2,000 mixed calls, alternately. The server's RSS is read from /proc
// at 0, 50, 500 and 2,000 calls; its warm workers (child processes) are measured apart. The latency of
// the embedded-ruff calls after the first 50 is compared with their steady-state median (calls 1,000+).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseline } from "./lib/baseline.mjs";
import { wasmControl } from "./lib/wasm-control.mjs";
import { moduleSource } from "./js.bench.mjs";
import { median, ms } from "./stats.mjs";

/** A tool result's JSON: its text content (structuredContent only comes with an outputSchema). */
const resultJson = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CALLS = Number(process.env.MEMORY_BENCH_CALLS ?? 2000);
const CHECKPOINTS = [0, 50, 500, 2000].filter((n) => n <= CALLS);
const PY_UNIT = "import os\nimport sys\n\n\ndef main(argv):\n    x = [1,2,\n 3]\n    return sys.argv\n";

function project() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-memory-bench-")));
  fs.mkdirSync(path.join(dir, "py"));
  fs.writeFileSync(path.join(dir, "py", "app.py"), PY_UNIT.repeat(25)); // 200 lines
  fs.writeFileSync(path.join(dir, "py", "other.py"), PY_UNIT.repeat(5));
  fs.mkdirSync(path.join(dir, "src"));
  for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(dir, "src", `m${i}.ts`), moduleSource(i));
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "mem-bench", private: true, type: "module" }),
  );
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        skipLibCheck: true,
        noEmit: true,
      },
      include: ["src"],
    }),
  );
  fs.writeFileSync(
    path.join(dir, "eslint.config.mjs"),
    'import tseslint from "typescript-eslint";\nexport default tseslint.config(...tseslint.configs.recommended);\n',
  );
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.writeFileSync(
    path.join(dir, "README.md"),
    "# Bench\n\n## Usage\n\nSee [app](py/app.py), [usage](#usage), [m1](src/m1.ts) and [missing](nope.md).\n",
  );
  return dir;
}

/** The mixed call sequence: 10 calls per round, get_status every 4th round. */
function callFor(i) {
  const round = Math.floor(i / 10);
  switch (i % 10) {
    case 0:
      return ["lint", { path: "py/app.py" }, "ruff"];
    case 1:
      return ["format_check", { path: "py/app.py" }, "ruff"];
    case 2:
      return ["lint", { path: ".", linter: "eslint", files: ["src/m3.ts"] }];
    case 3:
      return ["type_check", { path: "." }];
    case 4:
      return ["check_markdown_links", { path: "README.md", check_external: false }];
    case 5:
      return ["lint", { path: "py/other.py" }, "ruff"];
    case 6:
      return ["format_check", { path: "py" }, "ruff"];
    case 7:
      return ["get_audit_log", {}];
    case 8:
      return ["lint", { path: "py/app.py" }, "ruff"];
    default:
      return round % 4 === 3 ? ["get_status", {}] : ["format_check", { path: "py/app.py" }, "ruff"];
  }
}

function statusKb(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Direct children of `pid` (the warm workers), from /proc. */
function childrenOf(pid) {
  const out = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

async function connect(cli, dir) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
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
      path.join(dir, `.audit-${path.basename(path.dirname(path.dirname(cli)))}.log`),
    ],
    cwd: dir,
    env: { ...process.env, PATH: "/usr/bin:/bin", VIRTUAL_ENV: "" },
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  await client.listTools();
  return { client, pid: transport.pid, rss: {}, workers: {}, ruffTimes: [] };
}

const mb = (kb) => Math.round(kb / 102.4) / 10;

export default async function run() {
  const base = baseline(REPO);
  const dir = project();
  const sides = [
    ...(base ? [[`baseline ${base.ref} ${base.commit}`, base.cli]] : []),
    ["this checkout", path.join(REPO, "dist/cli.js")],
  ];
  const servers = [];
  // The machine's scatter at the same moments: a bare wasm check of app.py after each lint of it.
  const control = wasmControl(PY_UNIT.repeat(25));
  const controlTimes = [];
  try {
    for (const [, cli] of sides) servers.push(await connect(cli, dir));
    const measure = (n) => {
      for (const s of servers) {
        s.rss[n] = statusKb(s.pid, "VmRSS");
        s.workers[n] = childrenOf(s.pid).reduce((sum, p) => sum + statusKb(p, "VmRSS"), 0);
      }
    };
    measure(0);
    for (let i = 0; i < CALLS; i++) {
      const [name, args, kind] = callFor(i);
      for (const s of servers) {
        const t = performance.now();
        const r = await s.client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
        const elapsed = performance.now() - t;
        if (!resultJson(r).success)
          throw new Error(`${name} failed: ${JSON.stringify(resultJson(r)).slice(0, 500)}`);
        if (kind === "ruff") s.ruffTimes.push({ i, elapsed, call: `${name} ${args.path}` });
      }
      if (name === "lint" && args.path === "py/app.py")
        controlTimes.push({ i, elapsed: await control.time(), call: "bare Workspace.check of py/app.py" });
      if (CHECKPOINTS.includes(i + 1)) measure(i + 1);
      if ((i + 1) % 250 === 0) process.stderr.write(`  ${i + 1} calls\n`);
    }
    const rows = [];
    for (const [k, [name]] of sides.entries()) {
      const s = servers[k];
      const row = { server: name };
      for (const n of CHECKPOINTS) row[`rss_mb@${n}`] = mb(s.rss[n]);
      for (const n of CHECKPOINTS) row[`workers_mb@${n}`] = mb(s.workers[n]);
      rows.push(row);
    }
    // Each kind of embedded-ruff call (lint of the 200-line file, format_check of a folder, ...) against
    // its own steady-state median: the kinds differ in cost, so one median over all of them would not do.
    const latency = [];
    const timed = [
      ...sides.map(([name], k) => [name, servers[k].ruffTimes]),
      ["control: a plain script, same moments", controlTimes],
    ];
    for (const [name, ruffTimes] of timed) {
      const byCall = new Map();
      for (const t of ruffTimes) byCall.set(t.call, [...(byCall.get(t.call) ?? []), t]);
      for (const [call, times] of byCall) {
        const steady = median(times.filter((t) => t.i >= CALLS / 2).map((t) => t.elapsed));
        const first50 = times.filter((t) => t.i < 50).map((t) => t.elapsed);
        const after = times.filter((t) => t.i >= 50).map((t) => t.elapsed);
        const windows = [];
        for (let w = 50; w < CALLS; w += 100) {
          const inWindow = times.filter((t) => t.i >= w && t.i < w + 100).map((t) => t.elapsed);
          if (inWindow.length) windows.push(median(inWindow));
        }
        const within = (f) => after.filter((e) => Math.abs(e / steady - 1) <= f).length / after.length;
        latency.push({
          server: name,
          call,
          steady_median_ms: ms(steady),
          first_50_median_ms: ms(median(first50)),
          worst_100_call_window_median_vs_steady: `${(Math.max(...windows.map((w) => Math.abs(w / steady - 1))) * 100).toFixed(0)}%`,
          calls_after_50_within_20pct: `${(within(0.2) * 100).toFixed(0)}%`,
          p90_after_50_ms: ms([...after].sort((a, b) => a - b)[Math.floor(after.length * 0.9)]),
        });
      }
    }
    return {
      title: `Memory over ${CALLS} mixed calls (server RSS, warm workers apart) and embedded-ruff latency`,
      rows: [...rows, ...latency],
      notes: [
        "calls per round of 10: embedded ruff lint ×3 and format_check ×3 (one of a directory), ESLint lint, tsc type_check, check_markdown_links, get_audit_log; get_status replaces a format_check every 4th round",
        "the two servers get each call alternately; RSS is VmRSS from /proc; workers_mb sums the server's child processes (ESLint, TypeScript workers)",
        "embedded-ruff latency, per kind of call: end to end over stdio; steady median = median of that kind's calls in the second half",
        "control: a separate Node process compiles the same wasm module with Liftoff only and times one bare Workspace.check of py/app.py right after each server lint of that file; its scatter is the machine's, with no server, MCP or stdio in it",
      ],
    };
  } finally {
    control.close();
    for (const s of servers) await s.client.close().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
