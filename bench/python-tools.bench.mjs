// Wall time of the Python tools through the real server (stdio, SDK client) on the test fixtures:
// mypy vs the bundled pyright on the same project, pytest on a 12-test suite, bandit on a small package.
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms, timeIt } from "./stats.mjs";

/** A tool result's JSON: its text content (structuredContent only comes with an outputSchema). */
const resultJson = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const fixtures = path.join(root, "test", "fixtures", "python");
const RUNS = 5;

export default async function run() {
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
      fixtures,
      "--audit-log",
      path.join(os.tmpdir(), `mcq-bench-py-${process.pid}.log`),
    ],
    cwd: fixtures,
    stderr: "pipe",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const cases = [
    ["type_check mypy", "type_check", { path: "typecheck-project", checker: "mypy" }],
    ["type_check pyright (bundled)", "type_check", { path: "typecheck-project", checker: "pyright" }],
    ["run_tests (12 tests)", "run_tests", { working_dir: "tests-project" }],
    ["security_scan bandit", "security_scan", { path: "bandit-project/app" }],
  ];
  const rows = [];
  for (const [label, name, args] of cases) {
    let reported = 0;
    const times = await timeIt(async () => {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
      reported = resultJson(r).duration_ms;
    }, RUNS);
    rows.push({
      case: label,
      "median ms (client)": ms(median(times)),
      "last duration_ms (server)": reported,
      runs: RUNS,
    });
  }
  await client.close();
  return {
    title: "Python tools through the server",
    rows,
    notes: [
      "mypy runs through its daemon (dmypy) and pyright through its language server: after the untimed first call every timed call is warm (see python-types.bench.mjs for cold against warm).",
      `${os.cpus().length} CPUs, Node ${process.version}.`,
    ],
  };
}
