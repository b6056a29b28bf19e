/**
 * A one-shot check defers V8's incremental marking (src/one-shot-gc.ts) and turns it back on where the
 * process starts allocating much: the Markdown link checker, a worker thread. Measured in `npm run bench`
 * (docs/check.md), not here; here, that each of them turns it back on.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deferMarkingForOneShot, markIncrementally, markingDeferred } from "../../src/one-shot-gc.js";
import { checkMarkdownLinks } from "../../src/adapters/markdown/checker.js";
import { startWorker } from "../../src/exec/worker-threads.js";
import { Allowlist } from "../../src/paths/allowlist.js";
import { tempDir } from "../helpers/tools.js";

// The flags are the test process's: left as V8's default after each test.
afterEach(() => markIncrementally());

describe("a one-shot check's incremental marking", () => {
  it("is deferred until something allocates much, and a server never defers it", () => {
    expect(markingDeferred()).toBe(false);
    deferMarkingForOneShot();
    expect(markingDeferred()).toBe(true);
    markIncrementally();
    expect(markingDeferred()).toBe(false);
  });

  it("is turned back on by the Markdown link checker", async () => {
    const dir = tempDir("mcq-one-shot-gc-");
    fs.writeFileSync(path.join(dir, "README.md"), "# Title\n\n[self](#title)\n");
    deferMarkingForOneShot();
    const report = await checkMarkdownLinks({
      target: dir,
      allowlist: new Allowlist([dir], dir),
      checkExternal: false,
      timeoutMs: 1000,
      concurrent: 1,
      ignorePatterns: [],
      exclude: [],
      skipAnchors: false,
      displayBase: dir,
    });
    expect(report.filesChecked).toBe(1);
    expect(markingDeferred()).toBe(false);
  });

  it("is turned back on by a worker thread's start", async () => {
    deferMarkingForOneShot();
    const worker = startWorker("process.exit(0)", { eval: true });
    expect(markingDeferred()).toBe(false);
    await new Promise((resolve) => worker.once("exit", resolve));
  });
});
