/**
 * MCP progress notifications through the SDK client (callTool's `onprogress`, which sends a progressToken):
 * a link check counts files done of total, a pytest run its share of tests, a type check says what it runs;
 * every notification's progress is larger than the last, and none comes after the answer (the SDK client
 * reports one as an unknown token). Cancelling a call still ends it: its process is killed (with one
 * concurrency slot, the next call could not run otherwise) and no progress follows.
 */
import fs from "node:fs";
import path from "node:path";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, resultOf, startHttp, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

let s: Connected;
let project: string;
const clientErrors: Error[] = [];

/** Calls a tool with a progressToken; its result and every notification it got. */
async function withProgress(name: string, args: Record<string, unknown>) {
  const seen: Progress[] = [];
  const r = await s.client.callTool({ name, arguments: args }, undefined, {
    timeout: 600_000,
    onprogress: (p) => void seen.push(p),
  });
  return { result: resultOf(r), seen };
}

function expectIncreasing(seen: Progress[]) {
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
}

beforeAll(async () => {
  project = tempDir("mcq-progress-");
  fs.mkdirSync(path.join(project, "docs"));
  for (let i = 0; i < 20; i++)
    fs.writeFileSync(path.join(project, "docs", `p${i}.md`), `# Page ${i}\n\n[next](p${i + 1}.md)\n`);
  fs.mkdirSync(path.join(project, "tests"));
  for (let i = 0; i < 4; i++)
    fs.writeFileSync(path.join(project, "tests", `test_${i}.py`), "def test_ok():\n    assert True\n");
  fs.mkdirSync(path.join(project, "slow"));
  fs.writeFileSync(
    path.join(project, "slow", "test_slow.py"),
    "import time\n\n\ndef test_sleeps():\n    time.sleep(600)\n",
  );
  fs.writeFileSync(path.join(project, "app.py"), "x: int = 1\n");
  s = await connectStdio({
    args: ["--allowed-paths", project, "--max-concurrent", "1", "--result-cache", "false"],
    cwd: project,
    env: { PATH: `${TOOLS_VENV_BIN}:${process.env.PATH}`, VIRTUAL_ENV: undefined },
  });
  s.client.onerror = (e) => void clientErrors.push(e);
});
afterAll(async () => s?.close());

describe("progress notifications", () => {
  it("check_markdown_links: files done, and of how many once the walk has found them all", async () => {
    // Its last notification is sent just before the answer: it must reach the client all the same.
    const { result, seen } = await withProgress("check_markdown_links", {
      path: "docs",
      check_external: false,
    });
    expect(result).toMatchObject({ success: true, files_checked: 20, broken_links: 1 });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expectIncreasing(seen);
    expect(seen[0]).toMatchObject({
      progress: 1,
      message: expect.stringMatching(/^check_markdown_links: 1 /),
    });
    // The files, and one unit more for what follows them.
    expect(seen.at(-1)).toMatchObject({
      total: 21,
      message:
        "check_markdown_links: 20 of 20 file(s) checked; then 0 anchor(s) in files outside the walk, 0 external link(s)",
    });
    for (const p of seen) if (p.total !== undefined) expect(p.progress).toBeLessThanOrEqual(p.total);
    expect(clientErrors.map((e) => e.message)).toEqual([]);
  });

  it.skipIf(missing("pytest"))("run_tests: pytest's share of the tests run, to 100 of 100", async () => {
    const { result, seen } = await withProgress("run_tests", { path: "tests" });
    expect(result).toMatchObject({ success: true, passed: true, summary: { passed: 4 } });
    expectIncreasing(seen);
    expect(seen[0]?.message).toBe("run_tests: running pytest");
    expect(seen.at(-1)).toEqual({
      progress: 100,
      total: 100,
      message: "run_tests: pytest: 100% of the tests run",
    });
  });

  it.skipIf(missing("ty", [TOOLS_VENV_BIN]))("type_check: what it runs", async () => {
    const { result, seen } = await withProgress("type_check", { path: "app.py", checker: "ty" });
    expect(result).toMatchObject({ success: true, passed: true });
    expectIncreasing(seen);
    expect(seen.map((p) => p.message)).toEqual(
      expect.arrayContaining(["type_check: checking with ty", "type_check: running ty"]),
    );
    expect(seen.every((p) => p.total === undefined)).toBe(true);
  });

  it.skipIf(missing("pytest"))(
    "a cancelled call is ended: its process killed, no progress after it",
    async () => {
      const controller = new AbortController();
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const call = s.client.callTool({ name: "run_tests", arguments: { path: "slow" } }, undefined, {
        timeout: 600_000,
        signal: controller.signal,
        onprogress: (p) => {
          if (p.message === "run_tests: running pytest") started();
        },
      });
      await running;
      controller.abort("no longer needed");
      await expect(call).rejects.toThrow();
      // One concurrency slot: this call runs only once the cancelled one has let go of it (pytest killed).
      const next = await s.call("check_markdown_links", { path: "docs/p0.md", check_external: false });
      expect(next).toMatchObject({ success: true, files_checked: 1 });
      // A notification for the cancelled call's token would have reached the client as an unknown token.
      expect(clientErrors.map((e) => e.message)).toEqual([]);
    },
  );
});

describe("progress over Streamable HTTP", () => {
  it("a call that asks for progress is answered as an event stream carrying it first", async () => {
    const http = await startHttp({ args: ["--allowed-paths", project], cwd: project });
    const c = await connectHttp(http);
    try {
      const seen: Progress[] = [];
      const r = resultOf(
        await c.client.callTool(
          { name: "check_markdown_links", arguments: { path: "docs", check_external: false } },
          undefined,
          {
            onprogress: (p) => void seen.push(p),
          },
        ),
      );
      expect(r).toMatchObject({ success: true, files_checked: 20 });
      expectIncreasing(seen);
      expect(seen.at(-1)).toMatchObject({
        total: 21,
        message: expect.stringMatching(/20 of 20 file\(s\) checked/),
      });
      // Without a progressToken, the answer is one JSON body as before (test/mcp/http.test.ts).
      expect(
        await c.call("check_markdown_links", { path: "docs/p0.md", check_external: false }),
      ).toMatchObject({
        files_checked: 1,
      });
    } finally {
      await c.close();
      await http.stop();
    }
  });
});
