/** Pure pieces behind type_check's config handling, the warm checkers and run_tests, on real inputs. */
import fs from "node:fs";
import os from "node:os";
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
import { parsePyrightJson } from "../../src/adapters/python/pyright.js";
import {
  pythonFileStates,
  reportFromLsp,
  treeChanges,
  type LspDiagnostic,
} from "../../src/adapters/python/pyright-lsp-report.js";
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

describe("pyright's language server answers, as the CLI's report", () => {
  // Captured from pyright-langserver 1.1.414 (pull diagnostics) and `pyright --outputjson` on the
  // configured-project fixture: the rebuilt report parses to what the CLI printed.
  const captured = JSON.parse(
    fs.readFileSync(path.join(FIXTURES, "python", "captured", "pyright-langserver-pulls.json"), "utf8"),
  ) as {
    pulls: Record<string, { kind: string; items?: LspDiagnostic[] }>;
    cli: { generalDiagnostics: unknown[] };
  };

  it("rebuilds the CLI's diagnostics from the per-file pulls", () => {
    const byFile = new Map(Object.entries(captured.pulls).map(([file, r]) => [file, r.items ?? []]));
    const report = reportFromLsp(byFile, "1.1.414", 12);
    expect(parsePyrightJson(report)).toEqual(parsePyrightJson(JSON.stringify(captured.cli)));
    expect(JSON.parse(report).summary).toMatchObject({ errorCount: 1, warningCount: 0, timeInSec: 0.012 });
  });

  it("drops hints, keeps information, and orders by file then position", () => {
    const at = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 1 } });
    const report = JSON.parse(
      reportFromLsp(
        new Map([
          ["/p/b.py", [{ range: at(3), severity: 3, message: "info", code: "reportX" }]],
          [
            "/p/a.py",
            [
              { range: at(9), severity: 1, message: "late" },
              { range: at(2), severity: 4, message: "unused" },
              { range: at(1), severity: 2, message: "early", code: "reportY" },
            ],
          ],
        ]),
        "1.1.414",
        0,
      ),
    );
    expect(report.generalDiagnostics.map((d: { message: string }) => d.message)).toEqual([
      "early",
      "late",
      "info",
    ]);
    expect(report.generalDiagnostics[1]).not.toHaveProperty("rule");
    expect(report.summary).toMatchObject({ errorCount: 1, warningCount: 1, informationCount: 1 });
  });

  it("tells edits from added and removed files", () => {
    const before = new Map([
      ["/p/a.py", "1:1:1"],
      ["/p/b.py", "1:1:2"],
      ["/p/c.py", "1:1:3"],
    ]);
    const now = new Map([
      ["/p/a.py", "1:1:1"],
      ["/p/b.py", "2:5:2"],
      ["/p/d.py", "1:1:4"],
    ]);
    expect(treeChanges(before, now)).toEqual({
      changed: ["/p/b.py"],
      added: ["/p/d.py"],
      removed: ["/p/c.py"],
    });
  });

  it("walks the project's Python files, skipping dot folders, caches and virtualenvs", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-walk-"));
    try {
      const put = (rel: string) => {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.writeFileSync(path.join(dir, rel), "x = 1\n");
      };
      for (const f of ["app.py", "pkg/mod.py", "pkg/types.pyi", "build/gen.py", "notes.txt"]) put(f);
      for (const f of [".hidden/a.py", "pkg/__pycache__/b.py", "node_modules/c.py", "env/lib/d.py"]) put(f);
      put("env/pyvenv.cfg");
      const files = [...pythonFileStates([dir]).keys()].map((f) => path.relative(dir, f)).sort();
      expect(files).toEqual(["app.py", "build/gen.py", "pkg/mod.py", "pkg/types.pyi"]);
      // Past the limit the walk stops (and a warm pyright runs cold instead of checking part of the project).
      expect(pythonFileStates([dir], 2).size).toBe(2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
