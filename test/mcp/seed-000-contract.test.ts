/**
 * Seed 000's answers, through the MCP client: bandit missing is `tool_not_found` (not a pass with a note), and
 * a NUL in any text that would become a program argument is `invalid_input` (not Node's exception), whatever
 * the tool. The link checker's shape is pinned in test/markdown/.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const BANDIT_PROJECT = path.join(FIXTURES, "python", "bandit-project");

describe("seed 000: bandit missing", () => {
  let s: Connected;
  beforeAll(async () => {
    // No bandit anywhere the server looks: an empty PATH and no virtualenv.
    s = await connectStdio({
      args: ["--allowed-paths", BANDIT_PROJECT],
      cwd: BANDIT_PROJECT,
      env: { PATH: tempDir("mcq-empty-path-"), VIRTUAL_ENV: undefined },
    });
  });
  afterAll(async () => s?.close());

  it("security_scan of a Python project is tool_not_found, naming bandit and how to install it", async () => {
    const r = await s.call("security_scan", { path: "app" });
    expect(r).toMatchObject({ success: false, error_type: "tool_not_found" });
    expect(r.error).toMatch(/^bandit is not installed .*pip install bandit$/);
    expect(r.scanners).toEqual([
      expect.objectContaining({ name: "bandit", ran: false, install: "pip install bandit" }),
    ]);
    expect("passed" in r).toBe(false);
  });
});

describe("seed 000: a NUL in text that becomes a program argument", () => {
  let s: Connected;
  let project: string;
  beforeAll(async () => {
    project = tempDir("mcq-nul-");
    fs.mkdirSync(path.join(project, "tests"));
    fs.writeFileSync(path.join(project, "tests", "test_a.py"), "def test_a():\n    assert True\n");
    s = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
  });
  afterAll(async () => s?.close());

  it.skipIf(missing("pytest"))("run_tests' markers: invalid_input naming the argument", async () => {
    const r = await s.call("run_tests", { path: "tests", markers: "slow\u0000" });
    expect(r).toMatchObject({
      success: false,
      error_type: "invalid_input",
      argument: "markers",
      error: "markers contains a NUL character (\\u0000), which no program argument can hold",
    });
  });

  it.skipIf(missing("pytest"))("run_tests' pattern (-k): the same", async () => {
    const r = await s.call("run_tests", { path: "tests", pattern: "a\u0000b" });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input", argument: "pattern" });
  });
});
