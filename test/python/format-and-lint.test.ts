/**
 * format_check, autoformat and lint for Python on a fixture project with known findings: through the ruff
 * CLI on PATH, through the embedded ruff (no ruff anywhere), black and flake8 — all real tools.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const LINT_PROJECT = path.join(FIXTURES, "python", "lint-project");
const SYNTAX_ERROR = path.join(FIXTURES, "python", "syntax-error");
const NO_RUFF_PATH = "/usr/bin:/bin";
const EXPECTED_RUFF_ISSUES = [
  "pkg/app.py:1:8: F401 `os` imported but unused",
  "pkg/app.py:8:13: E711 Comparison to `None` should be `cond is None`",
];

async function serverIn(dir: string, PATH: string): Promise<Connected> {
  return connectStdio({
    args: ["--allowed-paths", dir, "--rate-limit", "false"],
    cwd: dir,
    env: { PATH, VIRTUAL_ENV: undefined },
  });
}

describe.each([
  ["embedded ruff", NO_RUFF_PATH, true],
  ["ruff CLI on PATH", `${TOOLS_VENV_BIN}:${NO_RUFF_PATH}`, false],
])("ruff through %s", (_name, PATH, embedded) => {
  const skip = !embedded && missing("ruff", [TOOLS_VENV_BIN]);
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    if (skip) return;
    dir = copyFixture(LINT_PROJECT);
    // ruff honours .gitignore only inside a git repository.
    execFileSync("git", ["init", "-q"], { cwd: dir });
    s = await serverIn(dir, PATH);
  });
  afterAll(() => s?.close());

  it.skipIf(skip)("outside a git repository .gitignore does not apply (as with the CLI)", async () => {
    const plain = copyFixture(LINT_PROJECT);
    const t = await serverIn(plain, PATH);
    try {
      const r = await t.call("lint", { path: "." });
      expect((r.issues as string[]).map((i) => i.replace(" [*]", ""))).toEqual([
        ...EXPECTED_RUFF_ISSUES,
        "pkg/generated_ignored.py:1:1: I001 Import block is un-sorted or un-formatted",
        "pkg/generated_ignored.py:1:8: F401 `json` imported but unused",
      ]);
    } finally {
      await t.close();
    }
  });

  it.skipIf(skip)(
    "lint finds exactly the project's issues (settings, .gitignore, exclude, per-file ignores honoured)",
    async () => {
      const r = await s.call("lint", { path: "." });
      expect(r.success).toBe(true);
      expect(r.passed).toBe(false);
      expect((r.issues as string[]).map((i) => i.replace(" [*]", ""))).toEqual(EXPECTED_RUFF_ISSUES);
      expect(r.issue_count).toBe(2);
      expect(r.returncode).toBe(1);
      expect(r.command).toBe(
        `ruff check --no-fix --no-cache --output-format json-lines -- ${dir}${embedded ? " (embedded)" : ""}`,
      );
      const notes = (r.notes as string[]).join("\n");
      if (embedded) expect(notes).toMatch(/embedded ruff \d+\.\d+\.\d+/);
      else expect(notes).toContain(`ruff from PATH (${TOOLS_VENV_BIN}/ruff)`);
    },
  );

  it.skipIf(skip)("lint of a clean file passes", async () => {
    const r = await s.call("lint", { path: "pkg/clean.py" });
    expect(r).toMatchObject({ success: true, passed: true, issues: [], issue_count: 0, returncode: 0 });
  });

  it.skipIf(skip)("an explicit config file is used", async () => {
    fs.writeFileSync(path.join(dir, "strict.toml"), 'line-length = 100\n[lint]\nselect = ["E501", "F401"]\n');
    const r = await s.call("lint", { path: "pkg/app.py", config: "strict.toml" });
    expect((r.issues as string[]).map((i) => i.replace(" [*]", ""))).toEqual([
      "pkg/app.py:1:8: F401 `os` imported but unused",
    ]);
  });

  it.skipIf(skip)("format_check lists the unformatted files, with a diff on request", async () => {
    const r = await s.call("format_check", { path: "." });
    expect(r).toMatchObject({
      success: true,
      formatted: false,
      unformatted_files: ["pkg/app.py"],
      unformatted_count: 1,
    });
    const d = await s.call("format_check", { path: "pkg/app.py", diff: true });
    expect(d.output).toContain("-    x = [1,2,\n-         3]\n+    x = [1, 2, 3]");
    expect(d.output).toMatch(/^--- pkg\/app\.py/m);
    const clean = await s.call("format_check", { path: "pkg/clean.py" });
    expect(clean).toMatchObject({ success: true, formatted: true, unformatted_files: [] });
  });

  it.skipIf(skip)("autoformat: a dry run writes nothing, then a real run formats in place", async () => {
    const file = path.join(dir, "pkg", "app.py");
    const before = fs.readFileSync(file, "utf8");
    const dry = await s.call("autoformat", { path: ".", dry_run: true });
    expect(dry).toMatchObject({ success: true, dry_run: true, changed_files: ["pkg/app.py"] });
    expect(dry.diff).toContain("+    x = [1, 2, 3]");
    expect(fs.readFileSync(file, "utf8")).toBe(before);
    const real = await s.call("autoformat", { path: "." });
    expect(real).toMatchObject({ success: true, changed_files: ["pkg/app.py"] });
    expect(fs.readFileSync(file, "utf8")).toContain("    x = [1, 2, 3]\n");
    expect(fs.readFileSync(path.join(dir, "legacy", "old.py"), "utf8")).toBe("import re\ny   =   2\n");
    expect(await s.call("format_check", { path: "." })).toMatchObject({ formatted: true });
  });

  it.skipIf(skip)("a file that cannot be parsed is a tool_error, not 'unformatted'", async () => {
    const bad = copyFixture(SYNTAX_ERROR);
    const t = await serverIn(bad, PATH);
    try {
      const r = await t.call("format_check", { path: "." });
      expect(r.success).toBe(false);
      expect(r.error_type).toBe("tool_error");
      expect(r.output).toContain("bad.py");
      expect(fs.readFileSync(path.join(bad, "bad.py"), "utf8")).toBe("def broken(:\n    pass\n");
    } finally {
      await t.close();
    }
  });

  it.skipIf(skip)("issue lists are capped at 500 with the full count", async () => {
    const many = copyFixture(SYNTAX_ERROR);
    fs.rmSync(path.join(many, "bad.py"));
    fs.writeFileSync(
      path.join(many, "many.py"),
      Array.from({ length: 620 }, (_, i) => `import m${i}\n`).join(""),
    );
    const t = await serverIn(many, PATH);
    try {
      // A budget large enough that the 500-entry cap, not the token budget, is what stops the list.
      const r = await t.call("lint", { path: "many.py", max_result_tokens: 250_000 });
      expect(r.issue_count).toBe(620);
      expect((r.issues as string[]).length).toBe(500);
      expect(r.truncated).toBe(true);
      expect((r.issues as string[])[499]).toMatch(/^many\.py:500:8: F401/);
    } finally {
      await t.close();
    }
  });
});

describe("black and flake8", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = copyFixture(LINT_PROJECT);
    s = await serverIn(dir, NO_RUFF_PATH);
  });
  afterAll(() => s.close());

  it.skipIf(missing("flake8"))("lint with flake8", async () => {
    const r = await s.call("lint", { path: "pkg/app.py", linter: "flake8" });
    const file = "pkg/app.py";
    expect(r.issues).toEqual([
      `${file}:1:1: F401 'os' imported but unused`,
      `${file}:6:11: E231 missing whitespace after ','`,
      `${file}:8:10: E711 comparison to None should be 'if cond is None:'`,
    ]);
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 3, returncode: 1 });
  });

  it.skipIf(missing("black"))("format_check with black", async () => {
    const r = await s.call("format_check", { path: "pkg", formatter: "black" });
    expect(r).toMatchObject({
      success: true,
      formatted: false,
      unformatted_files: ["pkg/app.py"],
      returncode: 1,
    });
    // The project's own pyproject.toml, found inside the allowed root, is passed explicitly.
    expect(r.command).toBe(
      `black --check --config ${path.join(dir, "pyproject.toml")} -- ${path.join(dir, "pkg")}`,
    );
  });

  it.skipIf(missing("black"))("black on a file it cannot parse is a tool_error", async () => {
    const bad = copyFixture(SYNTAX_ERROR);
    const t = await serverIn(bad, NO_RUFF_PATH);
    try {
      const r = await t.call("format_check", { path: ".", formatter: "black" });
      expect(r).toMatchObject({ success: false, error_type: "tool_error", returncode: 123 });
      expect(r.output).toMatch(/cannot format .*bad\.py/);
    } finally {
      await t.close();
    }
  });

  it.skipIf(missing("black"))("autoformat with black", async () => {
    const r = await s.call("autoformat", { path: "pkg/app.py", formatter: "black" });
    expect(r).toMatchObject({
      success: true,
      changed_files: ["pkg/app.py"],
      returncode: 0,
    });
    expect(fs.readFileSync(path.join(dir, "pkg", "app.py"), "utf8")).toContain("x = [1, 2, 3]");
  });

  it.skipIf(missing("black"))("a config file is passed to black", async () => {
    fs.writeFileSync(path.join(dir, "black.toml"), "[tool.black]\nline-length = 10\n");
    const r = await s.call("format_check", {
      path: "pkg/clean.py",
      formatter: "black",
      config: "black.toml",
    });
    expect(r).toMatchObject({
      success: true,
      formatted: false,
      command: `black --check --config ${path.join(dir, "black.toml")} -- ${path.join(dir, "pkg", "clean.py")}`,
    });
  });
});

describe("timeouts through the pipeline", () => {
  it("a tool past --timeout is killed and reported as timeout", async () => {
    const dir = copyFixture(LINT_PROJECT);
    // A stand-in that hangs (simulates a stuck tool; the runner's kill is what is under test).
    const bin = path.join(dir, ".hang-bin");
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, "flake8"), "#!/bin/sh\necho started\nsleep 30\n", { mode: 0o755 });
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--timeout", "1"],
      cwd: dir,
      env: { PATH: `${bin}:${NO_RUFF_PATH}` },
    });
    try {
      const r = await s.call("lint", { path: "pkg", linter: "flake8" });
      expect(r).toMatchObject({ success: false, error_type: "timeout", output: "started" });
      expect(r.error).toBe("flake8 exceeded the 1 s timeout and was killed with its process group");
    } finally {
      await s.close();
    }
  });

  it("a missing program is tool_not_found", async () => {
    const dir = copyFixture(LINT_PROJECT);
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir, env: { PATH: "/nonexistent" } });
    try {
      const r = await s.call("lint", { path: "pkg", linter: "flake8" });
      expect(r).toMatchObject({
        success: false,
        error_type: "tool_not_found",
        error: "flake8 is not installed (not found on PATH)",
      });
    } finally {
      await s.close();
    }
  });
});

describe("the project's virtualenv comes first", () => {
  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("uses .venv/bin/ruff over PATH and says so", async () => {
    const dir = copyFixture(LINT_PROJECT);
    // A minimal virtualenv layout: bin/python and the project's own ruff.
    const venvBin = path.join(dir, ".venv", "bin");
    fs.mkdirSync(venvBin, { recursive: true });
    fs.symlinkSync("/usr/bin/python3", path.join(venvBin, "python"));
    fs.symlinkSync(path.join(TOOLS_VENV_BIN, "ruff"), path.join(venvBin, "ruff"));
    const s = await serverIn(dir, NO_RUFF_PATH);
    try {
      const r = await s.call("lint", { path: "pkg/app.py" });
      expect(r.notes).toEqual([`ruff from the project's virtualenv ${path.join(dir, ".venv")}`]);
      expect(r.issues).toEqual([
        "pkg/app.py:1:8: F401 [*] `os` imported but unused",
        "pkg/app.py:8:13: E711 Comparison to `None` should be `cond is None`",
      ]);
    } finally {
      await s.close();
    }
  });
});
