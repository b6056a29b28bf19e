/**
 * Display paths are relative to the project root of the call (the outermost directory holding a
 * project marker, up to the allowed root) whatever directory the server was started in.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PATH = `${TOOLS_VENV_BIN}:/usr/bin:/bin`;

describe("the same call from servers started in different directories", () => {
  let project: string;
  let inside: Connected;
  let elsewhere: Connected;
  beforeAll(async () => {
    // The project sits two levels below the allowed root, so a path relative to the server's directory
    // would climb with ../ from elsewhere.
    const root = tempDir("mcq-display-");
    project = path.join(root, "srv", "proj");
    fs.mkdirSync(path.dirname(project), { recursive: true });
    fs.cpSync(path.join(FIXTURES, "python", "lint-project"), project, { recursive: true });
    fs.cpSync(path.join(FIXTURES, "python", "bandit-project", "app"), path.join(project, "app"), {
      recursive: true,
    });
    const args = ["--allowed-paths", root, "--rate-limit", "false"];
    const env = { PATH, VIRTUAL_ENV: undefined };
    inside = await connectStdio({ args, cwd: path.join(project, "pkg"), env });
    const away = tempDir("mcq-away-");
    elsewhere = await connectStdio({ args, cwd: away, env });
  });
  afterAll(async () => {
    await inside?.close();
    await elsewhere?.close();
  });

  async function both(tool: string, args: Record<string, unknown>) {
    const a = await inside.call(tool, args);
    const b = await elsewhere.call(tool, args);
    return [a, b] as const;
  }

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("ruff lint", async () => {
    const [a, b] = await both("lint", { path: path.join(project, "pkg") });
    expect(a.issues).toEqual([
      "pkg/app.py:1:8: F401 [*] `os` imported but unused",
      "pkg/app.py:8:13: E711 Comparison to `None` should be `cond is None`",
      "pkg/generated_ignored.py:1:1: I001 [*] Import block is un-sorted or un-formatted",
      "pkg/generated_ignored.py:1:8: F401 [*] `json` imported but unused",
    ]);
    expect(b.issues).toEqual(a.issues);
  });

  it.skipIf(missing("flake8"))("flake8 lint", async () => {
    const [a, b] = await both("lint", { path: path.join(project, "pkg", "app.py"), linter: "flake8" });
    expect((a.issues as string[])[0]).toBe("pkg/app.py:1:1: F401 'os' imported but unused");
    expect(b.issues).toEqual(a.issues);
  });

  it.skipIf(missing("bandit"))("security_scan", async () => {
    const [a, b] = await both("security_scan", { path: path.join(project, "app") });
    expect((a.issues as string[]).every((i) => i.startsWith("app/"))).toBe(true);
    expect(b.issues).toEqual(a.issues);
    expect(b.common_findings).toEqual(a.common_findings);
  });

  it("a relative path never climbs with ../", async () => {
    const r = await elsewhere.call("lint", { path: path.join(project, "pkg") });
    expect((r.issues as string[]).length).toBeGreaterThan(0);
    for (const issue of r.issues as string[]) expect(issue).not.toMatch(/^\.\.|^\//);
  });

  it("eslint lint (the bundled ESLint)", async () => {
    const web = path.join(path.dirname(project), "web");
    if (!fs.existsSync(web)) fs.cpSync(path.join(FIXTURES, "js", "no-toolchain"), web, { recursive: true });
    const [a, b] = await both("lint", { path: web, linter: "eslint" });
    expect((a.issues as string[]).length).toBeGreaterThan(0);
    for (const issue of a.issues as string[]) expect(issue).toMatch(/^src\//);
    expect(b.issues).toEqual(a.issues);
  });

  it.skipIf(missing("mypy"))("type_check with mypy", async () => {
    const typed = path.join(path.dirname(project), "typed");
    if (!fs.existsSync(typed))
      fs.cpSync(path.join(FIXTURES, "python", "typecheck-project"), typed, { recursive: true });
    const [a, b] = await both("type_check", { path: typed, checker: "mypy" });
    expect((a.issues as string[]).length).toBeGreaterThan(0);
    for (const issue of a.issues as string[]) expect(issue).toMatch(/^pkg\//);
    expect(b.issues).toEqual(a.issues);
    expect(b.findings).toEqual(a.findings);
  });

  /** The file names in a unified diff's headers. */
  const diffNames = (diff: unknown) =>
    [...String(diff).matchAll(/^(?:---|\+\+\+) (\S+)/gm)].map((m) => m[1] as string);

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("format_check: unformatted_files and its diff", async () => {
    // The inside server starts in pkg/, where ruff names the file `app.py`.
    const [a, b] = await both("format_check", { path: path.join(project, "pkg"), diff: true });
    expect(a.unformatted_files).toEqual(["pkg/app.py", "pkg/generated_ignored.py"]);
    expect(b.unformatted_files).toEqual(a.unformatted_files);
    expect(a.summary_text).toBe("ruff format: 2 files would be reformatted");
    expect(diffNames(a.output)).toContain("pkg/app.py");
    for (const name of diffNames(a.output)) expect(name).toMatch(/^pkg\//);
    expect(b.output).toEqual(a.output);
  });

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "autoformat, lint_fix and fix_all dry runs: their diffs",
    async () => {
      const [fa, fb] = await both("autoformat", { path: path.join(project, "pkg"), dry_run: true });
      expect(fa.changed_files).toEqual(["pkg/app.py", "pkg/generated_ignored.py"]);
      expect(fb.changed_files).toEqual(fa.changed_files);
      expect(diffNames(fa.diff)).toContain("pkg/app.py");
      for (const name of diffNames(fa.diff)) expect(name).toMatch(/^pkg\//);
      expect(fb.diff).toEqual(fa.diff);
      const [la, lb] = await both("lint_fix", { path: path.join(project, "pkg"), dry_run: true });
      expect(diffNames(la.diff)).toContain("pkg/app.py");
      for (const name of diffNames(la.diff)) expect(name).toMatch(/^pkg\//);
      expect(lb.diff).toEqual(la.diff);
      const [xa, xb] = await both("fix_all", {
        path: path.join(project, "pkg"),
        dry_run: true,
        skip_typecheck: true,
      });
      const names = diffNames((xa.diff as string | undefined) ?? "");
      const formatNames = diffNames((xa.format as { diff?: string } | undefined)?.diff ?? "");
      expect([...names, ...formatNames]).toContain("pkg/app.py");
      for (const name of [...names, ...formatNames]) expect(name).toMatch(/^pkg\//);
      expect(xb.diff).toEqual(xa.diff);
      expect(xb.format).toEqual(xa.format);
    },
  );

  it("eslint lint: files[] and lint_fix's diff (the bundled ESLint)", async () => {
    const web = path.join(path.dirname(project), "web");
    if (!fs.existsSync(web)) fs.cpSync(path.join(FIXTURES, "js", "no-toolchain"), web, { recursive: true });
    const [a, b] = await both("lint", { path: web, linter: "eslint" });
    const files = (a.files as { file: string }[]).map((f) => f.file);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f).toMatch(/^src\//);
    expect(b.files).toEqual(a.files);
    const [fa, fb] = await both("lint_fix", { path: web, linter: "eslint", dry_run: true });
    for (const f of fa.files as { file: string }[]) expect(f.file).toMatch(/^src\//);
    expect(fb.files).toEqual(fa.files);
    if (fa.diff) for (const name of diffNames(fa.diff)) expect(name).toMatch(/^src\//);
    expect(fb.diff).toEqual(fa.diff);
  });
});
