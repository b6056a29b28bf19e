/** The warm worker pool through the MCP client: timeouts kill the process group, idle TTL, LRU cap, shutdown. */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";
import { liveWithEnv, untilNone } from "../helpers/marked.js";
import { reportChannel } from "../helpers/channel.js";

type Json = Record<string, unknown>;
const JS = path.join(FIXTURES, "js");

function workerPid(result: Json): number {
  return Number(/worker pid (\d+)/.exec((result.notes as string[]).join("\n"))?.[1]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe("warm workers", () => {
  it("a worker past the timeout is killed with its process group, and the next call succeeds", async () => {
    const dir = copyFixture(path.join(JS, "busy-plugin"));
    fs.writeFileSync(path.join(dir, "src", "busy.js"), "export const b = 1; // BUSY_LOOP\n");
    // The trap records that it ran in a FIFO of a root of its own; its sleeper is found by the mark it inherits.
    const channel = reportChannel("mcq-busy-pids-");
    const pids = channel.fifo("pids.json");
    const pidsDir = channel.dir;
    const mark = `MCQ_TEST_MARK=${randomBytes(8).toString("hex")}`;
    const s = await connectStdio({
      args: ["--allowed-paths", `${dir},${pidsDir}`, "--timeout", "4"],
      cwd: dir,
      env: { MCQ_TEST_PIDS_DIR: pidsDir, MCQ_TEST_MARK: mark.split("=")[1] },
    });
    try {
      // A call queued behind the one that hangs is not lost: it runs (on a fresh worker if need be).
      const [r, queued] = await Promise.all([
        s.call("lint", { path: ".", linter: "eslint", files: ["src/busy.js"] }),
        s.call("lint", { path: ".", linter: "eslint", files: ["src/a.js"] }),
      ]);
      expect(queued).toMatchObject({ success: true, passed: true });
      expect(r).toMatchObject({ success: false, error_type: "timeout" });
      expect(r.error).toMatch(
        /eslint worker \(pid \d+\) exceeded the 4 s timeout and was killed with its process group/,
      );
      expect(pids.read()).toContain('"sleeper"');
      const killed = Number(/pid (\d+)/.exec(r.error as string)?.[1]);
      // The worker and the grandchild it started are both gone.
      expect(await waitUntil(() => !alive(killed), 3000)).toBe(true);
      expect(await untilNone(() => liveWithEnv(mark, "sleep"))).toEqual([]);
      const next = await s.call("lint", { path: ".", linter: "eslint", files: ["src/a.js"] });
      expect(next).toMatchObject({ success: true, passed: true, issue_count: 0 });
      expect(workerPid(next)).not.toBe(killed);
      expect(alive(workerPid(next))).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("concurrent calls for one project are served in turn by one worker", async () => {
    const dir = copyFixture(path.join(JS, "no-toolchain"));
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const results = await Promise.all(
        ["src/util.ts", "src/legacy.js", "src/messy.ts"].map((f) =>
          s.call("lint", { path: ".", linter: "eslint", files: [f] }),
        ),
      );
      expect(results.map((r) => r.success)).toEqual([true, true, true]);
      expect(new Set(results.map(workerPid)).size).toBe(1);
      const order = results.map(
        (r) => /request (\d+)|cold start/.exec((r.notes as string[]).join("\n"))?.[0],
      );
      expect(order.sort()).toEqual(["cold start", "request 2", "request 3"]);
      expect(results[0]?.issue_count).toBe(2);
      expect(results[1]?.issue_count).toBe(2);
      expect(results[2]?.issue_count).toBe(0);
    } finally {
      await s.close();
    }
  });

  it("a worker past its heap cap ends with a tool_error naming it, and the next call starts a fresh one", async () => {
    const dir = copyFixture(path.join(JS, "busy-plugin"));
    fs.writeFileSync(path.join(dir, "src", "heap.js"), "export const h = 1; // HEAP_BOMB\n");
    const s = await connectStdio({ args: ["--allowed-paths", dir, "--worker-max-heap-mb", "96"], cwd: dir });
    try {
      const r = await s.call("lint", { path: ".", linter: "eslint", files: ["src/heap.js"] });
      expect(r).toMatchObject({ success: false, error_type: "tool_error" });
      expect(r.error).toMatch(
        /^the eslint worker \(pid \d+\) ran out of memory at its 96 MiB heap cap \(--worker-max-heap-mb\) and was ended$/,
      );
      const next = await s.call("lint", { path: ".", linter: "eslint", files: ["src/a.js"] });
      expect(next).toMatchObject({ success: true, passed: true });
    } finally {
      await s.close();
    }
  });

  it("an idle worker exits after the idle TTL and the next call starts a new one", async () => {
    const dir = copyFixture(path.join(JS, "busy-plugin"));
    const s = await connectStdio({ args: ["--allowed-paths", dir, "--worker-idle-ttl", "1"], cwd: dir });
    try {
      const first = await s.call("lint", { path: ".", linter: "eslint", files: ["src/a.js"] });
      const pid = workerPid(first);
      expect(alive(pid)).toBe(true);
      const status = await s.call("get_status");
      expect(status.warm_workers).toEqual([
        {
          tool: "eslint",
          root: dir,
          kind: "process",
          pid,
          age_seconds: expect.any(Number),
          requests: 1,
          busy: false,
          rss_mb: expect.any(Number),
        },
      ]);
      expect(await waitUntil(() => !alive(pid), 5000)).toBe(true);
      expect((await s.call("get_status")).warm_workers).toEqual([]);
      const second = await s.call("lint", { path: ".", linter: "eslint", files: ["src/a.js"] });
      expect(second.success).toBe(true);
      expect(workerPid(second)).not.toBe(pid);
    } finally {
      await s.close();
    }
  });

  it("beyond --max-workers the least recently used worker is ended; shutdown ends the rest", async () => {
    const a = copyFixture(path.join(JS, "busy-plugin"));
    const b = copyFixture(path.join(JS, "no-toolchain"));
    const s = await connectStdio({ args: ["--allowed-paths", `${a},${b}`, "--max-workers", "1"], cwd: a });
    let second: Json;
    try {
      const first = await s.call("lint", { path: a, linter: "eslint", files: ["src/a.js"] });
      second = await s.call("type_check", { path: b });
      expect(second.success).toBe(true);
      expect(await waitUntil(() => !alive(workerPid(first)), 3000)).toBe(true);
      expect(alive(workerPid(second))).toBe(true);
    } finally {
      await s.close();
    }
    expect(await waitUntil(() => !alive(workerPid(second)), 5000)).toBe(true);
  });

  it.skipIf(missing("dmypy"))(
    "--max-workers is one budget for the worker pool and the type-checker daemons together",
    async () => {
      const js = copyFixture(path.join(JS, "busy-plugin"));
      const py = copyFixture(path.join(FIXTURES, "python", "configured-project"));
      const s = await connectStdio({
        args: ["--allowed-paths", `${js},${py}`, "--max-workers", "1"],
        cwd: js,
      });
      try {
        const eslint = await s.call("lint", { path: js, linter: "eslint", files: ["src/a.js"] });
        const mypy = await s.call("type_check", { path: py, checker: "mypy" });
        const dmypyPid = Number(/mypy daemon.*pid (\d+)/.exec((mypy.notes as string[]).join("\n"))?.[1]);
        // Starting the daemon ended the idle ESLint worker, and the next worker ends the daemon.
        expect(await waitUntil(() => !alive(workerPid(eslint)), 3000)).toBe(true);
        expect(alive(dmypyPid)).toBe(true);
        const again = await s.call("lint", { path: js, linter: "eslint", files: ["src/a.js"] });
        expect(again.success).toBe(true);
        expect(await waitUntil(() => !alive(dmypyPid), 3000)).toBe(true);
        const status = await s.call("get_status", {});
        expect(JSON.stringify(status)).not.toContain(`"pid":${dmypyPid}`);
      } finally {
        await s.close();
      }
    },
  );
});
