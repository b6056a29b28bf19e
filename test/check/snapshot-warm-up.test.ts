/**
 * The check the command line's snapshot build runs (src/snapshot-warm-up.ts), so that a check's functions are
 * compiled in the heap: it really checks (its stand-in ruff's finding in both runs), and it leaves nothing a
 * process from the snapshot must make for itself: the variables it changed are back, its folder is gone,
 * no child runs, and the child marks are made anew.
 */
import fs from "node:fs";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { warmUpCheck } from "../../src/snapshot-warm-up.js";
import { hasToolsAhead, toolsFor } from "../../src/mcp/tools/index.js";
import {
  forgetChildMarks,
  liveChildGroups,
  markedEnv,
  SERVER_TOKEN_VAR,
} from "../../src/exec/child-groups.js";

const warmUpFolders = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith("mcq-snapshot-warm-up-"));

describe("the snapshot's warm-up check", () => {
  it("checks for real, then puts back what it changed", async () => {
    const before = { PATH: process.env.PATH, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
    const folders = warmUpFolders();
    const token = markedEnv("t", true)[SERVER_TOKEN_VAR];
    // The report, then --json: each exits 1 for the stand-in ruff's F401.
    expect(await warmUpCheck()).toEqual([1, 1]);
    expect({ PATH: process.env.PATH, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME }).toEqual(before);
    expect(warmUpFolders()).toEqual(folders);
    expect(liveChildGroups()).toEqual([]);
    // The server's token made by its runs was forgotten: the next child is marked with a new one.
    expect(markedEnv("t", true)[SERVER_TOKEN_VAR]).not.toBe(token);
    // The tools a check makes first wait for the first check from the snapshot (its check took any before).
    expect(hasToolsAhead(["core"], { retainTraces: "off" })).toBe(true);
    toolsFor(["core"], { retainTraces: "off" });
    expect(hasToolsAhead(["core"], { retainTraces: "off" })).toBe(false);
  }, 60_000);

  it("without a temporary folder to warm up in, runs nothing and fails nothing (only speed is lost)", async () => {
    const tmpdir = process.env.TMPDIR;
    process.env.TMPDIR = "/nonexistent-mcq-warm-up";
    try {
      expect(await warmUpCheck()).toEqual([]);
    } finally {
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
    }
  });

  it("forgets the server's token: the next mark is a new one", () => {
    const first = markedEnv("a")[SERVER_TOKEN_VAR];
    expect(markedEnv("b")[SERVER_TOKEN_VAR]).toBe(first);
    forgetChildMarks();
    expect(markedEnv("c")[SERVER_TOKEN_VAR]).not.toBe(first);
  });
});
