/**
 * Large SARIF over stdio, through the real server and the SDK's client: a 16 MiB inline log (the
 * --sarif-max-bytes default) is read (the SDK's own 10 MiB line buffer used to end the server), a request
 * over the stdio limit gets a JSON-RPC error and the server keeps answering, and a trend analysis of
 * 20,000 + 20,000 results on one line (compared in a worker thread) gives every one its class.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** A log of `n` ruff-like results; each result about `pad` bytes of message longer than the minimum. */
function bigLog(n: number, pad = 0, line = (i: number) => 1 + (i % 1000)) {
  return {
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "ruff", rules: [{ id: "F401" }] } },
        results: Array.from({ length: n }, (_, i) => ({
          ruleId: "F401",
          ruleIndex: 0,
          level: "error",
          message: { text: `\`m${i}\` imported but unused ${"x".repeat(pad)}` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: `pkg/m${i % 97}.py`, uriBaseId: "%SRCROOT%" },
                region: { startLine: line(i), startColumn: 8 },
              },
            },
          ],
        })),
      },
    ],
  };
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe("SARIF logs as large as the limits allow, over stdio", () => {
  let s: Connected;
  let small: Connected;
  beforeAll(async () => {
    const dir = tempDir("mcq-sarif-large-");
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false", "--toolsets", "core,policy"],
      cwd: dir,
    });
    small = await connectStdio({
      args: [
        "--allowed-paths",
        dir,
        "--rate-limit",
        "false",
        "--toolsets",
        "core,policy",
        "--sarif-max-bytes",
        "1048576",
      ],
      cwd: dir,
    });
  });
  afterAll(async () => {
    await s?.close();
    await small?.close();
  });

  it("reads a 16 MiB inline log (the --sarif-max-bytes default)", async () => {
    const log = bigLog(46_000, 120);
    const size = bytes(log);
    expect(size).toBeGreaterThan(15 * 1024 * 1024);
    expect(size).toBeLessThanOrEqual(16 * 1024 * 1024);
    const r = await s.call("sarif_risk_summary", { sarif: log });
    expect(r).toMatchObject({ success: true, result_count: 46_000, counts: { error: 46_000 } });
  }, 120_000);

  it("answers a log over --sarif-max-bytes with a clear error", async () => {
    const log = bigLog(3_000, 300);
    const r = await small.call("sarif_risk_summary", { sarif: log });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("invalid_input");
    expect(r.error).toMatch(
      /^sarif is \d+ bytes, over --sarif-max-bytes 1048576: pass a larger limit, or the log as a retained trace_id$/,
    );
  });

  it("answers a request over the stdio message limit with a JSON-RPC error, and goes on answering", async () => {
    // --sarif-max-bytes 1 MiB: the stdio limit is its floor, 10 MiB; this request is about 12 MiB.
    const log = bigLog(36_000, 120);
    expect(bytes(log)).toBeGreaterThan(11 * 1024 * 1024);
    await expect(small.call("sarif_risk_summary", { sarif: log })).rejects.toThrow(
      /the request is \d+ bytes, over the 10485760-byte limit of a stdio message/,
    );
    const after = await small.call("sarif_risk_summary", { sarif: bigLog(3) });
    expect(after).toMatchObject({ success: true, result_count: 3 });
  }, 120_000);

  it("compares 20,000 + 20,000 results on one line (in a worker thread): every one persisting", async () => {
    const one = bigLog(20_000, 0, () => 7);
    for (const r of one.runs[0]!.results) r.message.text = "`os` imported but unused";
    const t = await s.call("sarif_trend_analysis", { baseline: one, current: one });
    expect(t.counts).toMatchObject({
      persisting: 20_000,
      introduced: 0,
      fixed: 0,
      baseline: 20_000,
      current: 20_000,
    });
  }, 120_000);
});
