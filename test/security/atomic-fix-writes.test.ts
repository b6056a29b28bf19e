/**
 * Issue 10.13: the server's own fix writes truncated each file and wrote it in place, so a kill -9 inside the
 * write loop left a file empty (or cut short) until the next start. Each file is now written to a temp file
 * and renamed over the old one: whoever looks at it, and whenever the server dies, sees the old bytes or the
 * new ones. The attacker process polls the files and kills the server the moment one of them changes.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { serverPid, startAttacker } from "./helpers/race.js";
import { waitFor } from "../fix/helpers.js";

type Ruff = typeof import("@astral-sh/ruff-wasm-nodejs");
const ruff = createRequire(import.meta.url)("@astral-sh/ruff-wasm-nodejs") as Ruff;

/** Compact lines that ruff format blows up to one element per line: the written file is much larger. */
const LINE = "x=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30]\n";
const FILES = ["big1.py", "big2.py"];

describe("kill -9 inside the fix write loop", () => {
  it("leaves every file whole (old or new bytes), and the next start restores them (or completes a run killed after its commit began)", async () => {
    const proj = tempDir("mcq-atomic-");
    fs.mkdirSync(path.join(proj, "pkg"));
    fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
    // ~0.9 MB, ~2.4 MB once formatted: long enough a write to be seen half done, short enough a format that
    // the event loop does not stall past the lock margin (the embedded ruff runs on it) on a loaded machine.
    const original = LINE.repeat(10_000);
    for (const f of FILES) fs.writeFileSync(path.join(proj, "pkg", f), original, { mode: 0o640 });
    const formatted = new ruff.Workspace({}, ruff.PositionEncoding.Utf32).format(original);
    expect(formatted.length).toBeGreaterThan(original.length * 2);

    const env = { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined };
    const s = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd: proj,
      env,
    });
    const files = FILES.map((f) => path.join(proj, "pkg", f));
    const watching = startAttacker(["kill-on-change", String(serverPid(s)), ...files]);
    await watching.ready;
    const call = s.call("autoformat", { path: "pkg" }).catch((e: unknown) => e);
    const seen = (await watching.done) as { killed: boolean; sizes: Record<string, number[]> };
    const outcome = await call;
    expect(outcome, JSON.stringify(outcome).slice(0, 1500)).toBeInstanceOf(Error);
    await s.close().catch(() => {});
    expect(seen.killed).toBe(true);

    const whole = new Set([Buffer.byteLength(original), Buffer.byteLength(formatted)]);
    for (const f of files) {
      expect(
        seen.sizes[f]?.filter((size) => !whole.has(size)),
        `sizes seen of ${f}`,
      ).toEqual([]);
      expect([original, formatted]).toContain(fs.readFileSync(f, "utf8"));
    }

    const next = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd: proj,
      env,
    });
    let recovery: { result?: string; reason?: string } | undefined;
    try {
      // The next start's recovery entry, or the run's own commit when it got that far before the kill.
      recovery = await waitFor(async () => {
        const r = await next.call("get_audit_log", { path: ".", limit: 10 });
        const entries = r.entries as { result?: string; reason?: string }[];
        return entries.find((e) => e.reason?.startsWith("recovery:") || e.result === "commit");
      }, 60_000);
    } finally {
      await next.close();
    }
    // Killed inside the write loop, the run is rolled back: every file holds its old bytes again. On a
    // machine so loaded that the attacker is scheduled only after the run reached its commit, recovery
    // completes the commit instead: every file holds the new bytes. Whole files either way.
    const committed = recovery?.result === "commit";
    if (!committed) expect(recovery?.result, JSON.stringify(recovery)).toBe("rollback");
    for (const f of files) {
      expect(fs.readFileSync(f, "utf8")).toBe(committed ? formatted : original);
      expect(fs.statSync(f).mode & 0o777).toBe(0o640);
    }
    expect(fs.readdirSync(path.join(proj, "pkg")).sort()).toEqual(FILES);
  }, 180_000);
});
