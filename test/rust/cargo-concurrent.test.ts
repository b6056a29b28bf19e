/**
 * Several servers running cargo on one crate at once (agents side by side): a crate without a Cargo.lock
 * gets one from cargo for each run, removed afterwards. Without a lock around that, one server could take
 * another's passing Cargo.lock for the crate's own (adding --locked, and failing once it was removed), or
 * leave one behind.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

describe.skipIf(missing("cargo"))("cargo runs of several servers on one crate without a Cargo.lock", () => {
  let crate: string;
  const servers: Connected[] = [];
  beforeAll(async () => {
    crate = copyFixture(path.join(FIXTURES, "check", "rust"));
    for (let i = 0; i < 3; i++)
      servers.push(await connectStdio({ args: ["--allowed-paths", crate], cwd: crate }));
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    fs.rmSync(crate, { recursive: true, force: true });
  });

  it("all succeed with the same answer, and no Cargo.lock is left in the crate", async () => {
    for (let round = 0; round < 4; round++) {
      // Staggered, so that each run starts while another one's Cargo.lock may be there.
      const after = (ms: number, call: () => Promise<Record<string, unknown>>) =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          setTimeout(() => call().then(resolve, reject), ms);
        });
      const results = await Promise.all(
        servers.flatMap((s, i) => [
          after(i * 70, () => s.call("type_check", { path: ".", checker: "cargo" })),
          after(i * 70 + 35, () => s.call("lint", { path: ".", linter: "clippy" })),
        ]),
      );
      for (const [i, r] of results.entries())
        expect(r, JSON.stringify(r).slice(0, 800)).toMatchObject(
          i % 2 === 0 ? { success: true, passed: true } : { success: true },
        );
      const checks = results.filter((_, i) => i % 2 === 0).map((r) => r.issues);
      const lints = results.filter((_, i) => i % 2 === 1).map((r) => r.issues);
      expect(new Set(checks.map((c) => JSON.stringify(c))).size).toBe(1);
      expect(new Set(lints.map((c) => JSON.stringify(c))).size).toBe(1);
      expect(fs.existsSync(path.join(crate, "Cargo.lock"))).toBe(false);
    }
  });
});
