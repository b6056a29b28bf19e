/** pytest's summary line, JUnit XML and argv, on output captured from real runs. */
import { describe, expect, it } from "vitest";
import { parseJunitFailures } from "../../src/adapters/python/junit.js";
import {
  isFileGlob,
  parseCoverageTotal,
  parsePytestSummary,
  parseRootdir,
  pytestArgs,
} from "../../src/adapters/python/pytest.js";

describe("parsePytestSummary", () => {
  it("reads every outcome pytest prints, singular and plural", () => {
    expect(
      parsePytestSummary(
        "FAILED x\n= 2 failed, 5 passed, 2 skipped, 1 xfailed, 1 xpassed, 1 warning, 1 error in 0.03s =\n",
      ),
    ).toEqual({ failed: 2, passed: 5, skipped: 2, xfailed: 1, xpassed: 1, warnings: 1, errors: 1 });
    expect(parsePytestSummary("==== 3 passed, 9 deselected, 2 warnings, 2 errors in 1.20s ====")).toEqual({
      passed: 3,
      deselected: 9,
      warnings: 2,
      errors: 2,
    });
    // -q prints it without the rule; long runs add the h:mm:ss.
    expect(parsePytestSummary("....\n4 passed in 61.02s (0:01:01)\n")).toEqual({ passed: 4 });
  });

  it("no tests ran is an empty summary; no summary line is undefined", () => {
    expect(parsePytestSummary("===== no tests ran in 0.01s =====")).toEqual({});
    expect(parsePytestSummary("ERROR: usage: pytest [options]\n")).toBeUndefined();
  });
});

describe("other pytest output", () => {
  it("coverage total and rootdir (pytest 7 and 8+ header forms)", () => {
    expect(parseCoverageTotal("Name  Stmts  Miss  Cover\nTOTAL    13      3    77%\n")).toBe(77);
    expect(parseCoverageTotal("no coverage here")).toBeUndefined();
    expect(parseRootdir("rootdir: /p/x, configfile: pyproject.toml\nplugins: cov")).toBe("/p/x");
    expect(parseRootdir("rootdir: /p/y\nconfigfile: pyproject.toml")).toBe("/p/y");
  });

  it("argv: glob vs -k, markers, flags, coverage and the JUnit report", () => {
    expect(isFileGlob("test_*.py")).toBe(true);
    expect(isFileGlob("check_things.py")).toBe(true);
    expect(isFileGlob("login and not slow")).toBe(false);
    expect(
      pytestArgs({
        target: "/p/tests",
        pattern: "login",
        markers: "not slow",
        verbose: true,
        failFast: true,
        coverageSource: "/p",
        junitXml: "/tmp/j.xml",
      }),
    ).toEqual([
      "/p/tests",
      "-p",
      "no:cacheprovider",
      "-k",
      "login",
      "-m",
      "not slow",
      "-v",
      "-x",
      "--cov=/p",
      "--cov-report=term-missing",
      "--junit-xml=/tmp/j.xml",
      "-o",
      "junit_family=xunit1",
    ]);
  });
});

describe("parseJunitFailures", () => {
  // Captured from `pytest -o junit_family=xunit1 --junit-xml` on test/fixtures/python/tests-project (trimmed).
  const xml = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="2" skipped="3" tests="12" time="0.030"><testcase classname="tests.test_calc" name="test_add" file="tests/test_calc.py" line="7" time="0.000" /><testcase classname="tests.test_calc" name="test_add_wrong" file="tests/test_calc.py" line="20" time="0.000"><failure message="AssertionError: two plus two should be five&#10;assert 4 == 5">def test_add_wrong():
        result = add(2, 2)
&gt;       assert result == 5, "two plus two should be five"
E       AssertionError: two plus two should be five
E       assert 4 == 5

tests/test_calc.py:23: AssertionError</failure></testcase><testcase classname="tests.test_calc" name="test_later" file="tests/test_calc.py" line="25" time="0.000"><skipped type="pytest.skip" message="not written yet">/p/tests/test_calc.py:26: not written yet</skipped></testcase><testcase classname="tests.test_calc" name="test_uses_resource" file="tests/test_calc.py" line="55" time="0.000"><error message="failed on setup with &quot;RuntimeError: database is down&quot;">@pytest.fixture
    def broken_resource():
&gt;       raise RuntimeError("database is down")
E       RuntimeError: database is down

tests/test_calc.py:53: RuntimeError</error></testcase><testcase classname="tests.test_calc.TestDivide" name="test_float[1-4]" file="tests/test_calc.py" line="64" time="0.000"><failure message="assert 0.25 == 0.3">helper.py:3: AssertionError</failure></testcase></testsuite></testsuites>`;

  it("gives node id, kind, absolute file, crash line and message; skips are not failures", () => {
    expect(parseJunitFailures(xml, "/p")).toEqual([
      {
        node_id: "tests/test_calc.py::test_add_wrong",
        kind: "failed",
        file: "/p/tests/test_calc.py",
        line: 23,
        message: "AssertionError: two plus two should be five\nassert 4 == 5",
      },
      {
        node_id: "tests/test_calc.py::test_uses_resource",
        kind: "error",
        file: "/p/tests/test_calc.py",
        line: 53,
        message: 'failed on setup with "RuntimeError: database is down"',
      },
      {
        // The crash is in another file, so the line is the test's own (0-based 64 → 65).
        node_id: "tests/test_calc.py::TestDivide::test_float[1-4]",
        kind: "failed",
        file: "/p/tests/test_calc.py",
        line: 65,
        message: "assert 0.25 == 0.3",
      },
    ]);
  });
});
