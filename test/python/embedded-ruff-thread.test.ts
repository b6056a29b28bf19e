/**
 * The embedded ruff runs small sources on the main thread and large ones in a worker thread: concurrent
 * calls each get their own file's answer, a thread that crashed is replaced on the next call, a file over
 * the size limit is refused before it is read into ruff, and while a large file is being checked the
 * server still answers other calls.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

const NO_RUFF_PATH = "/usr/bin:/bin";
const UNIT = "import os\nimport sys\n\n\ndef main(argv):\n    x = [1,2,\n 3]\n    return sys.argv\n";

type EmbeddedModule = typeof import("../../src/adapters/python/ruff-embedded.js");
/** The built module: its thread runs dist/adapters/python/ruff-thread.js. */
const loadEmbedded = () =>
  import(path.join(REPO_ROOT, "dist/adapters/python/ruff-embedded.js")) as Promise<EmbeddedModule>;

function project(files: Record<string, string>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-ruff-thread-")));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

function server(dir: string, extra: string[] = []): Promise<Connected> {
  return connectStdio({
    args: ["--allowed-paths", dir, "--rate-limit", "false", "--max-concurrent", "8", ...extra],
    cwd: dir,
    env: { PATH: NO_RUFF_PATH, VIRTUAL_ENV: undefined },
  });
}

interface Warm {
  tool: string;
  kind: string;
  pid: number;
  thread_id?: number;
  busy: boolean;
  requests: number;
}
const ruffThreads = (status: Record<string, unknown>) =>
  (status.warm_workers as Warm[]).filter((w) => w.tool === "ruff (embedded)");

describe("embedded ruff in a worker thread", () => {
  let dir: string;
  let s: Connected;
  const names = Array.from({ length: 6 }, (_, i) => `m${i}.py`);
  beforeAll(async () => {
    // Each file has its own number of unused imports, so answers cannot be mixed up unnoticed.
    dir = project(
      Object.fromEntries(
        names.map((n, i) => [n, Array.from({ length: i + 1 }, (_, k) => `import mod${k}\n`).join("")]),
      ),
    );
    s = await server(dir);
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("answers concurrent lint and format calls, each with its own file's result", async () => {
    const results = await Promise.all(
      names.flatMap((n) => [
        s.call("lint", { path: path.join(dir, n) }),
        s.call("format_check", { path: path.join(dir, n) }),
      ]),
    );
    names.forEach((n, i) => {
      const lint = results[2 * i] as { success: boolean; issues: string[] };
      expect(lint.success).toBe(true);
      expect(lint.issues).toEqual(
        Array.from({ length: i + 1 }, (_, k) => `${n}:${k + 1}:8: F401 \`mod${k}\` imported but unused`),
      );
      expect(results[2 * i + 1]).toMatchObject({ success: true, formatted: true });
    });
    // Small sources: all on the main thread (thread_id 0), no worker thread started.
    expect(ruffThreads(await s.call("get_status"))).toEqual([
      expect.objectContaining({ kind: "thread", thread_id: 0, requests: 12, busy: false }),
    ]);
  });

  it("sends a large file to the worker thread and a small one in the same call to the main thread", async () => {
    fs.writeFileSync(path.join(dir, "large.py"), UNIT.repeat(2000));
    try {
      const r = await s.call("lint", { path: dir, files: ["m0.py", "large.py"] });
      expect(r).toMatchObject({ success: true, issue_count: 1 + 2000 * 4 - 2 });
      const threads = ruffThreads(await s.call("get_status"));
      // The main thread's instance and, for large.py alone, the worker thread.
      expect(threads.map((t) => [t.thread_id === 0, t.requests])).toEqual([
        [true, expect.any(Number)],
        [false, 1],
      ]);
    } finally {
      fs.rmSync(path.join(dir, "large.py"));
    }
  });

  it("refuses a file over --embedded-ruff-max-file-bytes with invalid_input and leaves it alone", async () => {
    const big = project({ "big.py": "x = 1\n".repeat(1000), "small.py": "x = 1\n" });
    const limited = await server(big, ["--embedded-ruff-max-file-bytes", "4096"]);
    try {
      const file = path.join(big, "big.py");
      for (const [tool, args] of [
        ["lint", {}],
        ["format_check", {}],
        ["autoformat", {}],
        ["lint_fix", { safety: "unsafe" }],
      ] as const) {
        const r = await limited.call(tool, { path: file, ...args });
        expect(r, tool).toMatchObject({ success: false, error_type: "invalid_input" });
        expect(r.error, tool).toMatch(
          /big\.py is 6000 bytes, over the embedded ruff's per-file limit of 4096 bytes/,
        );
      }
      expect(fs.readFileSync(file, "utf8")).toBe("x = 1\n".repeat(1000));
      expect(await limited.call("lint", { path: path.join(big, "small.py") })).toMatchObject({
        success: true,
        issues: [],
      });
    } finally {
      await limited.close();
      fs.rmSync(big, { recursive: true, force: true });
    }
  });

  it("keeps answering get_status while a large file is being checked", async () => {
    // About 0.6 MB of code with four findings every eight lines: seconds of work for the thread.
    const big = project({ "big.py": UNIT.repeat(4000), "other.py": "import os\n" });
    const busy = await server(big);
    try {
      const order: string[] = [];
      // Four calls queue on the one thread: the last answers after four files' worth of work.
      const lints = [0, 1, 2, 3].map((i) =>
        busy.call("lint", { path: path.join(big, "big.py") }).then((r) => {
          order.push(`lint ${i}`);
          return r;
        }),
      );
      // Status calls until one finds the thread at work (the first may come before it has started).
      let status: Record<string, unknown>;
      do status = await busy.call("get_status");
      while (!ruffThreads(status).some((t) => t.busy) && order.length < 4);
      expect(ruffThreads(status)).toEqual([expect.objectContaining({ kind: "thread", busy: true })]);
      // busy: true above is the proof: the answer was made while the thread was at work, so the event loop was
      // not blocked by it. Its place among the lints' answers is not asserted: get_status also probes every
      // tool's version, and under load its answer can come after the thread's last lint though made before.
      const results = await Promise.all(lints);
      for (const r of results) expect(r).toMatchObject({ success: true, issue_count: 4000 * 4 - 2 });
    } finally {
      await busy.close();
      fs.rmSync(big, { recursive: true, force: true });
    }
  });
});

describe("get_status lists each warm process", () => {
  it("the ESLint worker and the ruff thread, with tool, root, pid, age, requests and memory", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "busy-plugin"));
    // Over the main thread's share (64 KiB): it runs in the worker thread.
    fs.writeFileSync(path.join(dir, "a.py"), UNIT.repeat(2000));
    const s = await server(dir);
    try {
      expect((await s.call("lint", { path: ".", linter: "eslint", files: ["src/a.js"] })).success).toBe(true);
      expect((await s.call("lint", { path: "a.py" })).success).toBe(true);
      expect((await s.call("lint", { path: "a.py" })).success).toBe(true);
      const warm = (await s.call("get_status")).warm_workers as Record<string, unknown>[];
      const eslint = warm.find((w) => w.tool === "eslint");
      const ruff = warm.find((w) => w.tool === "ruff (embedded)");
      expect(eslint).toMatchObject({ kind: "process", root: dir, requests: 1, busy: false });
      expect(eslint?.pid).not.toBe(ruff?.pid);
      expect(eslint?.rss_mb).toBeGreaterThan(10);
      expect(eslint?.age_seconds).toBeGreaterThanOrEqual(0);
      expect(ruff).toMatchObject({ kind: "thread", root: null, requests: 2, busy: false, rss_mb: null });
      expect(ruff?.thread_id).toBeGreaterThan(0);
      expect(ruff?.memory_mb).toBeGreaterThan(1);
      expect(ruff?.age_seconds).toBeGreaterThanOrEqual(0);
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the ruff thread host", () => {
  it("replaces a thread that crashed (out of heap) on the next call", async () => {
    const { EmbeddedRuff } = await loadEmbedded();
    const { loadRuffSettings } = await import("../../src/adapters/python/ruff-settings.js");
    const dir = project({ "a.py": "import os\n" });
    // A tiny heap cap: the diagnostics of a large file do not fit, and V8 ends the thread.
    const ruff = new EmbeddedRuff({
      maxFileBytes: 64 * 1024 * 1024,
      limits: { maxHeapMb: 8, recycleAboveBytes: 2 ** 40, inlineMaxChars: 0 },
    });
    try {
      const file = path.join(dir, "a.py");
      const settings = loadRuffSettings(file, dir);
      const call = { timeoutMs: 600_000 };
      expect(await ruff.check(settings, file, "import os\n", call)).toHaveLength(1);
      const [before] = ruff.host.warmProcesses();
      await expect(ruff.check(settings, file, UNIT.repeat(20_000), call)).rejects.toMatchObject({
        errorType: "tool_error",
        message: expect.stringMatching(
          /the embedded ruff thread (failed|ended).*the next call starts a new one/,
        ),
      });
      expect(ruff.host.warmProcesses()).toEqual([]);
      expect(await ruff.check(settings, file, "import os\n", call)).toHaveLength(1);
      const [after] = ruff.host.warmProcesses();
      expect(after?.thread_id).not.toBe(before?.thread_id);
      expect(after?.requests).toBe(1);
    } finally {
      await ruff.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("ends a thread that holds too much memory after a call; calls queued behind it run on a new one", async () => {
    const { EmbeddedRuff } = await loadEmbedded();
    const { loadRuffSettings } = await import("../../src/adapters/python/ruff-settings.js");
    const dir = project({ "a.py": "import os\n" });
    // Every thread holds more than one byte: each call ends its thread and the next starts another.
    const ruff = new EmbeddedRuff({
      maxFileBytes: 1 << 20,
      limits: { maxHeapMb: 256, recycleAboveBytes: 1, inlineMaxChars: 0 },
    });
    try {
      const file = path.join(dir, "a.py");
      const settings = loadRuffSettings(file, dir);
      const call = { timeoutMs: 600_000 };
      const counts = await Promise.all(
        [1, 2, 3].map((n) => ruff.check(settings, file, UNIT.repeat(n), call).then((d) => d.length)),
      );
      expect(counts).toEqual([2, 6, 10]);
      expect(ruff.host.warmProcesses()).toEqual([]);
      expect(await ruff.check(settings, file, "import os\n", call)).toHaveLength(1);
    } finally {
      await ruff.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
