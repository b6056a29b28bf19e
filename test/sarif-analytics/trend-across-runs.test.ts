/**
 * sarif_trend_analysis across three real, retained ESLint runs of a project the test edits between them:
 * a finding fixed, one introduced, one reopened (gone in the baseline, back now), one raised from warning to
 * error by a stricter config, and lines inserted above an unchanged finding whose fingerprint still matches.
 * The current run is compared with ESLint's own CLI on the same file and config.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const RULES = `"prefer-const": "error", "no-debugger": "error", "no-empty": "error", eqeqeq: "error"`;
const config = (escape: string) =>
  `export default [{ files: ["**/*.js"], rules: { ${RULES}, "no-useless-escape": "${escape}" } }];\n`;

/** History run: prefer-const (1), no-useless-escape as a warning (2), no-debugger (4). */
const RUN1 = `let area = 3 * 4;
const pattern = "a\\.b";
export function show() {
  debugger;
  return [area, pattern];
}
`;
/** Baseline: the debugger is gone, an empty block is new. */
const RUN2 = `let area = 3 * 4;
const pattern = "a\\.b";
export function show() {
  if (area) {}
  return [area, pattern];
}
`;
/** Current: two lines above, the empty block fixed, the debugger back, an == introduced (strict config). */
const RUN3 = `// Shapes.
// Their areas.
let area = 3 * 4;
const pattern = "a\\.b";
export function show(x) {
  debugger;
  return [area, pattern, x == 1];
}
`;

interface Entry {
  result_index: number;
  rule_id: string;
  level: string;
  line: number;
  fingerprint: string;
  matched_by?: string;
  previous_level?: string;
  previous_line?: number;
  baseline_index?: number;
}

describe("sarif_trend_analysis over three real ESLint runs", () => {
  let s: Connected;
  let dir: string;
  const app = () => path.join(dir, "src", "app.js");
  beforeAll(async () => {
    dir = tempDir("mcq-trend-");
    fs.mkdirSync(path.join(dir, "src"));
    fs.writeFileSync(
      path.join(dir, "package.json"),
      '{ "name": "trend", "private": true, "type": "module" }\n',
    );
    fs.writeFileSync(path.join(dir, "eslint.config.js"), config("warn"));
    fs.writeFileSync(path.join(dir, "eslint.strict.config.js"), config("error"));
    s = await connectStdio({
      // `retain` on a read-only tool (lint) is offered only with --retain-traces per-call (issue 30).
      args: [
        "--allowed-paths",
        dir,
        "--rate-limit",
        "false",
        "--toolsets",
        "core,policy",
        "--retain-traces",
        "per-call",
      ],
      cwd: dir,
    });
  });
  afterAll(() => s?.close());

  async function retainedRun(source: string, extra: Record<string, unknown> = {}): Promise<string> {
    fs.writeFileSync(app(), source);
    const r = await s.call("lint", { path: "src/app.js", linter: "eslint", retain: true, ...extra });
    expect(r.success).toBe(true);
    expect(r.sarif).toBeUndefined(); // retained, but not asked for
    expect(r.trace_id).toMatch(/^[0-9TZ]+-lint-[0-9a-f]{8}$/);
    return r.trace_id as string;
  }

  it("classifies fixed, introduced, reopened, worsening and shifted findings", async () => {
    const history = await retainedRun(RUN1);
    const baseline = await retainedRun(RUN2);
    const current = await retainedRun(RUN3, { config: "eslint.strict.config.js" });

    const t = await s.call("sarif_trend_analysis", {
      baseline_trace_id: baseline,
      current_trace_id: current,
      history_trace_ids: [history],
    });
    expect(t.success).toBe(true);
    expect(t.counts).toEqual({
      introduced: 1,
      reopened: 1,
      worsening: 1,
      persisting: 1,
      fixed: 1,
      suppressed: 0,
      baseline: 3,
      current: 4,
      history_runs: 1,
    });
    const [introduced] = t.introduced as Entry[];
    expect(introduced).toMatchObject({ rule_id: "eqeqeq", level: "error", line: 7 });
    const [reopened] = t.reopened as Entry[];
    expect(reopened).toMatchObject({ rule_id: "no-debugger", line: 6, matched_by: "fingerprint" });
    const [worse] = t.worsening as Entry[];
    expect(worse).toMatchObject({
      rule_id: "no-useless-escape",
      level: "error",
      previous_level: "warning",
      line: 4,
    });
    const [fixed] = t.fixed as Entry[];
    expect(fixed).toMatchObject({ rule_id: "no-empty", line: 4 });

    // Two lines inserted above: the group key (file, line, rule) no longer matches, the fingerprint does.
    const [kept] = t.persisting as Entry[];
    expect(kept).toMatchObject({
      rule_id: "prefer-const",
      line: 3,
      previous_line: 1,
      matched_by: "fingerprint",
    });
    const base = await s.call("sarif_remediation_advice", {
      trace_id: baseline,
      result_index: kept!.baseline_index,
    });
    expect((base.result as Entry).fingerprint).toBe(kept!.fingerprint);
    expect((base.result as Entry).line).toBe(1);

    // The repair queue's top item leads to its remediation packet on the current run.
    expect(t.next_call).toEqual({
      tool: "sarif_remediation_advice",
      arguments: { trace_id: current, result_index: expect.any(Number) },
    });

    // Its rerun is the recorded lint call narrowed to the file, stricter config included; it reports the same.
    const packet = await s.call("sarif_remediation_advice", {
      trace_id: current,
      result_index: (t.next_call as { arguments: { result_index: number } }).arguments.result_index,
    });
    // Seed 002's lint_check request for the file, and the recorded call (its stricter config) as `exact`.
    expect(packet.rerun).toEqual({
      tool: "lint_check",
      arguments: { path: dir, tool: "eslint", files: ["src/app.js"] },
      exact: {
        tool: "lint",
        arguments: { path: app(), linter: "eslint", config: path.join(dir, "eslint.strict.config.js") },
      },
      note: "the recorded lint call also set config, which lint_check does not take: `exact` repeats it for this file",
    });
    const rerun = packet.rerun as {
      tool: string;
      arguments: Record<string, unknown>;
      exact: { tool: string; arguments: Record<string, unknown> };
    };
    expect((await s.call(rerun.tool, rerun.arguments)).finding_count).toBe(4);
    expect((await s.call(rerun.exact.tool, rerun.exact.arguments)).issue_count).toBe(4);

    // The current trace holds what ESLint itself reports for the same file and config.
    const eslint = path.join(REPO_ROOT, "node_modules", ".bin", "eslint");
    let out = "";
    try {
      execFileSync(eslint, ["--format", "json", "-c", "eslint.strict.config.js", "src/app.js"], { cwd: dir });
    } catch (err) {
      out = String((err as { stdout: Buffer }).stdout);
    }
    const direct = (
      JSON.parse(out) as { messages: { ruleId: string; line: number; severity: number }[] }[]
    )[0]!;
    const summary = await s.call("sarif_risk_summary", { trace_id: current });
    expect(summary.result_count).toBe(direct.messages.length);
    expect((summary.counts as Record<string, number>).error).toBe(
      direct.messages.filter((m) => m.severity === 2).length,
    );
  });
});
