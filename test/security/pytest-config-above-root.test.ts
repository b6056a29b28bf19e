/**
 * pytest looks for its configuration (pytest.ini, pyproject.toml, tox.ini, setup.cfg) in every ancestor of
 * the tests, and loads conftest.py files from ancestors too, far above the allowed root. run_tests must keep
 * it to the allowed root: an outside conftest.py is not executed and an outside pytest.ini not applied.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

/** outer/{conftest.py,pytest.ini} above outer/proj (allowed) with one passing test. */
function layout(): { outer: string; proj: string } {
  const outer = tempDir("mcq-pytest-above-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(proj, "tests"), { recursive: true });
  fs.writeFileSync(path.join(proj, "tests", "test_a.py"), "def test_a():\n    assert True\n");
  fs.writeFileSync(
    path.join(outer, "conftest.py"),
    'import pathlib\npathlib.Path(__file__).with_name("EXECUTED").write_text("1")\n',
  );
  fs.writeFileSync(path.join(outer, "pytest.ini"), "[pytest]\naddopts = -k nothing_matches\n");
  return { outer, proj };
}

describe.skipIf(missing("pytest"))("run_tests keeps pytest's configuration inside the allowed root", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it("ignores conftest.py and pytest.ini above the root", async () => {
    const { outer, proj } = layout();
    s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj });
    const r = await s.call("run_tests", { path: "tests" });
    expect(fs.existsSync(path.join(outer, "EXECUTED"))).toBe(false);
    expect(r.success).toBe(true);
    expect(r.summary).toEqual({ passed: 1 });
  });

  it("still uses a pytest config inside the root", async () => {
    const { proj } = layout();
    fs.writeFileSync(
      path.join(proj, "pyproject.toml"),
      '[tool.pytest.ini_options]\naddopts = "-k nothing_matches"\n',
    );
    s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj });
    const r = await s.call("run_tests", { path: "tests" });
    expect(r.summary).toEqual({ deselected: 1 });
  });
});
