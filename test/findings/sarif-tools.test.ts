/**
 * `output: "sarif"` on the other tools that report findings: lint_fix and fix_all leftovers, format_check,
 * check_markdown_links and run_tests. Every log validates against the SARIF 2.1.0 schema and holds one
 * result per finding the tool's own result lists.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { sarifErrors } from "../helpers/sarif.js";

interface Run {
  tool: { driver: { name: string } };
  invocations: { executionSuccessful: boolean }[];
  results: {
    ruleId: string;
    level: string;
    message: { text: string };
    locations?: {
      physicalLocation: { artifactLocation: { uri: string }; region?: Record<string, number> };
    }[];
  }[];
}

function runOf(r: Record<string, unknown>): Run {
  expect(r.success).toBe(true);
  expect(sarifErrors(r.sarif)).toEqual([]);
  const runs = (r.sarif as { runs: Run[] }).runs;
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

function where(run: Run) {
  return run.results.map((x) => ({
    rule: x.ruleId,
    uri: x.locations?.[0]?.physicalLocation.artifactLocation.uri,
    line: x.locations?.[0]?.physicalLocation.region?.startLine,
  }));
}

describe("SARIF from the Python tools that write or run", () => {
  const skip = missing("ruff", [TOOLS_VENV_BIN]);
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    if (skip) return;
    dir = copyFixture(path.join(FIXTURES, "python", "lint-project"));
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(skip)("lint_fix dry run: the problems left", async () => {
    const before = fs.readFileSync(path.join(dir, "pkg", "app.py"), "utf8");
    const r = await s.call("lint_fix", { path: "pkg/app.py", dry_run: true, output: "sarif" });
    const run = runOf(r);
    expect(run.tool.driver.name).toBe("ruff");
    expect(run.results.length).toBe(r.issue_count);
    // Located in the code as it would be after the fix (issue 16): the removed import moves E711 up a line.
    expect(where(run)).toEqual([{ rule: "E711", uri: "pkg/app.py", line: 7 }]);
    expect(fs.readFileSync(path.join(dir, "pkg", "app.py"), "utf8")).toBe(before);
  });

  it.skipIf(skip)("fix_all dry run: the problems left", async () => {
    const r = await s.call("fix_all", {
      path: "pkg/app.py",
      dry_run: true,
      skip_typecheck: true,
      output: "sarif",
    });
    const run = runOf(r);
    expect(run.results.length).toBe(r.issue_count);
  });

  it.skipIf(skip)("format_check: each file that would change, at its first changed line", async () => {
    const r = await s.call("format_check", { path: "pkg/app.py", output: "sarif" });
    expect(r.unformatted_files).toEqual(["pkg/app.py"]);
    const run = runOf(r);
    // app.py's first difference from ruff's formatting is line 6 (`x = [1,2,`).
    expect(where(run)).toEqual([{ rule: "format", uri: "pkg/app.py", line: 6 }]);
  });
});

describe("SARIF from check_markdown_links and run_tests", () => {
  let s: Connected;
  let root: string;
  beforeAll(async () => {
    root = copyFixture(FIXTURES);
    s = await connectStdio({
      args: ["--allowed-paths", root, "--rate-limit", "false"],
      cwd: root,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it("check_markdown_links: one result per broken link occurrence (each of an entry's lines)", async () => {
    const r = await s.call("check_markdown_links", {
      path: path.join(root, "markdown", "links"),
      check_external: false,
      output: "sarif",
    });
    const run = runOf(r);
    const byPlace = (a: { file: string; line: number }, b: { file: string; line: number }) =>
      a.file.localeCompare(b.file) || a.line - b.line;
    const expected = (r.broken as { file: string; lines?: number[] }[])
      .flatMap((b) => (b.lines ?? [0]).map((line) => ({ file: encodeURI(b.file), line })))
      .sort(byPlace);
    expect(
      run.results
        .map((x) => ({
          file: x.locations![0]!.physicalLocation.artifactLocation.uri,
          line: x.locations![0]!.physicalLocation.region?.startLine ?? 0,
        }))
        .sort(byPlace),
    ).toEqual(expected);
    expect(run.results.length).toBeGreaterThan(0);
  });

  it("lint and type_check that check nothing still give a valid log: one run, no results", async () => {
    const dir = path.join(root, "markdown", "links");
    for (const [tool, args] of [
      ["lint", { path: dir, linter: "ruff", output: "sarif" }],
      ["type_check", { path: dir, checker: "mypy", output: "sarif" }],
    ] as const) {
      const r = await s.call(tool, args);
      expect(r.nothing_checked).toBe(true);
      expect(runOf(r).results).toEqual([]);
    }
  });

  it.skipIf(missing("pytest"))("run_tests: a failure at its file and line", async () => {
    const r = await s.call("run_tests", {
      path: path.join(root, "python", "tests-project"),
      output: "sarif",
    });
    const run = runOf(r);
    const failures = r.failures as { node_id: string; kind: string; line: number }[];
    expect(run.results.length).toBe(r.failure_count);
    expect(run.results.map((x) => [x.ruleId, x.locations![0]!.physicalLocation.region!.startLine])).toEqual(
      failures.map((f) => [f.kind, f.line]),
    );
  });
});
