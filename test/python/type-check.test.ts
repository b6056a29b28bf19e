/** type_check for Python through the real server: mypy (Debian) and pyright (bundled) on a fixture; ty's absence. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/exec/which.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

const FIXTURE = path.join(FIXTURES, "python", "typecheck-project");
/** A PATH with the system's tools but without ty (it cannot be installed on these machines). */
const PATH_WITHOUT_TY = "/usr/bin:/bin";

describe("type_check (python)", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { PATH: PATH_WITHOUT_TY },
    });
  });
  afterAll(async () => s?.close());

  it("defaults to ty and says clearly that it is not installed", async () => {
    expect(findExecutable("ty", [], PATH_WITHOUT_TY)).toBeUndefined();
    const r = await s.call("type_check", { path: "." });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("tool_not_found");
    expect(r.error).toMatch(/^ty is not installed/);
    expect(r.error).toMatch(/checker: "mypy" or "pyright"/);
    expect(r.command).toBe(`ty check --output-format concise -- ${project}`);
  });

  it.skipIf(missing("mypy"))("runs mypy and parses every error with its code", async () => {
    const r = await s.call("type_check", { path: ".", checker: "mypy" });
    expect(r).toMatchObject({ success: true, passed: false, checker: "mypy", returncode: 1, issue_count: 2 });
    expect(r.issues).toEqual([
      'pkg/bad.py:5:14: assignment Incompatible types in assignment (expression has type "str", variable has type "int")',
      'pkg/bad.py:6:16: arg-type Argument 2 to "add" has incompatible type "str"; expected "int"',
    ]);
    expect((r.findings as Record<string, unknown>[])[0]).toMatchObject({
      tool: "mypy",
      file: path.join(project, "pkg", "bad.py"),
      line: 5,
      column: 14,
      rule_id: "assignment",
      severity: "error",
    });
    expect(r.summary).toEqual({ errors: 2, warnings: 0, info: 0, total_in_project: 2, scope: "full" });
    expect(r.notes).toEqual([
      "mypy from PATH (/usr/bin/mypy)",
      expect.stringMatching(
        /^mypy daemon \(dmypy 1\.\d+\.\d+\) started, pid \d+; this first check was cold$/,
      ),
    ]);
  });

  it.skipIf(missing("mypy"))(
    "mypy strict adds --strict and its extra errors; files filters the view",
    async () => {
      const r = await s.call("type_check", {
        path: ".",
        checker: "mypy",
        strict: true,
        files: ["pkg/loose.py"],
      });
      expect(r.command).toContain("--strict");
      expect(r.issues).toEqual([
        "pkg/loose.py:1:1: no-untyped-def Function is missing a type annotation",
        'pkg/loose.py:5:1: no-untyped-call Call to untyped function "untyped" in typed context',
      ]);
      expect(r.summary).toMatchObject({ errors: 2, total_in_project: 4, scope: "filtered" });
    },
  );

  it.skipIf(missing("mypy"))("a clean file passes", async () => {
    const r = await s.call("type_check", { path: "pkg/good.py", checker: "mypy" });
    expect(r).toMatchObject({ success: true, passed: true, returncode: 0, issue_count: 0 });
  });

  it.skipIf(missing("mypy"))(
    "mypy's config complaints reach the notes; a config it cannot use is a tool_error",
    async () => {
      fs.writeFileSync(path.join(project, "loose.ini"), "[mypy]\nstrict = maybe\n");
      const warned = await s.call("type_check", {
        path: "pkg/good.py",
        checker: "mypy",
        config: "loose.ini",
      });
      expect(warned).toMatchObject({ success: true, passed: true });
      expect(warned.notes).toContainEqual(
        expect.stringMatching(/^mypy said: .*strict: Not a boolean: maybe/),
      );

      fs.writeFileSync(path.join(project, "py2.ini"), "[mypy]\npython_version = 2.7\n");
      const r = await s.call("type_check", { path: ".", checker: "mypy", config: "py2.ini" });
      expect(r).toMatchObject({ success: false, error_type: "tool_error", returncode: 2 });
      expect(r.output).toMatch(/no longer supports checking Python 2 code/);
    },
  );

  it.skipIf(missing("mypy"))(
    "a syntax error is a finding (mypy exit 2), not a failure of the tool",
    async () => {
      const file = path.join(project, "pkg", "syntax.py");
      fs.writeFileSync(file, "def f(:\n    pass\n");
      const r = await s.call("type_check", { path: "pkg/syntax.py", checker: "mypy" });
      fs.rmSync(file);
      expect(r).toMatchObject({ success: true, passed: false, returncode: 2 });
      expect(r.issues).toEqual(["pkg/syntax.py:1:8: syntax invalid syntax"]);
    },
  );

  it("runs the bundled pyright and maps its JSON into findings", async () => {
    const r = await s.call("type_check", { path: ".", checker: "pyright" });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      checker: "pyright",
      returncode: 1,
      issue_count: 3,
    });
    const findings = r.findings as Record<string, unknown>[];
    expect(
      findings.map((f) => [
        path.relative(project, f.file as string),
        f.line,
        f.column,
        f.rule_id,
        f.severity,
      ]),
    ).toEqual([
      ["pkg/bad.py", 5, 14, "reportAssignmentType", "error"],
      ["pkg/bad.py", 6, 16, "reportArgumentType", "error"],
      ["pkg/loose.py", 5, 1, "reportUnusedExpression", "warning"],
    ]);
    expect(r.summary).toMatchObject({ errors: 2, warnings: 1 });
    expect((r.notes as string[])[0]).toMatch(/^pyright 1\.1\.\d+ bundled with the server/);
  });

  it("pyright strict fails on warnings alone", async () => {
    const plain = await s.call("type_check", { path: "pkg/loose.py", checker: "pyright" });
    expect(plain).toMatchObject({ success: true, passed: true, returncode: 0, issue_count: 1 });
    const strict = await s.call("type_check", { path: "pkg/loose.py", checker: "pyright", strict: true });
    expect(strict.command).toContain("--warnings");
    expect(strict).toMatchObject({ success: true, passed: false, returncode: 1, issue_count: 1 });
  });

  it("refuses a path outside the allowlist before running anything", async () => {
    const r = await s.call("type_check", { path: "/etc", checker: "mypy" });
    expect(r).toMatchObject({ success: false, error_type: "path_validation" });
  });
});
