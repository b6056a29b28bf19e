/**
 * Issue 26.5: type-check and test counts come from the whole stream, not from the head and tail kept under the
 * 100,000-byte output cap. Each project makes its tool print well over the cap; every count must be the one the
 * tool itself reports, run directly on the same project.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const CAP = 100_000;
const PYRIGHT = path.join(REPO_ROOT, "node_modules", "pyright", "index.js");

/** Four modules of 300 wrong assignments each: 1,200 diagnostics from every checker. */
function typeErrorsProject(): string {
  const dir = tempDir("mcq-checker-counts-");
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "counts"\nversion = "0"\n');
  fs.mkdirSync(path.join(dir, "pkg"));
  for (let i = 0; i < 4; i++)
    fs.writeFileSync(
      path.join(dir, "pkg", `m${i}.py`),
      Array.from({ length: 300 }, (_, j) => `v${j}: int = "s"\n`).join(""),
    );
  return dir;
}

function run(program: string, args: string[], cwd: string) {
  return spawnSync(program, args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, PATH: `${TOOLS_VENV_BIN}:${process.env.PATH}`, GOTOOLCHAIN: "local" },
  });
}

describe("type-check counts past the output cap", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = typeErrorsProject();
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: `${TOOLS_VENV_BIN}:${process.env.PATH}`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(missing("ty", [TOOLS_VENV_BIN]))("ty: issue_count is ty's own count", async () => {
    const own = run("ty", ["check", "--output-format", "concise", "pkg"], dir).stdout;
    expect(own.length).toBeGreaterThan(CAP);
    const expected = Number(/Found (\d+) diagnostics/.exec(own)?.[1]);
    expect(expected).toBe(1200);
    const r = await s.call("type_check", { path: "pkg", checker: "ty" });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: expected });
    expect(r.summary).toMatchObject({ errors: expected, total_in_project: expected });
  });

  it.skipIf(missing("mypy"))("mypy: issue_count is mypy's own count, cold and from its daemon", async () => {
    const own = run("mypy", ["--no-incremental", "--show-column-numbers", "pkg"], dir).stdout;
    expect(own.length).toBeGreaterThan(CAP);
    const expected = Number(/Found (\d+) errors? in/.exec(own)?.[1]);
    expect(expected).toBe(1200);
    for (let call = 0; call < 2; call++) {
      const r = await s.call("type_check", { path: "pkg", checker: "mypy" });
      expect(r).toMatchObject({ success: true, passed: false, issue_count: expected });
    }
  });

  it("pyright: a report over the cap is read whole (its summary's errorCount)", async () => {
    const own = run(process.execPath, [PYRIGHT, "--outputjson", "pkg"], dir).stdout;
    expect(own.length).toBeGreaterThan(CAP);
    const expected = (JSON.parse(own) as { summary: { errorCount: number } }).summary.errorCount;
    expect(expected).toBe(1200);
    const r = await s.call("type_check", { path: "pkg", checker: "pyright" });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: expected });
  });
});

describe.skipIf(missing("go"))("go test counts past the output cap", () => {
  it("passed is the number of tests go test ran", async () => {
    const dir = tempDir("mcq-go-counts-");
    fs.writeFileSync(path.join(dir, "go.mod"), "module example.com/counts\n\ngo 1.21\n");
    fs.writeFileSync(path.join(dir, "lib.go"), "package counts\n\nfunc Add(a, b int) int { return a + b }\n");
    const tests = Array.from(
      { length: 1500 },
      (_, i) =>
        `func TestAdd${i}(t *testing.T) {\n\tif Add(${i}, 1) != ${i + 1} {\n\t\tt.Fatal("bad")\n\t}\n}\n`,
    );
    tests.push('func TestFails(t *testing.T) {\n\tt.Errorf("wanted %d", 5)\n}\n');
    const source = `package counts\n\nimport "testing"\n\n${tests.join("\n")}`;
    fs.writeFileSync(path.join(dir, "lib_test.go"), source);
    const failLine = source.split("\n").findIndex((l) => l.includes("wanted %d")) + 1;
    const own = run("go", ["test", "-json", "./..."], dir).stdout;
    expect(own.length).toBeGreaterThan(CAP);
    const events = own
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { Action: string; Test?: string });
    const count = (action: string) => events.filter((e) => e.Test && e.Action === action).length;
    expect(count("pass")).toBe(1500);
    const s = await connectStdio({ args: ["--allowed-paths", dir, "--rate-limit", "false"], cwd: dir });
    try {
      const r = await s.call("run_tests", { path: "." });
      expect(r).toMatchObject({
        success: true,
        passed: false,
        runner: "go test",
        summary: { passed: count("pass"), failed: count("fail"), skipped: count("skip") },
        failure_count: 1,
      });
      expect(r.failures).toEqual([
        expect.objectContaining({
          node_id: "example.com/counts.TestFails",
          line: failLine,
          message: `lib_test.go:${failLine}: wanted 5`,
        }),
      ]);
    } finally {
      await s.close();
    }
  });
});
