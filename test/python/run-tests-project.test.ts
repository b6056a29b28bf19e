/**
 * run_tests on a project laid out the usual way (src/ package, pyproject with pytest pythonpath and
 * `[tool.coverage.run] source`): node ids are accepted (their path part through the allowlist), a
 * failure's line is the failing line of the test from the traceback (not its `def`), coverage measures
 * what the project configures, and a pytest plugin installed outside the project's environment is not
 * loaded into its run (it would write `.benchmarks/` into the project). Compared with pytest run directly.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";
import { treeHash } from "./tree-hash.js";
import { makeVenv } from "./venv-helper.js";

const FIXTURE = path.join(FIXTURES, "python", "runtests-project");

/** A pytest plugin outside any project: on load it writes `.benchmarks/marker` into the rootdir. */
function outsidePlugin(): string {
  const dir = tempDir("mcq-outside-plugin-");
  fs.writeFileSync(
    path.join(dir, "writer_plugin.py"),
    "import os\n\ndef pytest_configure(config):\n" +
      "    os.makedirs(os.path.join(str(config.rootpath), '.benchmarks'), exist_ok=True)\n" +
      "    open(os.path.join(str(config.rootpath), '.benchmarks', 'marker'), 'w').close()\n",
  );
  const info = path.join(dir, "writer_plugin-1.0.dist-info");
  fs.mkdirSync(info);
  fs.writeFileSync(path.join(info, "METADATA"), "Metadata-Version: 2.1\nName: writer-plugin\nVersion: 1.0\n");
  fs.writeFileSync(path.join(info, "entry_points.txt"), "[pytest11]\nwriter = writer_plugin\n");
  return dir;
}

/** pytest run directly in `cwd`; its stdout whatever the exit code. */
function pytestDirect(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): string {
  try {
    return execFileSync(program, args, { cwd, encoding: "utf8", env: { ...process.env, ...env } });
  } catch (err) {
    return (err as { stdout: string }).stdout;
  }
}

describe.skipIf(missing("pytest"))("run_tests on a src-layout project", () => {
  let project: string;
  let plugin: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    plugin = outsidePlugin();
    s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { VIRTUAL_ENV: undefined, PYTHONPATH: plugin },
    });
  });
  afterAll(async () => s?.close());

  it("a failure's line is where the test failed, from the traceback, not its def line", async () => {
    const before = treeHash(project);
    const r = await s.call("run_tests", { working_dir: project });
    expect(r).toMatchObject({ success: true, passed: false, summary: { failed: 2, passed: 1 } });
    const file = "tests/test_stock.py";
    expect(r.failures).toEqual([
      // def on line 10; it fails in remove() (src/inventory/stock.py:3), called from line 13.
      {
        node_id: "tests/test_stock.py::test_remove_too_many",
        kind: "failed",
        file,
        line: 13,
        message: "ValueError: only 1 apple left",
      },
      // def on line 16; the assertion on line 20 fails.
      {
        node_id: "tests/test_stock.py::test_count_after_remove",
        kind: "failed",
        file,
        line: 20,
        message: "assert 3 == 2",
      },
    ]);
    // The same failures, at the same lines, as pytest prints them run directly.
    const direct = pytestDirect("pytest", ["-p", "no:cacheprovider", "-q", "-p", "no:writer"], project);
    expect(direct).toMatch(/^tests\/test_stock\.py:13: $/m);
    expect(direct).toMatch(/^tests\/test_stock\.py:20: AssertionError$/m);
    expect([...direct.matchAll(/^FAILED (\S+)/gm)].map((m) => m[1])).toEqual(
      (r.failures as { node_id: string }[]).map((f) => f.node_id),
    );
    expect(treeHash(project)).toBe(before);
  });

  it("a plugin from outside the project's environment is not loaded, so it writes nothing", async () => {
    // Run directly, pytest autoloads it and it writes .benchmarks/ into the project.
    const copy = copyFixture(FIXTURE);
    pytestDirect("pytest", ["-p", "no:cacheprovider", "-q"], copy, { PYTHONPATH: plugin });
    expect(fs.existsSync(path.join(copy, ".benchmarks", "marker"))).toBe(true);

    const before = treeHash(project);
    const r = await s.call("run_tests", { working_dir: project });
    expect(r).toMatchObject({ success: true, summary: { failed: 2, passed: 1 } });
    expect(fs.existsSync(path.join(project, ".benchmarks"))).toBe(false);
    expect(treeHash(project)).toBe(before);
  });

  it("accepts a pytest node id; its path part goes through the allowlist", async () => {
    const r = await s.call("run_tests", {
      working_dir: project,
      path: "tests/test_stock.py::test_count_after_remove",
    });
    expect(r).toMatchObject({ success: true, passed: false, summary: { failed: 1 }, failure_count: 1 });
    expect(r.command).toMatch(
      new RegExp(`^pytest ${project}/tests/test_stock\\.py::test_count_after_remove -p`),
    );
    const ok = await s.call("run_tests", { working_dir: project, path: "tests/test_stock.py::test_restock" });
    expect(ok).toMatchObject({ success: true, passed: true, summary: { passed: 1 } });

    const outside = await s.call("run_tests", { working_dir: project, path: "/etc/passwd::test_x" });
    expect(outside).toMatchObject({ success: false, error_type: "path_validation" });
    const option = await s.call("run_tests", { working_dir: project, path: "tests/test_stock.py::-x" });
    expect(option).toMatchObject({ success: false, error_type: "invalid_input" });
    const dir = await s.call("run_tests", { working_dir: project, path: "tests::test_x" });
    expect(dir).toMatchObject({ success: false, error_type: "invalid_input" });
  });
});

