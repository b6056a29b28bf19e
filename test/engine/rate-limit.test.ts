/** Per-tool sliding-window rate limits, through the real server. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SlidingWindowRateLimiter } from "../../src/engine/rate-limiter.js";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

function project(): string {
  const dir = tempDir("mcq-rate-");
  fs.writeFileSync(path.join(dir, "a.py"), "x = 1\n");
  return dir;
}

describe("rate limit", () => {
  it("refuses the 51st lint in a minute with the retry time, while another tool still runs", async () => {
    const dir = project();
    const s = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      for (let i = 0; i < 50; i++) expect((await s.call("lint", { path: "a.py" })).success).toBe(true);
      const refused = await s.call("lint", { path: "a.py" });
      expect(refused.success).toBe(false);
      expect(refused.error_type).toBe("rate_limit");
      expect(refused.error).toMatch(
        /^Rate limit for lint exceeded \(50 calls per minute\); retry in \d+(\.\d)? s$/,
      );
      expect(refused.retry_after_seconds).toBeGreaterThan(0);
      expect(refused.retry_after_seconds).toBeLessThanOrEqual(60);
      expect((await s.call("format_check", { path: "a.py" })).success).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("--rate-limit false lifts the limits", async () => {
    const dir = project();
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      for (let i = 0; i < 55; i++) expect((await s.call("lint", { path: "a.py" })).success).toBe(true);
      expect((await s.call("get_status")).rate_limits).toBe("disabled");
    } finally {
      await s.close();
    }
  });

  it("the window slides: calls expire individually", () => {
    let now = 0;
    const limiter = new SlidingWindowRateLimiter({ t: 2 }, 1000, () => now);
    expect(limiter.tryAcquire("t")).toBe(0);
    now = 400;
    expect(limiter.tryAcquire("t")).toBe(0);
    now = 900;
    expect(limiter.tryAcquire("t")).toBe(100);
    now = 1000;
    expect(limiter.tryAcquire("t")).toBe(0);
    expect(limiter.tryAcquire("other")).toBe(0);
  });
});
