/**
 * A descendant that leaves the process group (setsid) survives a group kill; holding the inherited
 * stdout, it used to keep the call from returning at --timeout (45 s instead of 5 s) while it held its
 * concurrency slot. Now the call returns at its timeout whatever its descendants do, and descendants
 * that left the group are found by the run token in their environment and killed. The hostile tool is a
 * project virtualenv's `ruff`, which the server legitimately runs; a warm ESLint worker's plugin does
 * the same from inside a worker.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture, tempDir } from "../helpers/tools.js";
import { liveWithEnv, untilNone } from "../helpers/marked.js";
import { reportChannel, type Fifo } from "../helpers/channel.js";

const HOSTILE_TOOL = path.join(FIXTURES, "exec", "setsid-grandchild.sh");

/** Running (a zombie counts as gone: it can do nothing more). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

/** A Python project whose virtualenv's `ruff` is the hostile tool. */
function projectWithHostileRuff(): {
  dir: string;
  pidFile: string;
  target: string;
  channel: string;
  fifo: Fifo;
} {
  const dir = tempDir("mcq-setsid-");
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "p"\n');
  const target = path.join(dir, "a.py");
  fs.writeFileSync(target, "import os\n");
  const bin = path.join(dir, ".venv", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "python"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  fs.copyFileSync(HOSTILE_TOOL, path.join(bin, "ruff"));
  fs.chmodSync(path.join(bin, "ruff"), 0o755);
  // The pid comes back through a FIFO in a root of its own (a read-only lint cannot write anywhere that
  // lasts); the grandchild is found by the mark in its environment (its pid is its sandbox's pid namespace's).
  const channel = reportChannel("mcq-setsid-chan-");
  const fifo = channel.fifo("grandchild.pid");
  return { dir, pidFile: fifo.path, target, channel: channel.dir, fifo };
}

describe("a grandchild that leaves the process group", () => {
  it("does not hold a call past its timeout, and is killed", async () => {
    const { dir, pidFile, target, channel, fifo } = projectWithHostileRuff();
    const s = await connectStdio({
      args: ["--allowed-paths", `${dir},${channel}`, "--timeout", "2"],
      cwd: dir,
      env: { MCQ_TEST_PIDFILE: pidFile, MCQ_TEST_MODE: "hang", MCQ_TEST_TARGET: target },
    });
    try {
      const started = Date.now();
      const r = await s.call("lint", { path: target, linter: "ruff" });
      const elapsed = Date.now() - started;
      expect(r).toMatchObject({ success: false, error_type: "timeout" });
      // The grandchild sleeps 60 s: before the fix the call waited for it.
      expect(elapsed).toBeLessThan(20_000);
      expect(Number((await fifo.until("\n")).trim())).toBeGreaterThan(0);
      expect(await untilNone(() => liveWithEnv(`MCQ_TEST_PIDFILE=${pidFile}`, "sleep"))).toEqual([]);
    } finally {
      await s.close();
    }
  }, 40_000);

  it("a tool that exits leaving it behind returns its result, and the grandchild is killed", async () => {
    const { dir, pidFile, target, channel, fifo } = projectWithHostileRuff();
    const s = await connectStdio({
      args: ["--allowed-paths", `${dir},${channel}`, "--timeout", "30"],
      cwd: dir,
      env: { MCQ_TEST_PIDFILE: pidFile, MCQ_TEST_MODE: "exit", MCQ_TEST_TARGET: target },
    });
    try {
      const started = Date.now();
      const r = await s.call("lint", { path: target, linter: "ruff" });
      const elapsed = Date.now() - started;
      expect(r).toMatchObject({ success: true, passed: false, issue_count: 1 });
      // Before the fix the call waited for the grandchild's pipes until the 30 s timeout.
      expect(elapsed).toBeLessThan(20_000);
      expect(Number((await fifo.until("\n")).trim())).toBeGreaterThan(0);
      expect(await untilNone(() => liveWithEnv(`MCQ_TEST_PIDFILE=${pidFile}`, "sleep"))).toEqual([]);
    } finally {
      await s.close();
    }
  }, 40_000);

  it("started by a warm worker's plugin, it is killed with the worker", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "busy-plugin"));
    fs.writeFileSync(path.join(dir, "src", "busy.js"), "export const b = 1; // ESCAPE_LOOP\n");
    const channel = reportChannel("mcq-busy-pids-");
    const pids = channel.fifo("pids.json");
    const pidsDir = channel.dir;
    const s = await connectStdio({
      args: ["--allowed-paths", `${dir},${pidsDir}`, "--timeout", "4"],
      cwd: dir,
      env: { MCQ_TEST_PIDS_DIR: pidsDir },
    });
    try {
      const r = await s.call("lint", { path: ".", linter: "eslint", files: ["src/busy.js"] });
      expect(r).toMatchObject({ success: false, error_type: "timeout" });
      expect(pids.read()).toContain('"sleeper"');
      expect(await waitGone(Number(/pid (\d+)/.exec(r.error as string)?.[1]))).toBe(true);
      // It left the worker's group (so the group kill does not reach it), and it is gone all the same.
      expect(await untilNone(() => liveWithEnv(`MCQ_TEST_PIDS_DIR=${pidsDir}`, "sleep"))).toEqual([]);
    } finally {
      await s.close();
    }
  }, 40_000);
});
