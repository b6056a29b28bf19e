/** --max-concurrent bounds how many tool runs overlap (observed from the runs' own start/end log). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { reportChannel, type Fifo } from "../helpers/channel.js";

/** A stand-in flake8 that logs when it starts and ends (it detects overlap; no tool output is faked). */
function project(): { dir: string; bin: string; channel: string; log: Fifo } {
  const dir = tempDir("mcq-conc-");
  const bin = path.join(dir, ".bin");
  // A FIFO in a root of its own: a sandboxed (read-only) lint may write nothing that lasts.
  const channel = reportChannel("mcq-conc-log-");
  const log = channel.fifo("runs.log");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(dir, "a.py"), "x = 1\n");
  fs.writeFileSync(
    path.join(bin, "flake8"),
    `#!/bin/sh\necho start >> ${log.path}\nsleep 0.4\necho end >> ${log.path}\n`,
    { mode: 0o755 },
  );
  return { dir, bin, channel: channel.dir, log };
}

async function overlapWith(maxConcurrent: number): Promise<string[]> {
  const { dir, bin, channel, log } = project();
  const s = await connectStdio({
    args: ["--allowed-paths", `${dir},${channel}`, "--max-concurrent", String(maxConcurrent)],
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
  const lines = log.read().trim().split("\n");
  log.close();
  return lines;
}

describe("concurrency limit", () => {
  it("--max-concurrent 1 runs calls one after another", async () => {
    expect(await overlapWith(1)).toEqual(["start", "end", "start", "end", "start", "end"]);
  });

  it("--max-concurrent 3 lets them overlap", async () => {
    expect((await overlapWith(3)).slice(0, 3)).toEqual(["start", "start", "start"]);
  });
});
