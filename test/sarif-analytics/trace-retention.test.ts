/**
 * Retained lint traces: `--retain-traces` keeps every run (and `retain: false` opts out), the folder holds at
 * most `--trace-max-count` traces and `--trace-max-bytes` bytes (oldest dropped first, a trace larger than
 * the byte limit is not kept), folders are 0700 and files 0600, a planted link is never written through, and
 * a trace reads back through the same normalizer as inline SARIF. Real lint runs of the embedded ruff.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const MAX_BYTES = 20_000;
const findings = (n: number) => Array.from({ length: n }, (_, i) => `v${i} = v == None\n`).join("");

describe("retained lint traces", () => {
  let s: Connected;
  let dir: string;
  const runs = () => path.join(dir, ".mcp-cache", "lint-runs");
  const kept = () =>
    fs
      .readdirSync(runs())
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -5))
      .sort();
  const bytes = () => kept().reduce((n, id) => n + fs.statSync(path.join(runs(), `${id}.json`)).size, 0);
  beforeAll(async () => {
    dir = tempDir("mcq-traces-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[tool.ruff.lint]\nselect = ["E711"]\n');
    for (const [name, n] of [
      ["one.py", 1],
      ["ten.py", 10],
      ["huge.py", 150],
    ] as const)
      fs.writeFileSync(path.join(dir, name), findings(n));
    s = await connectStdio({
      args: [
        ...["--allowed-paths", dir, "--rate-limit", "false", "--toolsets", "core,policy"],
        ...["--retain-traces", "true", "--trace-max-count", "3", "--trace-max-bytes", String(MAX_BYTES)],
      ],
      cwd: dir,
      // The embedded ruff: no external tool needed.
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it("keeps every run, at most 3, the oldest dropped first; 0700 folders and 0600 files", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await s.call("lint", { path: "one.py" });
      expect(r.success).toBe(true);
      expect(r.sarif).toBeUndefined();
      expect(r.trace_file).toBe(`.mcp-cache/lint-runs/${r.trace_id as string}.json`);
      if (i >= 3) expect(r.notes).toContain("1 older trace(s) dropped to stay within the retention limits");
      ids.push(r.trace_id as string);
    }
    expect(kept()).toEqual(ids.slice(2).sort());
    expect(fs.statSync(path.join(dir, ".mcp-cache")).mode & 0o777).toBe(0o700);
    expect(fs.statSync(runs()).mode & 0o777).toBe(0o700);
    for (const id of kept()) expect(fs.statSync(path.join(runs(), `${id}.json`)).mode & 0o777).toBe(0o600);

    // A trace reads back as the run's findings.
    const back = await s.call("sarif_risk_summary", { trace_id: ids[4] });
    expect(back).toMatchObject({
      success: true,
      result_count: 1,
      top_item: { rule_id: "E711", path: "one.py" },
    });
  });

  it("retain: false opts out; output sarif keeps the log in the result as well", async () => {
    const before = kept();
    const r = await s.call("lint", { path: "one.py", retain: false });
    expect(r.trace_id).toBeUndefined();
    expect(kept()).toEqual(before);
    const both = await s.call("lint", { path: "one.py", output: "sarif" });
    expect(both.trace_id).toBeDefined();
    expect((both.sarif as { runs: unknown[] }).runs).toHaveLength(1);
  });

  it("the byte limit drops the oldest; a trace over it alone is not kept", async () => {
    const big: string[] = [];
    for (let i = 0; i < 3; i++) big.push((await s.call("lint", { path: "ten.py" })).trace_id as string);
    const size = fs.statSync(path.join(runs(), `${big[2]}.json`)).size;
    expect(size * 2).toBeLessThanOrEqual(MAX_BYTES);
    expect(size * 3).toBeGreaterThan(MAX_BYTES);
    // Three would be within the count, not within the bytes: only the newest two are left.
    expect(kept()).toEqual(big.slice(1).sort());
    expect(bytes()).toBeLessThanOrEqual(MAX_BYTES);

    const before = kept();
    const huge = await s.call("lint", { path: "huge.py" });
    expect(huge.success).toBe(true);
    expect(huge.issue_count).toBe(150);
    expect(huge.trace_id).toBeUndefined();
    expect((huge.notes as string[]).join(" ")).toMatch(
      /larger than --trace-max-bytes 20000; it was not retained/,
    );
    expect(kept()).toEqual(before);
  });

  it("a planted link in place of the traces folder is not written through", async () => {
    const outside = tempDir("mcq-outside-");
    const saved = `${runs()}.saved`;
    fs.renameSync(runs(), saved);
    fs.symlinkSync(outside, runs());
    try {
      const r = await s.call("lint", { path: "one.py" });
      expect(r.success).toBe(true);
      expect(r.trace_id).toBeUndefined();
      expect((r.notes as string[]).join(" ")).toMatch(/not retained: .*symbolic link/);
      expect(fs.readdirSync(outside)).toEqual([]);
    } finally {
      fs.unlinkSync(runs());
      fs.renameSync(saved, runs());
    }
  });
});
