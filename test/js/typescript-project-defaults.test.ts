/**
 * Silent false passes and wrong tools on a TypeScript project with no Python (issue 9.6): format_check,
 * lint and type_check default to the project's languages; a tool that checked nothing says so and does not
 * pass; audit_dependencies refuses pnpm lockfiles and a package.json without a lockfile clearly. Every
 * call is read-only: the tree is byte-identical afterwards.
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

function treeHash(dir: string): string {
  const h = createHash("sha256");
  for (const e of fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .sort((a, b) => path.join(a.parentPath, a.name).localeCompare(path.join(b.parentPath, b.name)))) {
    const abs = path.join(e.parentPath, e.name);
    h.update(path.relative(dir, abs));
    if (e.isFile()) h.update(fs.readFileSync(abs));
  }
  return h.digest("hex");
}

describe("a TypeScript project with no Python", () => {
  let dir: string;
  let s: Connected;
  let before: string;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "ts-project"));
    before = treeHash(dir);
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(async () => {
    await s.close();
    expect(treeHash(dir)).toBe(before);
  });

  it("format_check without language leaves a Prettier-less project alone; with formatter prettier it lists what Prettier does", async () => {
    // No Prettier config, dependency or script: not formatted by default (as `check` skips it).
    const r = await s.call("format_check", { path: "." });
    expect(r).toMatchObject({ success: true, nothing_checked: true, unformatted_count: 0 });
    expect("formatted" in r).toBe(false);
    expect(r.notes).toContain(
      'typescript: the project does not use Prettier (no config, no dependency, no script), so it is not formatted by default; formatter: "prettier" uses the bundled one',
    );
    // Its scope is the project's, as `prettier --list-different .`: every kind of file Prettier formats.
    const direct = spawnSync(
      path.join(REPO_ROOT, "node_modules", ".bin", "prettier"),
      ["--list-different", "."],
      {
        cwd: dir,
        encoding: "utf8",
      },
    );
    const own = direct.stdout.trim().split("\n").sort();
    expect(own).toEqual(["pnpm-lock.yaml", "src/b.ts", "tsconfig.json"]);
    const asked = await s.call("format_check", { path: ".", formatter: "prettier" });
    expect(asked).toMatchObject({ success: true, formatted: false, unformatted_count: own.length });
    expect([...(asked.unformatted_files as string[])].sort()).toEqual(own);
  });

  it("format_check of Python here checked nothing: no formatted verdict, and a note says why", async () => {
    const r = await s.call("format_check", { path: ".", language: "python" });
    expect(r).toMatchObject({ success: true, nothing_checked: true, unformatted_count: 0 });
    expect("formatted" in r).toBe(false);
    expect(r.notes).toContain(`checked nothing with ruff: no python files under ${dir}`);
  });

  it("lint without linter runs ESLint; ruff, given explicitly, checked nothing and does not pass", async () => {
    const r = await s.call("lint", { path: "." });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 2 });
    expect(r.command).toBe("eslint -- src scripts");
    expect(r.notes).toContain("linter: eslint (the project's languages: typescript, javascript)");

    const ruff = await s.call("lint", { path: ".", linter: "ruff" });
    expect(ruff).toMatchObject({ success: true, nothing_checked: true, issue_count: 0 });
    expect("passed" in ruff).toBe(false);
    expect(ruff.notes).toEqual([
      `checked nothing: ruff lints python and there are no such files under ${dir}`,
    ]);
  });

  it("type_check of a .ts file runs tsc (not ty); a Python checker here checked nothing", async () => {
    const r = await s.call("type_check", { path: "src/b.ts" });
    expect(r).toMatchObject({ success: true, passed: true, checker: "tsc", issue_count: 0 });

    const mypy = await s.call("type_check", { path: ".", checker: "mypy" });
    expect(mypy).toMatchObject({ success: true, nothing_checked: true, checker: "mypy", issue_count: 0 });
    expect("passed" in mypy).toBe(false);
    expect(mypy.notes).toEqual([
      `checked nothing: mypy checks python and there are no such files under ${dir}`,
    ]);
  });

  it("audit_dependencies refuses a pnpm lockfile and a package.json without an npm lockfile, saying what to run", async () => {
    const pnpm = await s.call("audit_dependencies", { requirements_file: "pnpm-lock.yaml" });
    expect(pnpm).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(pnpm.error).toBe(
      `${path.join(dir, "pnpm-lock.yaml")}: pnpm lockfiles are not audited here (pnpm's audit service is not wired ` +
        "in): run `pnpm audit --json` in the project, or write an equivalent package-lock.json with " +
        "`npm install --package-lock-only` and audit that",
    );
    const pkg = await s.call("audit_dependencies", { requirements_file: "package.json" });
    expect(pkg).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(pkg.error).toMatch(/pnpm-lock\.yaml: pnpm lockfiles are not audited here/);
    const dirCall = await s.call("audit_dependencies", { requirements_file: "." });
    expect(dirCall.error).toMatch(/pnpm lockfiles are not audited here/);
    expect(JSON.stringify([pnpm, pkg, dirCall])).not.toMatch(/pip-audit/);

    fs.rmSync(path.join(dir, "pnpm-lock.yaml"));
    const bare = await s.call("audit_dependencies", { requirements_file: "package.json" });
    fs.copyFileSync(
      path.join(FIXTURES, "js", "ts-project", "pnpm-lock.yaml"),
      path.join(dir, "pnpm-lock.yaml"),
    );
    expect(bare.error).toBe(
      `${path.join(dir, "package.json")} has no lockfile beside it; npm audit audits a lockfile: write one with ` +
        "`npm install --package-lock-only` (nothing is installed) and audit that",
    );
  });
});
