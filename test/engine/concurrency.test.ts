/** --max-concurrent bounds how many tool runs overlap (observed from the runs' own start/end log). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { scratchFolder } from "../helpers/marked.js";

/** A stand-in flake8 that logs when it starts and ends (it detects overlap; no tool output is faked). */
function project(): { dir: string; bin: string; log: string } {
  const dir = tempDir("mcq-conc-");
  const bin = path.join(dir, ".bin");
  // In the scratch folder: the one place outside the roots a sandboxed (read-only) lint may write.
  const log = path.join(scratchFolder("conc-"), "runs.log");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(dir, "a.py"), "x = 1\n");
  fs.writeFileSync(
    path.join(bin, "flake8"),
    `#!/bin/sh\necho start >> ${log}\nsleep 0.4\necho end >> ${log}\n`,
    { mode: 0o755 },
  );
  return { dir, bin, log };
}

async function overlapWith(maxConcurrent: number): Promise<string[]> {
  const { dir, bin, log } = project();
  const s = await connectStdio({
    args: ["--allowed-paths", dir, "--max-concurrent", String(maxConcurrent)],
    cwd: dir,
    env: { PATH: `${bin}:/usr/bin:/bin` },
  });
  try {
    const results = await Promise.all(
      [1, 2, 3].map(() => s.call("lint", { path: "a.py", linter: "flake8" })),
    );
    for (const r of results) expect(r.success).toBe(true);
  } finally {
    await s.close();
  }
  return fs.readFileSync(log, "utf8").trim().split("\n");
}

describe("concurrency limit", () => {
  it("--max-concurrent 1 runs calls one after another", async () => {
    expect(await overlapWith(1)).toEqual(["start", "end", "start", "end", "start", "end"]);
  });

  it("--max-concurrent 3 lets them overlap", async () => {
    expect((await overlapWith(3)).slice(0, 3)).toEqual(["start", "start", "start"]);
  });
});
