/**
 * A workspace root with no eslint.config.* whose packages have their own (packages/a: eslint.config.js,
 * packages/b: eslint.config.mjs; packages/c and scripts/ have none): each package's files are linted and
 * fixed with its own config, as ESLint by hand in the package, and the bundled default config lints only the
 * files no config covers. The bundled ESLint (the fixture installs none), for real.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";
import { splitPatterns } from "../../src/adapters/js/eslint-packages.js";

type Json = Record<string, unknown>;
interface EslintResult {
  filePath: string;
  messages: { line: number; column: number; ruleId: string | null; message: string }[];
}

const ESLINT_BIN = path.join(REPO_ROOT, "node_modules", "eslint", "bin", "eslint.js");
const FIXTURE = path.join(FIXTURES, "js", "eslint-workspace");

/** `eslint [--fix] --format json .` by hand in `dir`: its issues as lint shows them (relative to `root`). */
function eslintByHand(root: string, dir: string, fix = false): string[] {
  const r = spawnSync(process.execPath, [ESLINT_BIN, ...(fix ? ["--fix"] : []), "--format", "json", "."], {
    cwd: dir,
    encoding: "utf8",
  });
  return (JSON.parse(r.stdout) as EslintResult[]).flatMap((f) =>
    f.messages.map(
      (m) => `${path.relative(root, f.filePath)}:${m.line}:${m.column}: ${m.ruleId} ${m.message}`,
    ),
  );
}

describe("a workspace root without a config of its own, whose packages have theirs", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(FIXTURE);
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(() => s?.close());

  it("lint applies each package's config to its files, and the bundled config to the rest", async () => {
    const a = eslintByHand(dir, path.join(dir, "packages", "a"));
    const b = eslintByHand(dir, path.join(dir, "packages", "b"));
    expect(a).toEqual([
      "packages/a/src/index.js:1:20: semi Missing semicolon.",
      "packages/a/src/index.js:2:1: no-console Unexpected console statement.",
    ]);
    expect(b).toEqual([
      "packages/b/lib/index.js:1:5: prefer-const 'same' is never reassigned. Use 'const' instead.",
      "packages/b/lib/index.js:1:21: eqeqeq Expected '===' and instead saw '=='.",
    ]);
    const r = await s.call("lint", { path: ".", linter: "eslint", format: "full" });
    expect(r.success).toBe(true);
    expect(r.issues).toEqual([
      ...a,
      ...b,
      // No config covers these: the bundled default config's findings.
      "packages/c/index.js:1:7: @typescript-eslint/no-unused-vars 'unusedInC' is assigned a value but never used.",
      "scripts/build.js:1:7: @typescript-eslint/no-unused-vars 'unusedInScripts' is assigned a value but never used.",
    ]);
    // Each file once, by its own config's run (the configs themselves are files of their packages).
    expect((r.files as Json[]).map((f) => f.file)).toEqual([
      "packages/a/eslint.config.js",
      "packages/a/src/index.js",
      "packages/b/eslint.config.mjs",
      "packages/b/lib/index.js",
      "packages/c/index.js",
      "scripts/build.js",
    ]);
    expect(r.notes).toContain(`config: ${path.join(dir, "packages", "a", "eslint.config.js")}`);
    expect(r.notes).toContain(`config: ${path.join(dir, "packages", "b", "eslint.config.mjs")}`);
    expect(r.notes).toContain(
      "no eslint.config.* for the files outside packages/a, packages/b: used the bundled default config (@eslint/js recommended + typescript-eslint recommended) for them",
    );
    expect(r.command).toBe(
      "(cd packages/a && eslint -- .); (cd packages/b && eslint -- .); eslint --ignore-pattern packages/a/ --ignore-pattern packages/b/ -- .",
    );
  }, 120_000);

  it("lint of a package's file gives its config's findings", async () => {
    const r = await s.call("lint", { path: ".", files: ["packages/b/lib/index.js"], linter: "eslint" });
    expect(r.issues).toEqual([
      "packages/b/lib/index.js:1:5: prefer-const 'same' is never reassigned. Use 'const' instead.",
      "packages/b/lib/index.js:1:21: eqeqeq Expected '===' and instead saw '=='.",
    ]);
  }, 120_000);

  it("lint_fix fixes each package's files with its config, as eslint --fix by hand in it", async () => {
    const other = copyFixture(FIXTURE);
    eslintByHand(other, path.join(other, "packages", "a"), true);
    eslintByHand(other, path.join(other, "packages", "b"), true);
    const r = await s.call("lint_fix", { path: ".", linter: "eslint" });
    expect(r.success).toBe(true);
    for (const file of ["packages/a/src/index.js", "packages/b/lib/index.js"])
      expect(fs.readFileSync(path.join(dir, file), "utf8")).toBe(
        fs.readFileSync(path.join(other, file), "utf8"),
      );
    expect(fs.readFileSync(path.join(dir, "packages/a/src/index.js"), "utf8")).toMatch(
      /^const unusedInA = 1;/,
    );
    expect(r.changed_files).toEqual([
      path.join(dir, "packages", "a", "src", "index.js"),
      path.join(dir, "packages", "b", "lib", "index.js"),
    ]);
  }, 120_000);
});

describe("splitPatterns", () => {
  const dirs = ["/w/packages/a", "/w/packages/b"];
  const isDir = (p: string) => !/\.[jt]s$/.test(p);
  it("gives a package what lies inside it, and each package held by a folder or glob its whole default", () => {
    expect(splitPatterns(["/w/packages/a/src/x.js", "/w/scripts/y.js"], dirs, isDir)).toEqual({
      packages: [{ dir: "/w/packages/a", files: ["src/x.js"] }],
      bundled: ["/w/scripts/y.js"],
    });
    expect(splitPatterns(["/w"], dirs, isDir)).toEqual({
      packages: [
        { dir: "/w/packages/a", files: undefined },
        { dir: "/w/packages/b", files: undefined },
      ],
      bundled: ["/w"],
    });
    expect(splitPatterns(["/w/packages/b/lib/**/*.js"], dirs, isDir)).toEqual({
      packages: [{ dir: "/w/packages/b", files: ["lib/**/*.js"] }],
      bundled: [],
    });
    // A sibling whose name starts like a package's is not inside it.
    expect(splitPatterns(["/w/packages/ab/z.js"], dirs, isDir)).toEqual({
      packages: [],
      bundled: ["/w/packages/ab/z.js"],
    });
  });
});
