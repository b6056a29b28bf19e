/**
 * A read-only tool or a dry run never writes, whatever the project's config says. The fixture's
 * pyproject.toml asks for writes (ruff `fix = true`, `unsafe-fixes`, a cache dir; pytest `--junitxml`
 * and `cache_dir`; mypy `cache_dir`; flake8 `output-file`); every call hashes the whole tree before and
 * after and asserts it unchanged, and that the call did its job (so a refusal cannot pass for "no write").
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/exec/which.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const PROJECT = path.join(FIXTURES, "python", "writes-config-project");
const SYSTEM_PATH = "/usr/bin:/bin";
const RUFF = path.join(TOOLS_VENV_BIN, "ruff");

/** PATH for the server: the system tools, pytest's directory, and the tools venv (ruff, ty) when asked. */
function serverPath(withToolsVenv: boolean): string {
  const pytest = findExecutable("pytest");
  return [
    ...(withToolsVenv ? [TOOLS_VENV_BIN] : []),
    ...(pytest ? [path.dirname(pytest)] : []),
    SYSTEM_PATH,
  ].join(":");
}

describe("the fixture really asks for writes", () => {
  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("plain `ruff check` rewrites it (config fix = true)", () => {
    const dir = copyFixture(PROJECT);
    const before = treeHash(dir);
    try {
      execFileSync(RUFF, ["check", "."], { cwd: dir, stdio: "ignore" });
    } catch {
      // exit 1: problems left after the fix
    }
    expect(treeHash(dir)).not.toEqual(before);
  });
});

describe.each([
  ["the ruff CLI", true],
  ["the embedded ruff", false],
])("read-only calls and dry runs with %s write nothing", (_name, withCli) => {
  const skip = withCli && missing("ruff", [TOOLS_VENV_BIN]);
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    if (skip) return;
    dir = copyFixture(PROJECT);
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: serverPath(withCli), VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());
  // A fresh copy for every test, so that one tool's write cannot hide another's.
  beforeEach(() => {
    if (skip) return;
    for (const entry of fs.readdirSync(dir))
      fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    fs.cpSync(PROJECT, dir, { recursive: true });
  });

  /** The result of `call`, asserting that the tree is the same after it as before. */
  const noWrites = async (tool: string, args: Record<string, unknown>) => {
    const before = treeHash(dir);
    const r = await s.call(tool, args);
    expect(treeHash(dir), `${tool} ${JSON.stringify(args)} changed the tree`).toEqual(before);
    return r;
  };

  it.skipIf(skip)("lint (ruff)", async () => {
    const r = await noWrites("lint", { path: "." });
    expect(r).toMatchObject({ success: true, passed: false });
    // Reported where the unmodified file has them: `import sys` on line 1 is still there.
    expect(r.issues).toContainEqual(expect.stringMatching(/^pkg\/app\.py:1:8: F401 /));
  });

  it.skipIf(skip)("format_check (ruff), with and without diff", async () => {
    for (const diff of [false, true]) {
      const r = await noWrites("format_check", { path: ".", diff });
      expect(r).toMatchObject({ success: true, formatted: false });
    }
  });

  it.skipIf(skip)("lint_fix dry_run, safe and unsafe", async () => {
    for (const safety of ["safe", "unsafe"]) {
      const r = await noWrites("lint_fix", { path: ".", dry_run: true, safety });
      expect(r).toMatchObject({ success: true, dry_run: true });
    }
  });

  it.skipIf(skip)("autoformat dry_run (ruff)", async () => {
    const r = await noWrites("autoformat", { path: ".", dry_run: true });
    expect(r).toMatchObject({ success: true });
    expect(r.changed_files).toContain("pkg/app.py");
  });

  it.skipIf(skip)("fix_all dry_run", async () => {
    const r = await noWrites("fix_all", { path: ".", dry_run: true, skip_typecheck: true });
    expect(r).toMatchObject({ success: true });
  });

  it.skipIf(skip || missing("flake8"))("lint (flake8)", async () => {
    const r = await noWrites("lint", { path: ".", linter: "flake8" });
    expect(r).toMatchObject({ success: true, passed: false });
  });

  it.skipIf(skip || missing("black"))("format_check and autoformat dry_run (black)", async () => {
    const check = await noWrites("format_check", { path: ".", formatter: "black", diff: true });
    expect(check).toMatchObject({ success: true, formatted: false });
    const dry = await noWrites("autoformat", { path: ".", formatter: "black", dry_run: true });
    expect(dry).toMatchObject({ success: true });
  });

  it.skipIf(skip || missing("bandit"))("security_scan", async () => {
    const r = await noWrites("security_scan", { path: "." });
    expect(r).toMatchObject({ success: true, passed: false });
  });

  it.skipIf(skip || missing("mypy"))("type_check (mypy)", async () => {
    const r = await noWrites("type_check", { path: ".", checker: "mypy" });
    expect(r.success).toBe(true);
  });

  it.skipIf(skip || missing("pytest"))("run_tests leaves no file of the server's making", async () => {
    const r = await noWrites("run_tests", { path: "tests" });
    expect(r).toMatchObject({ success: true, summary: { passed: 1 } });
  });
});
