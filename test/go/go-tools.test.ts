/**
 * Go through the real server and the real tools: gofmt (check, diff, write), go vet, staticcheck and golint,
 * type_check with go build, run_tests with go test; each compared with the tool run directly.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";

const GO = path.join(FIXTURES, "go");
const PATH_WITH_GO_TOOLS = `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}`;

describe.skipIf(missing("go"))("Go", () => {
  let lintProject: string;
  let testsProject: string;
  let typeErrors: string;
  let notGo: string;
  let missingModule: string;
  let brokenDependency: string;
  let manyErrors: string;
  let s: Connected;
  beforeAll(async () => {
    lintProject = copyFixture(path.join(GO, "lint-project"));
    testsProject = copyFixture(path.join(GO, "tests-project"));
    typeErrors = copyFixture(path.join(GO, "type-errors"));
    missingModule = copyFixture(path.join(GO, "missing-module"));
    brokenDependency = copyFixture(path.join(GO, "broken-dependency"));
    notGo = tempDir();
    fs.writeFileSync(path.join(notGo, "x.go"), "package x\n");
    // More errors in one package than the compiler's limit of 10.
    manyErrors = tempDir();
    fs.writeFileSync(path.join(manyErrors, "go.mod"), "module m\n\ngo 1.21\n");
    const undefinedCalls = Array.from({ length: 12 }, (_, i) => `\tundefined${i}()\n`).join("");
    fs.writeFileSync(path.join(manyErrors, "main.go"), `package main\n\nfunc main() {\n${undefinedCalls}}\n`);
    s = await connectStdio({
      args: [
        "--allowed-paths",
        [lintProject, testsProject, typeErrors, notGo, missingModule, brokenDependency, manyErrors].join(","),
      ],
      cwd: lintProject,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
  });
  afterAll(async () => s?.close());

  it("format_check lists what gofmt -l lists, and diff: true gives gofmt -d's diff", async () => {
    const direct = spawnSync("gofmt", ["-d", "--", lintProject], { encoding: "utf8" });
    const r = await s.call("format_check", { path: ".", language: "go" });
    expect(r).toMatchObject({
      success: true,
      formatted: false,
      command: `gofmt -l -- ${lintProject}`,
      unformatted_files: ["messy.go"],
      unformatted_count: 1,
    });
    const d = await s.call("format_check", { path: ".", language: "go", diff: true });
    // gofmt's diff, its file headers shown by display path (relative to the project root).
    const shown = direct.stdout.replace(
      /^(---|\+\+\+) (\S+)/gm,
      (_, sign: string, file: string) => `${sign} ${path.relative(lintProject, file)}`,
    );
    expect(d).toMatchObject({ formatted: false, unformatted_files: ["messy.go"], output: shown });
    const clean = await s.call("format_check", { path: "main.go", language: "go" });
    expect(clean).toMatchObject({ formatted: true, unformatted_count: 0 });
  });

  it("a Go syntax error is a tool_error, not an unformatted file", async () => {
    fs.writeFileSync(path.join(typeErrors, "broken.go"), "package main\n\nfunc {\n");
    try {
      const r = await s.call("format_check", { path: typeErrors, language: "go" });
      expect(r).toMatchObject({ success: false, error_type: "tool_error" });
      expect(r.error).toMatch(/^gofmt failed \(exit 2\): .*broken\.go:3:6: expected/);
    } finally {
      fs.rmSync(path.join(typeErrors, "broken.go"));
    }
  });

  it("autoformat rewrites with gofmt -w inside a transaction; a dry run writes nothing", async () => {
    const file = path.join(lintProject, "messy.go");
    const before = fs.readFileSync(file, "utf8");
    const dry = await s.call("autoformat", { path: ".", language: "go", dry_run: true });
    expect(dry).toMatchObject({ success: true, dry_run: true, changed_files: ["messy.go"] });
    expect(dry.diff).toContain("+func Messy() int {");
    expect(fs.readFileSync(file, "utf8")).toBe(before);

    const r = await s.call("autoformat", { path: ".", language: "go" });
    expect(r).toMatchObject({
      success: true,
      command: `gofmt -w -- ${lintProject}`,
      changed_files: ["messy.go"],
    });
    expect(r.transaction).toMatchObject({ result: "commit", files_written: ["messy.go"] });
    expect(fs.readFileSync(file, "utf8")).toBe("package main\n\nfunc Messy() int {\n\treturn 1\n}\n");
    const rolled = await s.call("rollback", { path: lintProject });
    expect(rolled).toMatchObject({ success: true });
    expect(fs.readFileSync(file, "utf8")).toBe(before);
  });

  it("lint with govet reports go vet's printf finding at its position, with the analyzer as rule", async () => {
    const r = await s.call("lint", { path: ".", linter: "govet" });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      command: "go vet -json ./...",
      issues: ["main.go:11:20: printf fmt.Printf format %d has arg name of wrong type string"],
      issue_count: 1,
    });
    expect((r.findings as unknown[])[0]).toMatchObject({
      tool: "govet",
      file: path.join(lintProject, "main.go"),
      line: 11,
      column: 20,
      end_line: 11,
      end_column: 22,
      rule_id: "printf",
      severity: "warning",
    });
  });

  it.skipIf(missing("staticcheck", [TOOLS_GO_BIN]))(
    "lint with staticcheck matches staticcheck -f json",
    async () => {
      const direct = spawnSync(path.join(TOOLS_GO_BIN, "staticcheck"), ["-f", "json", "./..."], {
        cwd: lintProject,
        encoding: "utf8",
      });
      const codes = direct.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { code: string }).code);
      expect(codes).toEqual(["SA5009"]);
      const r = await s.call("lint", { path: ".", linter: "staticcheck" });
      expect(r).toMatchObject({
        success: true,
        passed: false,
        returncode: 1,
        issues: ["main.go:11:13: SA5009 Printf format %d has arg #1 of wrong type string"],
      });
      expect((r.findings as unknown[])[0]).toMatchObject({
        rule_id: "SA5009",
        severity: "error",
        line: 11,
        column: 13,
        end_line: 11,
        end_column: 25,
        docs_url: "https://staticcheck.dev/docs/checks/#SA5009",
      });
    },
  );

  it.skipIf(missing("golint", [TOOLS_GO_BIN]))(
    "lint with golint lists its comments and notes it is deprecated",
    async () => {
      const r = await s.call("lint", { path: ".", linter: "golint" });
      expect(r).toMatchObject({
        success: true,
        passed: false,
        issues: [
          "main.go:5:1: golint exported function Add should have comment or be unexported",
          "messy.go:3:1: golint exported function Messy should have comment or be unexported",
        ],
      });
      expect((r.notes as string[])[0]).toMatch(/^golint is deprecated upstream/);
    },
  );

  it("golint missing is a clear tool_not_found", async () => {
    const bare = await connectStdio({
      args: ["--allowed-paths", lintProject],
      cwd: lintProject,
      env: {
        PATH: path.dirname(spawnSync("which", ["go"], { encoding: "utf8" }).stdout.trim()),
        HOME: lintProject,
        GOPATH: undefined,
        GOBIN: undefined,
      },
    });
    try {
      const r = await bare.call("lint", { path: ".", linter: "golint" });
      expect(r).toMatchObject({ success: false, error_type: "tool_not_found" });
      expect(r.error).toMatch(/^golint is not installed .*deprecated upstream/);
    } finally {
      await bare.close();
    }
  });

  it("lint without a linter on a Go module runs go vet, and says why", async () => {
    const r = await s.call("lint", { path: "." });
    expect(r).toMatchObject({ success: true, command: "go vet -json ./...", issue_count: 1 });
    expect(r.notes).toContain("linter: govet (the project's languages: go)");
  });

  it("govet on a folder that is not in a Go module is invalid_input", async () => {
    const r = await s.call("lint", { path: notGo, linter: "govet" });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toBe(
      `go vet needs a Go module: no go.mod in ${notGo} or its parents inside the allowed root`,
    );
  });

  it("type_check with checker go lists every compiler error (go vet stops at the first)", async () => {
    const r = await s.call("type_check", { path: typeErrors });
    expect(r).toMatchObject({ success: true, passed: false, checker: "go", issue_count: 3 });
    expect(
      (r.findings as Record<string, unknown>[]).map((f) => [f.file, f.line, f.column, f.rule_id, f.message]),
    ).toEqual([
      [path.join(typeErrors, "main.go"), 4, 6, "compile", "declared and not used: n"],
      [
        path.join(typeErrors, "main.go"),
        4,
        14,
        "compile",
        'cannot use "three" (untyped string constant) as int value in variable declaration',
      ],
      [path.join(typeErrors, "main.go"), 5, 2, "compile", "undefined: undefinedCall"],
    ]);
    expect(fs.readdirSync(typeErrors).sort()).toEqual(["go.mod", "main.go"]);
    const clean = await s.call("type_check", { path: testsProject, checker: "go" });
    expect(clean).toMatchObject({ success: true, passed: true, issue_count: 0 });
    expect(fs.readdirSync(testsProject).sort()).toEqual(["add.go", "add_test.go", "go.mod"]);

    const vet = await s.call("lint", { path: typeErrors, linter: "govet" });
    expect(vet).toMatchObject({ success: false, error_type: "tool_error" });
    expect(vet.error).toMatch(/could not type-check the code: \.\/main\.go:4:14: cannot use/);
  });

  it("type_check with checker go: past the compiler's limit of 10 errors, built again with -gcflags=-e for all", async () => {
    const few = await s.call("type_check", { path: typeErrors, checker: "go" });
    expect(few.command).not.toContain("-gcflags=-e");
    const r = await s.call("type_check", { path: manyErrors, checker: "go" });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 12 });
    expect(r.command).toContain("-gcflags=-e");
    expect((r.findings as { message: string }[]).map((f) => f.message)).not.toContain("too many errors");
    const direct = spawnSync("go", ["build", "-gcflags=-e", "-o", "/dev/null", "./..."], {
      cwd: manyErrors,
      encoding: "utf8",
      env: { ...process.env, PATH: PATH_WITH_GO_TOOLS, GOTOOLCHAIN: "local" },
    });
    expect(direct.stderr.split("\n").filter((l) => l.includes(": undefined: "))).toHaveLength(12);
  });

  it("go vet on code whose import no module provides names go's error, as `go vet` prints it", async () => {
    const direct = spawnSync("go", ["vet", "-json", "./..."], { cwd: missingModule, encoding: "utf8" });
    expect(direct.status).toBe(1);
    expect(direct.stderr).toMatch(
      /^main\.go:3:8: no required module provides package example\.com\/notrequired\/greet/,
    );
    const vet = await s.call("lint", { path: missingModule, linter: "govet" });
    expect(vet).toMatchObject({ success: false, error_type: "tool_error", returncode: 1 });
    expect(vet.error).toMatch(
      /^go vet could not type-check the code: main\.go:3:8: no required module provides package example\.com\/notrequired\/greet/,
    );
  });

  it.skipIf(missing("staticcheck", [TOOLS_GO_BIN]))(
    "staticcheck lists a compile error once, not once per package variant as its CLI prints it",
    async () => {
      const direct = spawnSync(path.join(TOOLS_GO_BIN, "staticcheck"), ["./..."], {
        cwd: brokenDependency,
        encoding: "utf8",
      });
      const printed = direct.stdout.split("\n").filter((l) => l.startsWith("lib/lib.go:5:9: cannot use"));
      expect(printed).toHaveLength(2);
      const r = await s.call("lint", { path: brokenDependency, linter: "staticcheck" });
      expect(r).toMatchObject({
        success: true,
        passed: false,
        issue_count: 1,
        issues: [
          'lib/lib.go:5:9: compile cannot use "forty-two" (untyped string constant) as int value in return statement',
        ],
      });
    },
  );

  it("run_tests runs go test -json: counts, the failure at its t.Errorf line, coverage, -run and -failfast", async () => {
    const r = await s.call("run_tests", { path: testsProject, coverage: true });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "go test",
      command: "go test -json -cover ./...",
      returncode: 1,
      summary: { passed: 1, failed: 1, skipped: 1, packages_failed: 1, build_failed: 0 },
      failure_count: 1,
      coverage_percent: 100,
    });
    expect(r.failures).toEqual([
      {
        node_id: "example.com/testsproject.TestAddFails",
        kind: "failed",
        file: "add_test.go",
        line: 14,
        message: "add_test.go:14: Add(2, 2) = 4, want 5",
      },
    ]);
    const only = await s.call("run_tests", { path: testsProject, pattern: "TestAddPasses", fail_fast: true });
    expect(only).toMatchObject({
      passed: true,
      command: "go test -json -run TestAddPasses -failfast ./...",
      summary: { passed: 1, failed: 0, skipped: 0 },
    });
  });

  it("get_status lists the Go, Rust and Ruby tools with their versions", async () => {
    const r = await s.call("get_status");
    const tools = r.tools as Record<string, { available: boolean; version?: string }>;
    expect(tools.go).toMatchObject({ available: true, version: expect.stringMatching(/^1\.\d+/) });
    expect(tools.gofmt).toMatchObject({ available: true });
    if (!missing("staticcheck", [TOOLS_GO_BIN]))
      expect(tools.staticcheck).toMatchObject({
        available: true,
        version: expect.stringMatching(/^\d{4}\.\d+/),
      });
    if (!missing("golint", [TOOLS_GO_BIN]))
      expect(tools.golint).toMatchObject({ available: true, version: "unversioned (deprecated upstream)" });
    for (const name of ["cargo", "clippy", "rustfmt", "rubocop", "ruby"])
      expect(Object.keys(tools)).toContain(name);
  });
});
