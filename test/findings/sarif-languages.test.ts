/**
 * `output: "sarif"` from the Go, Rust, Ruby and JavaScript tools: go vet, staticcheck, golint, clippy and
 * RuboCop lints, and the go test, cargo test and node --test runners. Each log validates against the SARIF
 * 2.1.0 schema, holds one result per finding the tool's own result lists, at the same place (project-root
 * relative URIs), and clippy's safe fixes applied give exactly what clippy --fix writes.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";
import { applySarifFix, sarifErrors } from "../helpers/sarif.js";

interface Replacement {
  deletedRegion: { startLine: number; startColumn: number; endLine: number; endColumn: number };
  insertedContent?: { text: string };
}
interface Result {
  ruleId: string;
  level: string;
  message: { text: string };
  locations?: {
    physicalLocation: {
      artifactLocation: { uri: string; uriBaseId?: string };
      region?: Record<string, number>;
    };
  }[];
  fixes?: { artifactChanges: { replacements: Replacement[] }[] }[];
  properties?: Record<string, unknown>;
}
interface Run {
  tool: { driver: { name: string; rules?: { id: string }[] } };
  invocations: { executionSuccessful: boolean }[];
  results: Result[];
}

function runOf(r: Record<string, unknown>): Run {
  expect(r.success).toBe(true);
  expect(sarifErrors(r.sarif)).toEqual([]);
  const runs = (r.sarif as { runs: Run[] }).runs;
  expect(runs).toHaveLength(1);
  const run = runs[0]!;
  expect(run.invocations[0]!.executionSuccessful).toBe(true);
  // Every result names a rule the driver describes, at a project-root-relative place.
  const ids = new Set((run.tool.driver.rules ?? []).map((x) => x.id));
  for (const x of run.results) {
    expect(ids.has(x.ruleId)).toBe(true);
    const loc = x.locations![0]!.physicalLocation;
    expect(loc.artifactLocation.uriBaseId).toBe("%SRCROOT%");
    expect(loc.artifactLocation.uri).not.toMatch(/^(\/|\.\.)/);
  }
  return run;
}

const where = (run: Run) =>
  run.results.map((x) => {
    const loc = x.locations![0]!.physicalLocation;
    const column = loc.region?.startColumn === undefined ? "" : `:${loc.region.startColumn}`;
    return `${loc.artifactLocation.uri}:${loc.region?.startLine}${column} ${x.ruleId} ${x.level}`;
  });

const elsewhere = tempDir("mcq-elsewhere-");

describe("SARIF from the Go, Rust, Ruby and JavaScript tools", () => {
  const root = tempDir();
  type Fixture = "goLint" | "goTests" | "crate" | "crateFixed" | "rustTests" | "ruby" | "nodeTests";
  const dirs = {} as Record<Fixture, string>;
  let s: Connected;
  beforeAll(async () => {
    for (const [name, fixture] of [
      ["goLint", "go/lint-project"],
      ["goTests", "go/tests-project"],
      ["crate", "rust/lint-crate"],
      ["crateFixed", "rust/lint-crate"],
      ["rustTests", "rust/tests-crate"],
      ["ruby", "ruby/project"],
      ["nodeTests", "js/node-test-project"],
    ] as const) {
      const dir = path.join(root, name);
      fs.cpSync(copyFixture(path.join(FIXTURES, fixture)), dir, { recursive: true });
      dirs[name] = dir;
    }
    // Started outside every project, so URIs cannot come from the server's working directory.
    s = await connectStdio({
      args: ["--allowed-paths", root, "--rate-limit", "false"],
      cwd: elsewhere,
      env: { PATH: `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}` },
    });
  });
  afterAll(async () => s?.close());

  it.skipIf(missing("go"))("go vet, staticcheck and golint: one result per issue, at its place", async () => {
    const vet = await s.call("lint", { path: dirs.goLint, linter: "govet", output: "sarif" });
    expect(where(runOf(vet))).toEqual(["main.go:11:20 printf warning"]);
    if (!missing("staticcheck", [TOOLS_GO_BIN])) {
      const sc = await s.call("lint", { path: dirs.goLint, linter: "staticcheck", output: "sarif" });
      const run = runOf(sc);
      expect(run.tool.driver.name).toBe("staticcheck");
      expect(where(run)).toEqual(["main.go:11:13 SA5009 error"]);
    }
    if (!missing("golint", [TOOLS_GO_BIN])) {
      const gl = await s.call("lint", { path: dirs.goLint, linter: "golint", output: "sarif" });
      const run = runOf(gl);
      expect(run.results).toHaveLength(gl.issue_count as number);
      expect(where(run)).toEqual(["main.go:5:1 golint warning", "messy.go:3:1 golint warning"]);
    }
  });

  it.skipIf(missing("go"))("go test: the failing test at its t.Errorf line", async () => {
    const r = await s.call("run_tests", { path: dirs.goTests, output: "sarif" });
    const run = runOf(r);
    expect(run.tool.driver.name).toBe("go test");
    expect(run.results).toHaveLength(r.failure_count as number);
    expect(where(run)).toEqual(["add_test.go:14 failed error"]);
  });

  it.skipIf(missing("cargo"))(
    "clippy: its findings, and its safe fixes applied give what clippy --fix writes",
    async () => {
      const lib = path.join(dirs.crate, "src", "lib.rs");
      const before = fs.readFileSync(lib, "utf8");
      const r = await s.call("lint", { path: dirs.crate, linter: "clippy", output: "sarif" });
      const run = runOf(r);
      expect(where(run)).toEqual([
        "src/lib.rs:2:5 clippy::needless_return warning",
        "src/lib.rs:5:24 clippy::ptr_arg warning",
        "src/lib.rs:6:5 clippy::len_zero warning",
      ]);
      let fixed = before;
      // Applied last line first, so the earlier edits' positions still hold.
      for (const x of run.results.filter((x) => x.properties?.fixSafety === "safe").reverse())
        fixed = applySarifFix(fixed, x.fixes![0]!.artifactChanges[0]!.replacements);
      const real = await s.call("lint_fix", { path: dirs.crateFixed, linter: "clippy" });
      expect(real).toMatchObject({ success: true });
      expect(fixed).not.toBe(before);
      expect(fixed).toBe(fs.readFileSync(path.join(dirs.crateFixed, "src", "lib.rs"), "utf8"));
    },
  );

  it.skipIf(missing("cargo"))("cargo test: the failing test at its panic line", async () => {
    const r = await s.call("run_tests", { path: dirs.rustTests, output: "sarif" });
    const run = runOf(r);
    expect(run.results).toHaveLength(r.failure_count as number);
    expect(where(run)).toEqual(["src/lib.rs:18 failed error"]);
  });

  it.skipIf(missing("rubocop"))("RuboCop: one result per offense, relative to the Ruby project", async () => {
    const r = await s.call("lint", { path: dirs.ruby, linter: "rubocop", output: "sarif" });
    const run = runOf(r);
    expect(run.tool.driver.name).toBe("rubocop");
    expect(run.results).toHaveLength(r.issue_count as number);
    expect(where(run)).toEqual([
      "app.rb:4:3 Lint/UselessAssignment warning",
      "app.rb:5:3 Style/RedundantReturn warning",
      "app.rb:5:10 Style/StringConcatenation warning",
      "app.rb:5:10 Style/StringLiterals warning",
      "lib/layout.rb:4:1 Layout/IndentationWidth warning",
    ]);
  });

  it("node --test: the failing test at its assertion line", async () => {
    const r = await s.call("run_tests", { path: dirs.nodeTests, output: "sarif" });
    const run = runOf(r);
    expect(run.results).toHaveLength(r.failure_count as number);
    expect(where(run)).toEqual(["test/math.test.js:12 failed error"]);
  });
});
