/**
 * run_tests may write the project it tests, and no other (a red team's run): with every allowed root
 * read-write a test suite wrote into a sibling project, and planted a conftest.py above the projects that
 * every later run_tests loaded (pytest was told to load conftest.py files up to the allowed root, where pytest
 * by hand stops at the folder of the project's config). Real pytest, real bubblewrap, through the server.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

describe.skipIf(missing("pytest"))("run_tests writes its own project only", () => {
  const root = fs.realpathSync(tempDir("mcq-tests-own-"));
  const at = (...p: string[]) => path.join(root, ...p);
  let s: Connected;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    fs.mkdirSync(at("victim"));
    fs.writeFileSync(at("victim", "pyproject.toml"), '[project]\nname = "victim"\n');
    fs.mkdirSync(at("attacker", "tests"), { recursive: true });
    fs.writeFileSync(
      at("attacker", "pyproject.toml"),
      '[project]\nname = "attacker"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    );
    fs.writeFileSync(
      at("attacker", "tests", "test_write.py"),
      `import os


def attempt(p):
    try:
        with open(p, "w") as f:
            f.write("x")
        return "wrote"
    except OSError as e:
        return type(e).__name__


def test_writes():
    own = attempt(${JSON.stringify(at("attacker", "own.txt"))})
    sibling = attempt(${JSON.stringify(at("victim", "pwned.txt"))})
    above = attempt(${JSON.stringify(at("conftest.py"))})
    assert (own, sibling, above) == ("wrote", "wrote", "wrote"), f"own={own} sibling={sibling} above={above}"


def test_fails():
    assert 1 == 2
`,
    );
    // A project without a pytest section in its pyproject.toml: pytest's rootdir is its folder all the same.
    fs.mkdirSync(at("plain"));
    fs.writeFileSync(at("plain", "pyproject.toml"), '[project]\nname = "plain"\n');
    fs.writeFileSync(at("plain", "test_plain.py"), "def test_fails():\n    assert 1 == 2\n");
    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", root],
    });
  });
  afterAll(() => s?.close());

  it("writes in the tested project, never in a sibling or above it", async () => {
    const r = await s.call("run_tests", { path: at("attacker", "tests"), working_dir: at("attacker") });
    const text = JSON.stringify(r);
    expect(text, text.slice(0, 2000)).toContain("own=wrote sibling=OSError above=OSError");
    expect(fs.existsSync(at("attacker", "own.txt"))).toBe(true);
    expect(fs.existsSync(at("victim", "pwned.txt"))).toBe(false);
    expect(fs.existsSync(at("conftest.py"))).toBe(false);
  });

  it("loads no conftest.py above the folder of the project's config, as pytest by hand", async () => {
    // As if planted by an earlier run: it would turn every failure into a pass.
    fs.writeFileSync(
      at("conftest.py"),
      "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = 'passed'\n",
    );
    try {
      const byHand = spawnSync(
        "pytest",
        ["-q", "-p", "no:cacheprovider", "tests/test_write.py::test_fails"],
        {
          cwd: at("attacker"),
          encoding: "utf8",
        },
      );
      expect(byHand.status, byHand.stdout).toBe(1);
      const r = await s.call("run_tests", {
        path: at("attacker", "tests", "test_write.py"),
        working_dir: at("attacker"),
      });
      expect(r).toMatchObject({ passed: false });
      expect(JSON.stringify(r)).toContain("test_fails");
    } finally {
      fs.rmSync(at("conftest.py"), { force: true });
    }
  });

  it("loads no conftest.py above a project whose pyproject.toml has no pytest section, as pytest by hand", async () => {
    // A red team's skip-all conftest.py one folder above: run_tests passed (--confcutdir was the allowed root).
    fs.writeFileSync(
      at("conftest.py"),
      "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n    for item in items:\n        item.add_marker(pytest.mark.skip)\n",
    );
    try {
      const byHand = spawnSync("pytest", ["-q", "-p", "no:cacheprovider"], {
        cwd: at("plain"),
        encoding: "utf8",
      });
      expect(byHand.status, byHand.stdout).toBe(1);
      const r = await s.call("run_tests", { path: at("plain") });
      expect(r, JSON.stringify(r).slice(0, 2000)).toMatchObject({ passed: false });
      expect(JSON.stringify(r)).toContain("test_fails");
    } finally {
      fs.rmSync(at("conftest.py"), { force: true });
    }
  });
});

describe.skipIf(missing("pytest"))("run_tests with a relative path", () => {
  // Two allowed roots, the server started in the attacker's: `path: "."` is the attacker's project.
  const attacker = fs.realpathSync(tempDir("mcq-tests-rel-attacker-"));
  const victim = fs.realpathSync(tempDir("mcq-tests-rel-victim-"));
  let s: Connected;

  beforeAll(async () => {
    fs.writeFileSync(path.join(attacker, "pyproject.toml"), '[project]\nname = "attacker"\n');
    fs.writeFileSync(
      path.join(attacker, "test_rel.py"),
      `def attempt(p):
    try:
        with open(p, "w") as f:
            f.write("x")
        return "wrote"
    except OSError as e:
        return type(e).__name__


def test_writes():
    own = attempt(${JSON.stringify(path.join(attacker, "own.txt"))})
    victim = attempt(${JSON.stringify(path.join(victim, "conftest.py"))})
    assert (own, victim) == ("wrote", "wrote"), f"own={own} victim={victim}"
`,
    );
    s = await connectStdio({
      cwd: attacker,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", `${attacker},${victim}`],
    });
  });
  afterAll(() => s?.close());

  it("makes writable the project the path resolves to, and no other allowed root", async () => {
    const r = await s.call("run_tests", { path: "." });
    const text = JSON.stringify(r);
    expect(text, text.slice(0, 2000)).toContain("own=wrote victim=OSError");
    expect(fs.existsSync(path.join(victim, "conftest.py"))).toBe(false);
  });
});
