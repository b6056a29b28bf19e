// The SARIF analytics' cost on a 5,000-result log (ours, 100 files): normalizing it, the risk summary, and a
// trend against a baseline with two lines inserted above every finding (every result matched by fingerprint).
// Then the trend's growth with n + n results on one line and rule, each with its own fingerprint (half of them
// shared), n = 5,000, 10,000, 20,000: linear; matching by queue scans was quadratic (main at bb5616e, side by
// side on this machine: 0.35 s, 1.2 s, 11.1 s; the issue saw 33 s). In process, on the built pure functions.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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
  return {
    title: "SARIF analytics, 5,000 results",
    rows,
    notes: [`log size ${text.length} bytes; medians of ${N}`],
  };
}
