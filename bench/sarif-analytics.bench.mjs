// The SARIF analytics' cost on a 5,000-result log (ours, 100 files): normalizing it, the risk summary, and a
// trend against a baseline with two lines inserted above every finding (every result matched by fingerprint).
// Then the trend's growth with n + n results on one line and rule, each with its own fingerprint (half of them
// shared), n = 5,000, 10,000, 20,000: linear; matching by queue scans was quadratic (main at bb5616e, side by
// side on this machine: 0.35 s, 1.2 s, 11.1 s; the issue saw 33 s). In process, on the built pure functions.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms, timeIt } from "./stats.mjs";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "dist");
const load = (m) => import(pathToFileURL(path.join(dist, m)).href);
const N = 15;

function log(sarifLog, shift) {
  const findings = [];
  for (let i = 0; i < 5000; i++) {
    const file = `/bench/pkg/mod${i % 100}.py`;
    findings.push({
      tool: "ruff",
      file,
      path: `pkg/mod${i % 100}.py`,
      line: Math.floor(i / 100) + 1 + shift,
      column: 1,
      rule_id: ["F401", "E711", "E501", "B006"][i % 4],
      severity: i % 3 ? "error" : "warning",
      message: `finding ${Math.floor(i / 4)}`,
      fingerprint: `mcq/v1:${((i * 2654435761) >>> 0).toString(16).padStart(32, "0")}:0`,
    });
  }
  return sarifLog([
    {
      tool: "ruff",
      informationUri: "https://docs.astral.sh/ruff/",
      findings,
      root: "/bench",
      executionSuccessful: true,
    },
  ]);
}

export default async function run() {
  const { sarifLog } = await load("findings/sarif.js");
  const { normalizeSarif } = await load("sarif-analytics/normalize.js");
  const { riskSummary } = await load("sarif-analytics/risk.js");
  const { trendAnalysis } = await load("sarif-analytics/trend.js");
  const before = log(sarifLog, 0);
  const after = log(sarifLog, 2);
  const text = JSON.stringify(after);
  const advice = () => ({ bundle_hash: "none", mapped: false, policies: [], skills: [] });
  const nb = normalizeSarif(before);
  const na = normalizeSarif(text);
  const rows = [
    {
      step: "normalize (JSON text, 5,000 results)",
      median_ms: ms(median(await timeIt(() => normalizeSarif(text), N))),
    },
    { step: "risk summary", median_ms: ms(median(await timeIt(() => riskSummary(na, advice), N))) },
    {
      step: "trend (all matched by fingerprint)",
      median_ms: ms(median(await timeIt(() => trendAnalysis(nb, na, []), N))),
    },
  ];
  // n + n results with one rule, file and line, each with its own fingerprint; the current shares half.
  const sameLine = (n, offset) =>
    normalizeSarif({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "ruff" } },
          results: Array.from({ length: n }, (_, i) => ({
            ruleId: "E711",
            level: "error",
            message: { text: "Comparison to `None`" },
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: "app.py", uriBaseId: "%SRCROOT%" },
                  region: { startLine: 7, startColumn: 1 },
                },
              },
            ],
            partialFingerprints: { "mcq/v1": `mcq/v1:${(i + offset).toString(16).padStart(32, "0")}:0` },
          })),
        },
      ],
    });
  for (const n of [5000, 10000, 20000]) {
    const b = sameLine(n, 0);
    const c = sameLine(n, n / 2);
    rows.push({
      step: `trend, ${n} + ${n} results on one line, half matching`,
      median_ms: ms(median(await timeIt(() => trendAnalysis(b, c, []), 5))),
    });
  }
  const wait = await waitDuringSummary();
  return {
    title: "SARIF analytics, 5,000 results",
    rows: [...rows, ...wait.rows],
    notes: [`log size ${text.length} bytes; medians of ${N}`, ...wait.notes],
  };
}

/** A log of `n` results over 500 files and eight rules, two mapped by the shipped policies. */
function manyResults(n) {
  const rules = ["F401", "E711", "E501", "B006", "S101", "S602", "no-unused-vars", "TS2322"];
  return {
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "ruff" } },
        results: Array.from({ length: n }, (_, i) => ({
          ruleId: rules[i % 8],
          level: i % 3 ? "error" : "warning",
          message: { text: `finding ${i} in module` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: `pkg/m${i % 500}.py`, uriBaseId: "%SRCROOT%" },
                region: { startLine: 1 + (i % 900), startColumn: 1 },
              },
            },
          ],
        })),
      },
    ],
  };
}

/**
 * The server answering while it summarises a 75,000-result log (16.1 MiB inline): from the moment it is sent,
 * a small risk summary is asked every 20 ms until the large one answers; the longest of those waits (the
 * request's own reading included) is what any call waited. Beside it, the same summary computed inline in this process: what the event loop would be
 * blocked for if it ran there.
 */
async function waitDuringSummary() {
  const { normalizeSarif } = await load("sarif-analytics/normalize.js");
  const { riskSummary } = await load("sarif-analytics/risk.js");
  const { compileBundle } = await load("policy/compile.js");
  const { adviceOf } = await load("sarif-analytics/advice.js");
  const big = manyResults(75_000);
  const text = JSON.stringify(big);
  const bundle = await compileBundle({ allowLoosening: false });
  const inline = await timeIt(() => riskSummary(normalizeSarif(text), adviceOf(bundle)), 3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-sarif-wait-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...[path.join(dist, "cli.js"), "--mode", "stdio", "--allowed-paths", dir, "--rate-limit", "false"],
      ...["--sarif-max-bytes", String(64 * 1024 * 1024), "--timeout", "600"],
    ],
    cwd: dir,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const tiny = { version: "2.1.0", runs: [{ tool: { driver: { name: "ruff" } }, results: [] }] };
  const ask = async (sarif) => {
    const r = await client.callTool({ name: "sarif_risk_summary", arguments: { sarif } }, undefined, {
      timeout: 600_000,
    });
    const result = JSON.parse(r.content[0].text);
    if (!result.success) throw new Error(`the summary failed: ${result.error}`);
    return result;
  };
  await ask(tiny);
  const totals = [];
  const waits = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    let done = false;
    const large = ask(big).then(() => {
      done = true;
      totals.push(performance.now() - started);
    });
    // The first wait includes the request's own reading (one JSON.parse of 16 MiB on the main thread).
    while (!done) {
      const t = performance.now();
      await ask(tiny);
      waits.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
    await large;
  }
  await client.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    rows: [
      {
        step: "75,000-result risk summary, computed inline (event loop blocked)",
        median_ms: ms(median(inline)),
      },
      { step: "75,000-result risk summary through the server (off-thread)", median_ms: ms(median(totals)) },
      {
        step: "the longest wait of another call meanwhile",
        median_ms: ms(Math.max(...waits)),
      },
    ],
    notes: [
      `${waits.length} small calls during 3 summaries of a ${text.length}-byte log; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    ],
  };
}
