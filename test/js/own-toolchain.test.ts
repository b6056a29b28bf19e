/**
 * A project with its own eslint, typescript and prettier (installed here from its lock file): the
 * server uses those, in warm workers, and says so in `notes`.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

type Json = Record<string, unknown>;

describe.skipIf(missing("npm"))("a project's own toolchain", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "own-toolchain"));
    const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8" });
    if (npm.status !== 0) throw new Error(`npm ci failed: ${npm.stderr}`);
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(() => s?.close());

  it("lint runs the project's ESLint 9 with its config", async () => {
    const r = await s.call("lint", { path: ".", linter: "eslint", format: "full" });
    expect(r.issues).toEqual([
      "src/app.js:1:5: prefer-const 'count' is never reassigned. Use 'const' instead.",
      "src/app.js:2:7: no-unused-vars 'unused' is assigned a value but never used.",
      "src/app.js:4:12: eqeqeq Expected '===' and instead saw '=='.",
    ]);
    expect(
      (r.files as Json[]).map((f) => [
        path.basename(f.file as string),
        f.status,
        f.errorCount,
        f.warningCount,
      ]),
    ).toEqual([
      // No lint script: the whole project, as `eslint .` lints it.
      ["eslint.config.js", "clean", 0, 0],
      ["app.js", "fixable", 2, 1],
      ["clean.js", "clean", 0, 0],
    ]);
    expect(r.notes).toContain(`eslint 9.39.5 from the project (${path.join(dir, "node_modules", "eslint")})`);
  });

  it("lint_fix fixes with the project's ESLint and reports what is left", async () => {
    const r = await s.call("lint_fix", { path: ".", linter: "eslint" });
    expect((r.files as Json[]).map((f) => [path.basename(f.file as string), f.status])).toEqual([
      ["app.js", "fixable"],
    ]);
    expect(r.issues).toEqual([
      "src/app.js:2:7: no-unused-vars 'unused' is assigned a value but never used.",
      "src/app.js:4:12: eqeqeq Expected '===' and instead saw '=='.",
    ]);
    expect(fs.readFileSync(path.join(dir, "src", "app.js"), "utf8")).toMatch(/^const count = 1;/);
  });

  it("type_check runs the project's TypeScript 5.9 in the worker", async () => {
    const r = await s.call("type_check", { path: "." });
    expect(r.issues).toEqual(["src/index.ts:1:7: TS2322 Type 'string' is not assignable to type 'number'."]);
    expect(r.notes).toContain(
      `typescript 5.9.3 from the project (${path.join(dir, "node_modules", "typescript")})`,
    );
  });

  it("format_check runs the project's Prettier with its .prettierrc", async () => {
    const r = await s.call("format_check", { path: "src", language: "javascript" });
    expect(r).toMatchObject({ formatted: false, unformatted_files: ["src/app.js", "src/clean.js"] });
    expect(r.notes).toContain(
      `prettier 3.6.2 from the project (${path.join(dir, "node_modules", "prettier")})`,
    );
    expect(r.notes).toContain(`config: ${path.join(dir, ".prettierrc")}`);
  });
});

describe.skipIf(missing("npm"))("a project whose own TypeScript is 7 (native, no JS API)", () => {
  it("type_check spawns the project's tsc --noEmit --pretty false through the bounded runner", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "ts7"));
    const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8" });
    if (npm.status !== 0) throw new Error(`npm ci failed: ${npm.stderr}`);
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const r = await s.call("type_check", { path: ".", files: ["src/b.ts", "src/c.ts"] });
      expect(r).toMatchObject({ success: true, passed: false, checker: "tsc", returncode: 1 });
      expect(r.command).toBe(`tsc --noEmit --pretty false -p ${path.join(dir, "tsconfig.json")}`);
      expect(r.issues).toEqual([
        "src/b.ts:3:29: TS2345 Argument of type 'string' is not assignable to parameter of type 'number'.",
        "src/c.ts:2:28: TS2339 Property 'toUpperCase' does not exist on type '1'.",
      ]);
      expect(r.summary).toMatchObject({ errors: 2, total_in_project: 3, scope: "filtered" });
      expect(r.notes).toContain(
        `typescript 7.0.2 from the project (${path.join(dir, "node_modules", "typescript")})`,
      );
    } finally {
      await s.close();
    }
  });
});
