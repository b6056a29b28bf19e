/** run_tests through the real server and real pytest on fixture projects. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";
import { makeVenv } from "./venv-helper.js";
import { liveWithEnv, untilNone } from "../helpers/marked.js";

const PY = path.join(FIXTURES, "python");
const NO_VENV_ENV = { VIRTUAL_ENV: undefined };

describe("run_tests on a suite with every outcome", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(path.join(PY, "tests-project"));
    s = await connectStdio({ args: ["--allowed-paths", project], cwd: project, env: NO_VENV_ENV });
  });
  afterAll(async () => s?.close());

  it.skipIf(missing("pytest"))(
    "reports every outcome count, the failures from JUnit XML, and which pytest ran",
    async () => {
      const r = await s.call("run_tests", { working_dir: project });
      expect(r).toMatchObject({ success: true, passed: false, returncode: 1 });
      expect(r.summary).toEqual({
        failed: 2,
        passed: 5,
        skipped: 2,
        xfailed: 1,
        xpassed: 1,
        warnings: 1,
        errors: 1,
      });
      expect(r.command).toMatch(
        /^pytest \S+\/tests -p no:cacheprovider --confcutdir=\S+ -c \S+\/pyproject\.toml --junit-xml=\S+\/junit\.xml -o junit_family=xunit1$/,
      );
      expect(r.failure_count).toBe(3);
      // Relative to the project root, as every result shows files.
      const file = "tests/test_calc.py";
      expect(r.failures).toEqual([
        {
          node_id: "tests/test_calc.py::test_add_wrong",
          kind: "failed",
          file,
          line: 23,
          message: "AssertionError: two plus two should be five\nassert 4 == 5",
        },
        {
          node_id: "tests/test_calc.py::test_uses_resource",
          kind: "error",
          file,
          line: 53,
          message: 'failed on setup with "RuntimeError: database is down"',
        },
        {
          node_id: "tests/test_calc.py::TestDivide::test_float",
          kind: "failed",
          file,
          line: 66,
          message: "assert 0.25 == 0.3\n +  where 0.25 = divide(1, 4)",
        },
      ]);
      expect(r.notes).toEqual([
        expect.stringMatching(/^pytest from PATH \(\/\S+\/pytest\); no project virtualenv found$/),
      ]);
      expect(r.output).toMatch(/short test summary info/);
      // Nothing written into the project: no .pytest_cache, no __pycache__.
      expect(
        fs
          .readdirSync(project, { recursive: true })
          .filter((f) => /\.pytest_cache|__pycache__/.test(String(f))),
      ).toEqual([]);
    },
  );

  it.skipIf(missing("pytest"))(
    "a file glob pattern sets python_files; relative paths resolve against working_dir",
    async () => {
      const r = await s.call("run_tests", { working_dir: project, path: "tests", pattern: "other_*.py" });
      expect(r.command).toContain("-o 'python_files=other_*.py'");
      expect(r).toMatchObject({
        success: true,
        passed: true,
        returncode: 0,
        summary: { passed: 1 },
        failures: [],
      });
    },
  );

  it.skipIf(missing("pytest"))("any other pattern is a -k expression", async () => {
    const r = await s.call("run_tests", { working_dir: project, pattern: "add and not wrong" });
    expect(r.command).toContain("-k 'add and not wrong'");
    expect(r).toMatchObject({ passed: true, summary: { passed: 2, deselected: 10 } });
  });

  it.skipIf(missing("pytest"))("markers select with -m; verbose lists each test", async () => {
    const r = await s.call("run_tests", { working_dir: project, markers: "slow", verbose: true });
    expect(r.command).toContain("-m slow -v");
    expect(r).toMatchObject({ passed: true, summary: { passed: 1, deselected: 11 } });
    expect(r.output).toMatch(/tests\/test_calc\.py::test_divide PASSED/);
  });

  it.skipIf(missing("pytest"))("fail_fast stops at the first failure", async () => {
    const r = await s.call("run_tests", {
      working_dir: project,
      path: "tests/test_calc.py",
      fail_fast: true,
    });
    expect(r.command).toContain(" -x ");
    expect(r).toMatchObject({
      passed: false,
      returncode: 1,
      summary: { failed: 1, passed: 3 },
      failure_count: 1,
    });
  });

  it.skipIf(missing("pytest"))("no tests collected (exit 5) is not a pass, and says why", async () => {
    const r = await s.call("run_tests", { working_dir: project, pattern: "nothing_*.py" });
    expect(r).toMatchObject({ success: true, passed: false, returncode: 5, summary: {} });
    expect(r.notes).toContain("no tests were collected (pytest exit code 5)");
  });

  it.skipIf(missing("pytest"))(
    "a module that cannot be imported is a collection error (exit 2) with its cause",
    async () => {
      const broken = copyFixture(path.join(PY, "collect-error-project"));
      const b = await connectStdio({ args: ["--allowed-paths", broken], cwd: broken, env: NO_VENV_ENV });
      try {
        const r = await b.call("run_tests", {});
        expect(r).toMatchObject({ success: true, passed: false, returncode: 2, summary: { errors: 1 } });
        expect(r.failures).toEqual([
          {
            node_id: "tests/test_broken.py",
            kind: "error",
            file: "tests/test_broken.py",
            line: 1,
            message:
              "collection failure: ModuleNotFoundError: No module named 'nonexistent_module_for_tests'",
          },
        ]);
        expect(r.notes).toContain("pytest was interrupted (exit code 2), e.g. by collection errors");
      } finally {
        await b.close();
      }
    },
  );

  it("refuses paths outside the allowlist and option-like expressions, running nothing", async () => {
    expect(await s.call("run_tests", { working_dir: "/tmp" })).toMatchObject({
      error_type: "path_validation",
    });
    expect(await s.call("run_tests", { working_dir: project, path: "../.." })).toMatchObject({
      error_type: "path_validation",
    });
    expect(await s.call("run_tests", { working_dir: project, path: "missing_dir" })).toMatchObject({
      error_type: "path_validation",
    });
    const r = await s.call("run_tests", { working_dir: project, pattern: "--co" });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
  });
});

describe("run_tests uses the project's virtualenv first", () => {
  it.skipIf(missing("/usr/bin/python3"))(
    "coverage with the venv's pytest-cov; the data file stays out of the project",
    async () => {
      const project = copyFixture(path.join(PY, "coverage-project"));
      const python = makeVenv(path.join(project, ".venv"), { systemSitePackages: true });
      const s = await connectStdio({ args: ["--allowed-paths", project], cwd: project, env: NO_VENV_ENV });
      try {
        const r = await s.call("run_tests", { working_dir: project, coverage: true });
        expect(r).toMatchObject({
          success: true,
          passed: true,
          summary: { passed: 2 },
          coverage_percent: 77,
        });
        expect(r.command).toMatch(
          new RegExp(`^${python} -m pytest .* --cov=${project} --cov-report=term-missing`),
        );
        expect(r.notes).toEqual([
          `pytest run as \`${python} -m pytest\` (the project's virtualenv ${path.join(project, ".venv")})`,
          "plugins loaded: pytest_cov",
        ]);
        expect(r.output).toMatch(/shapes\.py\s+8\s+3\s+62%\s+10-12/);
        expect(fs.readdirSync(project).filter((f) => f.startsWith(".coverage"))).toEqual([]);
      } finally {
        await s.close();
      }
    },
  );

  it.skipIf(missing("/usr/bin/python3"))(
    "a virtualenv without pytest is tool_not_found, naming it",
    async () => {
      const project = copyFixture(path.join(PY, "coverage-project"));
      const python = makeVenv(path.join(project, "venv"), { systemSitePackages: false });
      const s = await connectStdio({ args: ["--allowed-paths", project], cwd: project, env: NO_VENV_ENV });
      try {
        const r = await s.call("run_tests", { working_dir: project });
        expect(r).toMatchObject({ success: false, error_type: "tool_not_found" });
        expect(r.error).toBe(`pytest is not installed in the project's virtualenv (${python})`);
      } finally {
        await s.close();
      }
    },
  );

  it.skipIf(missing("/usr/bin/python3") || !fs.existsSync("/opt/pypi/simple/pytest"))(
    "coverage without pytest-cov in the project's pytest is a clear tool_error",
    async () => {
      const project = copyFixture(path.join(PY, "coverage-project"));
      makeVenv(path.join(project, ".venv"), { systemSitePackages: false, install: ["pytest"] });
      const s = await connectStdio({ args: ["--allowed-paths", project], cwd: project, env: NO_VENV_ENV });
      try {
        const plain = await s.call("run_tests", { working_dir: project });
        expect(plain).toMatchObject({ success: true, passed: true, summary: { passed: 2 } });
        const r = await s.call("run_tests", { working_dir: project, coverage: true });
        expect(r).toMatchObject({ success: false, error_type: "tool_error" });
        expect(r.error).toMatch(/^coverage needs pytest-cov, which .*\/\.venv\/bin\/python does not have/);
      } finally {
        await s.close();
      }
    },
  );
});

describe("run_tests on a suite that hangs", () => {
  it.skipIf(missing("pytest"))("kills pytest and the child it spawned at the timeout", async () => {
    const project = copyFixture(path.join(PY, "hang-project"));
    // In the project, which run_tests may write (a sandboxed test sees nothing else of the host).
    const pidFile = path.join(project, "child.pid");
    const s = await connectStdio({
      args: ["--allowed-paths", project, "--timeout", "4"],
      cwd: project,
      env: { ...NO_VENV_ENV, HANG_PID_FILE: pidFile },
    });
    try {
      const r = await s.call("run_tests", { working_dir: project });
      expect(r).toMatchObject({ success: false, error_type: "timeout" });
      expect(r.error).toMatch(/exceeded the 4 s timeout and was killed with its process group/);
      expect(Number(fs.readFileSync(pidFile, "utf8"))).toBeGreaterThan(0);
      // Found by the environment it inherited: in a sandbox the pid it wrote is its pid namespace's.
      const left = () => liveWithEnv(`HANG_PID_FILE=${pidFile}`).filter((p) => p !== s.pid);
      expect(await untilNone(left, 5000)).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
