/** Pure pieces behind type_check's config handling, the warm checkers and run_tests, on real inputs. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  iniSection,
  mypyConfig,
  planCheck,
  pyrightConfig,
} from "../../src/adapters/python/checker-config.js";
import { dmypyDaemonArgs, dmypyRunRequest } from "../../src/adapters/python/dmypy.js";
import { parseJunitFailures } from "../../src/adapters/python/junit.js";
import { splitReports } from "../../src/adapters/python/pyright-warm.js";
import { choosePlugins, findCoverageConfig, splitNodeId } from "../../src/adapters/python/pytest.js";
import { FIXTURES } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

const CONFIGURED = path.join(FIXTURES, "python", "configured-project");

describe("checker configs", () => {
  it("reads [tool.mypy] files and [tool.pyright] include, up to the root only", () => {
    const src = path.join(CONFIGURED, "src", "shop");
    expect(mypyConfig(src, CONFIGURED)).toMatchObject({
      file: path.join(CONFIGURED, "pyproject.toml"),
      section: "[tool.mypy]",
      targets: ["src"],
    });
    expect(pyrightConfig(src, CONFIGURED)).toMatchObject({ section: "[tool.pyright]", targets: ["src"] });
    // A root below the config: nothing above the root is read.
    expect(mypyConfig(src, path.join(CONFIGURED, "src"))).toBeUndefined();
  });

  it("plans the run: the config's list from its folder, a narrower path filters, an outside one is passed", () => {
    const config = mypyConfig(CONFIGURED, CONFIGURED);
    expect(planCheck(CONFIGURED, config, "files")).toMatchObject({ cwd: CONFIGURED, targets: [] });
    const cart = path.join(CONFIGURED, "src", "shop", "cart.py");
    expect(planCheck(cart, config, "files")).toMatchObject({
      cwd: CONFIGURED,
      targets: [],
      viewWithin: cart,
    });
    const scripts = path.join(CONFIGURED, "scripts");
    expect(planCheck(scripts, config, "files")).toMatchObject({ cwd: CONFIGURED, targets: [scripts] });
    expect(planCheck(scripts, undefined, "files")).toEqual({
      cwd: scripts,
      targets: [scripts],
      sourceDirs: [scripts],
    });
  });

  it("reads mypy's INI sections with continuation lines and comments", () => {
    const text =
      "[mypy]\nstrict = True\nfiles =\n    src,\n    tests\n# comment\n[mypy-pkg.*]\nignore_errors = True\n";
    expect(iniSection(text, "mypy")).toEqual({ strict: "True", files: "\nsrc,\ntests" });
    expect(iniSection(text, "other")).toBeUndefined();
    const dir = copyFixture(CONFIGURED);
    fs.rmSync(path.join(dir, "pyproject.toml"));
    fs.writeFileSync(path.join(dir, "setup.cfg"), text);
    expect(mypyConfig(dir, dir)?.targets).toEqual(["src", "tests"]);
  });
});

describe("dmypy", () => {
  it("runs the daemon in the foreground with a self-exit timeout and sends dmypy's run request", () => {
    expect(dmypyDaemonArgs("/t/s.json", ["--strict", "--", "/p"], 70)).toEqual([
      "--status-file",
      "/t/s.json",
      "daemon",
      "--timeout",
      "70",
      "--",
      "--strict",
      "--",
      "/p",
    ]);
    expect(JSON.parse(dmypyRunRequest("1.0.1", ["--strict"]))).toEqual({
      command: "run",
      version: "1.0.1",
      args: ["--strict"],
      export_types: false,
      is_tty: false,
      terminal_width: 80,
    });
  });
});

describe("pyright watch output", () => {
  it("splits the stream into its pretty-printed JSON reports, keeping a partial one", () => {
    const a = '{\n    "version": "1.1.414",\n    "summary": {\n        "errorCount": 1\n    }\n}\n';
    const b = '{\n    "version": "1.1.414",\n    "summary": {\n        "errorCount": 0\n    }\n}\n';
    const { reports, rest } = splitReports(a + b + '{\n    "version"');
    expect(reports.map((r) => JSON.parse(r).summary.errorCount)).toEqual([1, 0]);
    expect(rest).toBe('{\n    "version"');
  });
});

describe("run_tests pieces", () => {
  it("a node id's path part is split from the rest", () => {
    expect(splitNodeId("tests/test_x.py::TestY::test_z[a::b]")).toEqual({
      file: "tests/test_x.py",
      rest: "TestY::test_z[a::b]",
    });
    expect(splitNodeId("tests/")).toEqual({ file: "tests/" });
  });

  it("plugins: the project's own and pytest_cov for coverage; others are skipped", () => {
    expect(
      choosePlugins(
        [
          ["benchmark", false],
          ["pytest_cov", false],
          ["xdist", true],
        ],
        true,
      ),
    ).toEqual({
      load: ["pytest_cov", "xdist"],
      skipped: ["benchmark"],
    });
    expect(choosePlugins([["pytest_cov", false]], false)).toEqual({ load: [], skipped: ["pytest_cov"] });
  });

  it("finds [tool.coverage.run] source in the working directory", () => {
    const dir = path.join(FIXTURES, "python", "runtests-project");
    expect(findCoverageConfig(dir, dir)).toBe(path.join(dir, "pyproject.toml"));
    expect(findCoverageConfig(path.join(FIXTURES, "python", "coverage-project"), FIXTURES)).toBeUndefined();
  });

  it("a failure's line is the test file's last traceback line, also when it failed in a helper", () => {
    const xml = fs.readFileSync(
      path.join(FIXTURES, "python", "captured", "junit-helper-failure.xml"),
      "utf8",
    );
    expect(parseJunitFailures(xml, "/p").map((f) => [f.node_id, f.line])).toEqual([
      ["tests/test_stock.py::test_remove_too_many", 13],
      ["tests/test_stock.py::test_count_after_remove", 20],
    ]);
  });
});