describe.skipIf(missing("/usr/bin/python3"))("run_tests coverage in the project's virtualenv", () => {
  it("measures what [tool.coverage.run] source names, as pytest-cov run directly does", async () => {
    const project = copyFixture(FIXTURE);
    const python = makeVenv(path.join(project, ".venv"), { systemSitePackages: true });
    const plugin = outsidePlugin();
    // pytest-cov run directly in the project's venv, on a copy.
    const copy = copyFixture(FIXTURE);
    const direct = pytestDirect(
      python,
      [
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:writer",
        "--cov",
        "--cov-report=term-missing",
        "-q",
      ],
      copy,
      { COVERAGE_FILE: path.join(tempDir("mcq-cov-"), ".coverage") },
    );
    const totalDirect = /^TOTAL\s+.*?(\d+)%$/m.exec(direct)?.[1];
    expect(totalDirect).toBe("88");

    const s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { VIRTUAL_ENV: undefined, PYTHONPATH: plugin },
    });
    try {
      const before = treeHash(project);
      const r = await s.call("run_tests", { working_dir: project, coverage: true });
      expect(r).toMatchObject({ success: true, summary: { failed: 2, passed: 1 }, coverage_percent: 88 });
      expect(r.command).toContain(` -p pytest_cov `);
      expect(r.command).toContain(
        `--cov --cov-config=${path.join(project, "pyproject.toml")} --cov-report=term-missing`,
      );
      expect(r.output).toMatch(/^src\/inventory\/stock\.py\s+8\s+1\s+88%\s+12$/m);
      expect(r.output).not.toMatch(/test_stock\.py\s+\d/);
      expect(r.notes).toContainEqual("plugins loaded: pytest_cov");
      // The outside plugin is not loaded: unsandboxed the server sees it and says it left it out; in the sandbox
      // its folder (outside the allowed paths) is not even visible.
      const notes = r.notes as string[];
      expect(notes.filter((n) => n.startsWith("plugins loaded:") && n.includes("writer"))).toEqual([]);
      if (!notes.some((n) => n.includes("could not see") || n.startsWith("plugins not loaded")))
        expect((await s.call("get_status")).sandbox).toMatchObject({ enforced: true });
      expect(r.notes).toContainEqual("coverage measures what pyproject.toml configures");
      expect(treeHash(project)).toBe(before);
    } finally {
      await s.close();
    }
  });
});
