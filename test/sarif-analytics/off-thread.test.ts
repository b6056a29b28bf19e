/**
 * The SARIF tools analyse a large log in a worker thread: while one is held mid-analysis (the test hold of
 * src/sarif-analytics/test-hold.ts blocks its thread, as a long summary does), the server answers other calls;
 * a cancelled or timed-out analysis ends its thread, so it never finishes. Through the real server over stdio.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** A log of `n` results over 50 files and four rules (the first two mapped by the shipped policies). */
function log(n: number) {
  const rules = ["F401", "S602", "E501", "E711"];
  return {
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "ruff" } },
        results: Array.from({ length: n }, (_, i) => ({
          ruleId: rules[i % 4],
          level: i % 2 ? "error" : "warning",
          message: { text: `finding ${i} of the module under test` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: `pkg/m${i % 50}.py`, uriBaseId: "%SRCROOT%" },
                region: { startLine: 1 + (i % 400), startColumn: 1 },
              },
            },
          ],
        })),
      },
    ],
  };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ok()) throw new Error(`waited 30 s for ${what}`);
}

describe("SARIF analyses off the event loop", () => {
  const dir = tempDir("mcq-sarif-thread-");
  const hold = path.join(dir, "hold");
  const big = log(3000);
  let s: Connected;
  let timed: Connected;
  const args = ["--allowed-paths", dir, "--rate-limit", "false", "--toolsets", "core,policy"];
  const env = { MCP_CODE_QUALITY_TEST_ANALYTICS_HOLD: hold };
  const reset = () => {
    for (const f of [hold, `${hold}.started`, `${hold}.finished`]) fs.rmSync(f, { force: true });
  };

  beforeAll(async () => {
    expect(Buffer.byteLength(JSON.stringify(big))).toBeGreaterThan(256 * 1024);
    s = await connectStdio({ args, cwd: dir, env });
    timed = await connectStdio({ args: [...args, "--timeout", "2"], cwd: dir, env });
  });
  afterAll(async () => {
    await s?.close();
    await timed?.close();
  });

  it("answers other calls while a large risk summary is held, then gives the summary with its advice", async () => {
    reset();
    const order: string[] = [];
    const summary = s.call("sarif_risk_summary", { sarif: big }).then((r) => {
      order.push("summary");
      return r;
    });
    await until("the analysis to start", () => fs.existsSync(`${hold}.started`));
    const status = await s.call("get_status", {});
    order.push("get_status");
    // A small log is analysed inline, beside the held one.
    const small = await s.call("sarif_policy_feedback", { sarif: log(8) });
    order.push("small");
    expect(status.success).toBe(true);
    expect(small.success).toBe(true);
    fs.writeFileSync(hold, "");
    const r = await summary;
    expect(order).toEqual(["get_status", "small", "summary"]);
    expect(r).toMatchObject({ success: true, result_count: 3000, counts: { error: 1500, warning: 1500 } });
    // The thread compiled the server's own policy bundle: F401 and S602 are mapped.
    expect(JSON.stringify(r)).toMatch(/code\.unused/);
    expect(JSON.stringify(r)).toMatch(/security\.shell_injection/);
    expect(fs.existsSync(`${hold}.finished`)).toBe(true);
  });

  it("gives the same trend, remediation and feedback off the thread as inline", async () => {
    reset();
    fs.writeFileSync(hold, "");
    const shifted = log(3000);
    for (const r of shifted.runs[0]!.results.slice(0, 10)) r.message.text = "a new finding";
    const trend = await s.call("sarif_trend_analysis", { baseline: big, current: shifted });
    expect(trend).toMatchObject({ success: true, counts: { baseline: 3000, current: 3000 } });
    const packet = await s.call("sarif_remediation_advice", { sarif: big, result_index: 1 });
    expect(packet).toMatchObject({ success: true, result_index: 1, result_count: 3000 });
    const inline = await s.call("sarif_remediation_advice", { sarif: log(8), result_index: 1 });
    expect((packet.advice as { policies: unknown[] }).policies).toEqual(
      (inline.advice as { policies: unknown[] }).policies,
    );
    const out = await s.call("sarif_remediation_advice", { sarif: big, result_index: 3000 });
    expect(out).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(out.error).toBe("result_index 3000 is out of range: the log has 3000 results");
    const bad = await s.call("sarif_risk_summary", { sarif: { ...big, version: "1.0" } });
    expect(bad).toMatchObject({ success: false, error_type: "invalid_input" });
  });

  it("ends the thread of a cancelled analysis: it never finishes", async () => {
    reset();
    const abort = new AbortController();
    const call = s.client.callTool({ name: "sarif_risk_summary", arguments: { sarif: big } }, undefined, {
      signal: abort.signal,
    });
    await until("the analysis to start", () => fs.existsSync(`${hold}.started`));
    abort.abort();
    await expect(call).rejects.toThrow();
    // The cancellation has reached the server once a later call answers.
    expect((await s.call("get_status", {})).success).toBe(true);
    fs.writeFileSync(hold, "");
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.existsSync(`${hold}.finished`)).toBe(false);
  });

  it("stops an analysis at the timeout and ends its thread", async () => {
    reset();
    const r = await timed.call("sarif_risk_summary", { sarif: big });
    expect(r).toMatchObject({ success: false, error_type: "timeout" });
    expect(r.error).toMatch(/exceeded the 2 s timeout/);
    fs.writeFileSync(hold, "");
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.existsSync(`${hold}.finished`)).toBe(false);
  });
});
