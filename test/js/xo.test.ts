/**
 * A project that lints with xo (package.json: xo in devDependencies, an "xo" config key, `"test": "xo && ..."`)
 * and has no eslint.config.*: lint and lint_fix run the project's own xo (1.2.3, linked from .tools/xo, which
 * scripts/install-tools.sh installs), and their findings and fixes are those of xo run by hand in the project.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture, IN_CI } from "../helpers/tools.js";

type Json = Record<string, unknown>;
interface XoMessage {
  line: number;
  column: number;
  ruleId: string | null;
  message: string;
}
interface XoResult {
  filePath: string;
  messages: XoMessage[];
  output?: string;
}

const XO_MODULES = path.join(REPO_ROOT, ".tools", "xo", "node_modules");
const FIXTURE = path.join(FIXTURES, "js", "xo-project");
const noXo = !fs.existsSync(path.join(XO_MODULES, "xo", "package.json"));
if (noXo && !IN_CI) process.stderr.write("skipping the xo tests: run scripts/install-tools.sh\n");

/**
 * A copy of the fixture whose node_modules links each package of the installed xo's (a folder of its own, where
 * xo run by hand keeps its cache and generated tsconfig, as in a project that installed xo).
 */
function xoProject(): string {
  const dir = copyFixture(FIXTURE);
  const modules = fs.realpathSync(XO_MODULES);
  fs.mkdirSync(path.join(dir, "node_modules"));
  for (const name of fs.readdirSync(modules).filter((n) => n !== ".cache"))
    fs.symlinkSync(path.join(modules, name), path.join(dir, "node_modules", name));
  return dir;
}

/** `xo --reporter=json [--fix]` by hand in `dir`. */
function xoByHand(dir: string, fix = false): XoResult[] {
  const r = spawnSync(
    process.execPath,
    [path.join(dir, "node_modules", ".bin", "xo"), ...(fix ? ["--fix"] : []), "--reporter=json"],
    { cwd: dir, encoding: "utf8" },
  );
  return JSON.parse(r.stdout) as XoResult[];
}

/** The issues lint shows for xo's results (seed 000's strings). */
function issuesOf(dir: string, results: XoResult[]): string[] {
  return results.flatMap((f) =>
    f.messages.map(
      (m) => `${path.relative(dir, f.filePath)}:${m.line}:${m.column}: ${m.ruleId} ${m.message}`,
    ),
  );
}

describe.skipIf(noXo && !IN_CI)("a project that lints with xo", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = xoProject();
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(() => s?.close());

  it("lint runs the project's xo: its findings are xo's by hand, the package.json config's rules with them", async () => {
    const hand = xoProject();
    const byHand = xoByHand(hand);
    const r = await s.call("lint", { path: ".", linter: "eslint", format: "full" });
    expect(r.success).toBe(true);
    expect(r.issues).toEqual(issuesOf(hand, byHand));
    // xo's own rules (no-var, tabs, single quotes); its "xo" key turns no-warning-comments off.
    expect(r.issues).toEqual([
      "src/app.js:1:1: no-var Unexpected var, use let or const instead.",
      "src/app.js:4:1: @stylistic/indent Expected indentation of 1 tab but found 4 spaces.",
      "src/app.js:5:1: @stylistic/indent Expected indentation of 1 tab but found 4 spaces.",
      "src/app.js:9:11: eqeqeq Expected '===' and instead saw '=='.",
      "src/app.js:13:7: no-unused-vars 'unused' is assigned a value but never used. Allowed unused vars must match /^_/u.",
      "src/app.js:13:16: @stylistic/quotes Strings must use singlequote.",
      // Type-aware, through the tsconfig xo generates for a file no tsconfig includes (xo writes it into
      // node_modules/.cache/xo-linter: in the read-only sandbox the server gives it a folder of the run's).
      "src/typed.ts:1:7: @typescript-eslint/no-inferrable-types Type number trivially inferred from a number literal, remove type annotation.",
      "src/typed.ts:3:21: @typescript-eslint/no-unnecessary-type-assertion This assertion is unnecessary since it does not change the type of the expression.",
    ]);
    expect((r.files as Json[]).map((f) => [f.file, f.status])).toEqual(
      byHand.map((f) => [path.relative(hand, f.filePath), f.messages.length ? "fixable" : "clean"]),
    );
    // xo by hand kept its cache and generated tsconfig in node_modules/.cache; the server's lint wrote nothing.
    expect(fs.existsSync(path.join(hand, "node_modules", ".cache", "xo-linter", "tsconfig.xo.json"))).toBe(
      true,
    );
    expect(fs.existsSync(path.join(dir, "node_modules", ".cache"))).toBe(false);
    expect(r.command).toBe("xo --reporter=json");
    expect(r.notes).toContain(`xo 1.2.3 from the project (${fs.realpathSync(path.join(XO_MODULES, "xo"))})`);
    expect(r.notes).toContain(
      'the project lints with xo (package.json depends on xo, has an "xo" config, its test script runs xo): ran its xo, with xo\'s own config',
    );
  }, 120_000);

  it("lint of one file gives xo's findings of that file", async () => {
    const r = await s.call("lint", { path: ".", files: ["src/clean.js"], linter: "eslint" });
    expect(r).toMatchObject({ success: true, issues: [], command: "xo --reporter=json ./src/clean.js" });
  }, 120_000);

  it("lint_fix writes what `xo --fix` writes by hand, and reports what is left", async () => {
    const other = xoProject();
    const left = xoByHand(other, true);
    const fixedByHand = fs.readFileSync(path.join(other, "src", "app.js"), "utf8");

    const dry = await s.call("lint_fix", { path: ".", linter: "eslint", dry_run: true });
    expect(dry.success).toBe(true);
    expect(dry.diff).toContain("-var total = 0;\n+let total = 0;");
    expect(fs.readFileSync(path.join(dir, "src", "app.js"), "utf8")).toContain("var total = 0;");

    const r = await s.call("lint_fix", { path: ".", linter: "eslint" });
    expect(r.success).toBe(true);
    expect(r.changed_files).toEqual([path.join(dir, "src", "app.js"), path.join(dir, "src", "typed.ts")]);
    expect(fs.readFileSync(path.join(dir, "src", "app.js"), "utf8")).toBe(fixedByHand);
    expect(fs.readFileSync(path.join(dir, "src", "typed.ts"), "utf8")).toBe(
      fs.readFileSync(path.join(other, "src", "typed.ts"), "utf8"),
    );
    expect(r.issues).toEqual(issuesOf(other, left));
    expect(r.command).toBe("xo --fix --reporter=json");
  }, 180_000);
});

describe.skipIf(noXo && !IN_CI)("an xo project whose dependencies are not installed", () => {
  it("is linted with the bundled config, and lint says xo is not installed", async () => {
    const dir = copyFixture(FIXTURE);
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const r = await s.call("lint", { path: ".", linter: "eslint" });
      expect(r.success).toBe(true);
      expect(r.notes).toContain(
        `warning: the project lints with xo (package.json depends on xo, has an "xo" config, its test script runs xo), but xo is not installed (no node_modules/xo from ${dir} up): these are the bundled default config's findings, not xo's; install the project's dependencies (npm install) to lint it with its xo`,
      );
      expect(r.command).toBe("eslint -- .");
    } finally {
      await s.close();
    }
  }, 60_000);
});
