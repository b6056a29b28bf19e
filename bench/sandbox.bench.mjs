// What the bubblewrap sandbox (issue 24) costs, side by side in one run, calls alternating between the two:
// - spawn overhead: `true` through the bounded runner, unsandboxed and in the read-only profile the runner
//   builds (bwrap ... -- true);
// - a warm lint: ESLint in its warm worker, which starts inside the sandbox once, so its calls pay nothing;
// - a cold type_check: mypy run as a fresh process each call (--warm-checkers false), which pays the sandbox's
//   start every time.
// Two built servers (dist/cli.js) over stdio, one with --sandbox off and one with --sandbox required.
// `node --expose-gc bench/sandbox.bench.mjs` alone, or `npm run bench -- sandbox`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms } from "./stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 15);
const resultJson = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

function copy(fixture) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-sbx-"));
  fs.cpSync(path.join(root, "test", "fixtures", fixture), dir, { recursive: true });
  return dir;
}

async function server(mode, project) {
  const audit = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-audit-")), "audit.log");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(root, "dist", "cli.js"), "--mode", "stdio", "--log-level", "warn"]
      .concat(["--sandbox", mode, "--allowed-paths", project, "--audit-log", audit])
      .concat(["--result-cache", "false", "--warm-checkers", "false", "--rate-limit", "false"]),
    cwd: project,
    env: process.env,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return {
    call: async (name, args) =>
      resultJson(await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 })),
    close: () => client.close(),
  };
}

/** Alternates `a` and `b` RUNS times after one untimed call each; medians in ms. */
async function sideBySide(a, b, runs = RUNS) {
  await a();
  await b();
  const ta = [];
  const tb = [];
  for (let i = 0; i < runs; i++) {
    for (const [fn, out] of i % 2
      ? [
          [b, tb],
          [a, ta],
        ]
      : [
          [a, ta],
          [b, tb],
        ]) {
      globalThis.gc?.();
      const t = performance.now();
      await fn();
      out.push(performance.now() - t);
    }
  }
  return [median(ta), median(tb)];
}

const row = (what, off, on) => ({
  what,
  "off (ms)": ms(off),
  "sandboxed (ms)": ms(on),
  ratio: Math.round((on / off) * 100) / 100,
  "added (ms)": ms(on - off),
});

export default async function run() {
  const { runBounded } = await import(pathToFileURL(path.join(root, "dist", "exec", "runner.js")).href);
  const { probeSandbox } = await import(
    pathToFileURL(path.join(root, "dist", "exec", "sandbox", "launch.js")).href
  );
  const status = probeSandbox();
  if (!status.available) throw new Error(`bubblewrap unavailable: ${status.reason}`);
  const rows = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-true-"));
  const spawnTrue = (mode) => () =>
    runBounded({
      program: "true",
      args: [],
      cwd: dir,
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
      sandbox: { mode, request: { kind: "read", roots: [dir] } },
    });
  rows.push(row("spawn `true` (runner)", ...(await sideBySide(spawnTrue("off"), spawnTrue("required"), 50))));

  const js = copy("js/agent-eslint");
  const [jsOff, jsOn] = [await server("off", js), await server("required", js)];
  const lint = (s) => () => s.call("lint", { path: js, linter: "eslint" });
  rows.push(row("warm lint (ESLint worker)", ...(await sideBySide(lint(jsOff), lint(jsOn)))));
  await jsOff.close();
  await jsOn.close();

  const py = copy("python/typecheck-project");
  const [pyOff, pyOn] = [await server("off", py), await server("required", py)];
  const check = (s) => () => s.call("type_check", { path: py, checker: "mypy" });
  rows.push(
    row("cold type_check (mypy)", ...(await sideBySide(check(pyOff), check(pyOn), Math.min(RUNS, 7)))),
  );
  await pyOff.close();
  await pyOn.close();
  return {
    title: `sandbox: --sandbox off vs required (bubblewrap ${status.version}), medians of alternating calls`,
    rows,
    notes: [
      `${RUNS} runs per row (spawn: 50, cold type_check: ${Math.min(RUNS, 7)}), after one untimed call of each`,
      "the warm worker starts in its sandbox once; its calls cross no sandbox boundary",
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const report = await run();
  console.log(`\n## ${report.title}\n`);
  console.table(report.rows);
  for (const n of report.notes) console.log(`- ${n}`);
}
