/**
 * A project whose pytest config sets `testpaths`: `pytest` run in its folder collects those paths only;
 * pytest given the folder as a path collects everything below it. run_tests on the project's folder ran
 * the latter (flask: 1 skipped and 3 collection errors, its examples' tests among them, where `pytest` there
 * gives 1 skipped and 1 error); it now runs as `pytest` there does. The real pytest, compared directly.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pytestArgs, pytestTestpaths } from "../../src/adapters/python/pytest.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** pytest's final summary line run directly in `cwd` with `args`, whatever its exit code. */
function pytestSummary(args: string[], cwd: string): string {
  let out: string;
  try {
    out = execFileSync("pytest", ["-p", "no:cacheprovider", ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" },
    });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  return out.trim().split("\n").at(-1) ?? "";
}

describe("pytestTestpaths", () => {
  const dir = tempDir("mcq-testpaths-configs-");
  const cases: [string, string, string[] | undefined][] = [
    [
      "pyproject.toml",
      '[tool.pytest.ini_options]\ntestpaths = ["tests", "integration"]\n',
      ["tests", "integration"],
    ],
    ["pyproject.toml", '[tool.pytest]\ntestpaths = ["tests"]\n', ["tests"]],
    ["pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-q"\n', undefined],
    ["pytest.ini", "[pytest]\ntestpaths =\n    tests\n    more\n", ["tests", "more"]],
    ["tox.ini", "[tox]\nenv_list = py\n\n[pytest]\ntestpaths = t\n", ["t"]],
    ["setup.cfg", "[tool:pytest]\ntestpaths = a b\n", ["a", "b"]],
    ["setup.cfg", "[pytest]\ntestpaths = a\n", undefined],
  ];
  it("reads testpaths from each kind of config, in its section only", () => {
    cases.forEach(([name, text, expected], i) => {
      const file = path.join(dir, String(i), name);
      write(file, text);
      expect(pytestTestpaths(file), `${name}: ${text}`).toEqual(expected);
    });
    expect(pytestTestpaths(path.join(dir, "none", "pytest.ini"))).toBeUndefined();
  });

  it("pytestArgs names no path when none is given", () => {
    const args = pytestArgs({ verbose: false, failFast: false, junitXml: "/t/j.xml" });
    expect(args[0]).toBe("-p");
    expect(pytestArgs({ target: "/p", verbose: false, failFast: false, junitXml: "/t/j.xml" })[0]).toBe("/p");
  });
});

describe.skipIf(missing("pytest"))("run_tests on a project whose pytest config sets testpaths", () => {
  const project = tempDir("mcq-testpaths-");
  let s: Connected;
  beforeAll(async () => {
    write(path.join(project, "pyproject.toml"), '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n');
    write(path.join(project, "tests", "test_ok.py"), "def test_ok():\n    assert True\n");
    write(path.join(project, "tests", "test_two.py"), "def test_two():\n    assert 1 + 1 == 2\n");
    // A test outside testpaths, failing: `pytest` in the project never collects it.
    write(path.join(project, "examples", "test_example.py"), "def test_example():\n    assert False\n");
    s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: tempDir("mcq-testpaths-cwd-"),
      env: { VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it("collects what `pytest` in the project collects, not what `pytest <project>` does", async () => {
    expect(pytestSummary([], project)).toMatch(/\b2 passed\b/);
    expect(pytestSummary([], project)).not.toMatch(/failed/);
    expect(pytestSummary([project], project)).toMatch(/1 failed, 2 passed/);
    const r = await s.call("run_tests", { path: project });
    expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({
      success: true,
      passed: true,
      summary: { passed: 2 },
    });
    expect((r.summary as Record<string, number>).failed ?? 0).toBe(0);
    expect(r.notes).toEqual(expect.arrayContaining([expect.stringContaining("testpaths = tests")]));
  });

  it("a sub-folder, a file or a node id is still run as named", async () => {
    const examples = await s.call("run_tests", { path: path.join(project, "examples") });
    expect(examples).toMatchObject({ success: true, passed: false, summary: { failed: 1 } });
    const one = await s.call("run_tests", { path: `${path.join(project, "tests", "test_ok.py")}::test_ok` });
    expect(one).toMatchObject({ success: true, passed: true, summary: { passed: 1 } });
  });
});
