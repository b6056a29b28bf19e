/**
 * Every argument is honoured by the linter it is given to, or refused with invalid_input naming the
 * argument and the tool: `files` for ruff (CLI and embedded) and flake8 scopes the run; `format`, which
 * only ESLint understands, is refused for them; a `files` filter matching nothing is refused, in lint
 * and in type_check.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const LINT_PROJECT = path.join(FIXTURES, "python", "lint-project");
const APP_ISSUES = [
  "pkg/app.py:1:8: F401 `os` imported but unused",
  "pkg/app.py:8:13: E711 Comparison to `None` should be `cond is None`",
];

describe.each([
  ["ruff CLI", `${TOOLS_VENV_BIN}:/usr/bin:/bin`],
  ["embedded ruff", "/usr/bin:/bin"],
])("lint arguments with %s", (name, PATH) => {
  const skip = name === "ruff CLI" && missing("ruff", [TOOLS_VENV_BIN]);
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    if (skip) return;
    dir = copyFixture(LINT_PROJECT);
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(skip)("ruff: files scopes the run to the files given", async () => {
    const r = await s.call("lint", { path: ".", files: ["pkg/app.py"] });
    expect((r.issues as string[]).map((i) => i.replace(" [*]", ""))).toEqual(APP_ISSUES);
    expect(r.command).toContain(`-- ${path.join(dir, "pkg", "app.py")}`);
    const clean = await s.call("lint", { path: ".", files: ["pkg/clean*.py"] });
    expect(clean).toMatchObject({ success: true, passed: true, issues: [] });
  });

  it.skipIf(skip)("ruff: files matching nothing is invalid_input", async () => {
    const r = await s.call("lint", { path: ".", files: ["nothing/*.py"] });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toMatch(/files matched no Python file .*\(ruff\)/);
  });

  it.skipIf(skip)(
    "ruff: format full also lists the findings as offenses; compact (the default) does not",
    async () => {
      const full = await s.call("lint", { path: ".", format: "full" });
      expect(full).toMatchObject({ success: true });
      const offenses = full.offenses as { rule_id: string; correctable: boolean }[];
      expect(offenses.length).toBe(full.issue_count);
      expect(offenses.every((o) => typeof o.correctable === "boolean")).toBe(true);
      const compact = await s.call("lint", { path: "." });
      expect(compact.offenses).toBeUndefined();
      expect(compact.issues).toEqual(full.issues);
    },
  );
});

describe.skipIf(missing("flake8"))("lint arguments with flake8", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = copyFixture(LINT_PROJECT);
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it("files scopes the run (the whole project has findings in legacy/ too)", async () => {
    const all = await s.call("lint", { path: ".", linter: "flake8" });
    expect(all.issues).toContainEqual(expect.stringMatching(/^legacy\/old\.py:/));
    const r = await s.call("lint", { path: ".", linter: "flake8", files: ["pkg/app.py"] });
    expect(r.issues).toEqual([
      "pkg/app.py:1:1: F401 'os' imported but unused",
      "pkg/app.py:6:11: E231 missing whitespace after ','",
      "pkg/app.py:8:10: E711 comparison to None should be 'if cond is None:'",
    ]);
  });

  it("files matching nothing and format are invalid_input", async () => {
    const none = await s.call("lint", { path: ".", linter: "flake8", files: ["*.pyx"] });
    expect(none).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(none.error).toMatch(/\(flake8\)/);
    const format = await s.call("lint", { path: ".", linter: "flake8", format: "full" });
    expect(format).toMatchObject({ success: true });
    expect((format.offenses as unknown[]).length).toBe(format.issue_count);
  });

  it.skipIf(missing("mypy"))("type_check: files matching nothing is invalid_input", async () => {
    const r = await s.call("type_check", { path: ".", checker: "mypy", files: ["nomatch_*.py"] });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toContain('argument "files" matched no file');
    expect(r.error).toContain("type_check mypy");
  });
});
