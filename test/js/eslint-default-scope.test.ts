/**
 * ESLint's default scope (issue 9.8): with no `files`, the core `lint` lints what the project lints itself
 * (its package.json `lint` script's targets, else the whole directory, as `eslint` does with a flat config)
 * and labels the scope honestly; the eslint-typescript drop-in keeps seed 001's `src/`. Each case is
 * compared with ESLint run directly on the same fixture.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lintScriptTargets } from "../../src/adapters/js/lint-script.js";
import { connectStdio, FIXTURES, REPO_ROOT } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";
import { dropIn } from "../eslint-typescript/drop-in.js";

type Json = Record<string, unknown>;
const ESLINT = path.join(REPO_ROOT, "node_modules", ".bin", "eslint");

/** [file relative to dir, rule ids] as ESLint itself reports them for `targets`. */
function eslintDirect(dir: string, targets: string[]): [string, string[]][] {
  const run = spawnSync(ESLINT, ["--format", "json", ...targets], { cwd: dir, encoding: "utf8" });
  const reports = JSON.parse(run.stdout) as { filePath: string; messages: { ruleId: string }[] }[];
  return reports
    .map((r): [string, string[]] => [path.relative(dir, r.filePath), r.messages.map((m) => m.ruleId)])
    .sort(([a], [b]) => a.localeCompare(b));
}

function ours(dir: string, r: Json): [string, string[]][] {
  return (r.files as Json[])
    .map((f): [string, string[]] => [
      f.file as string,
      (f.messages as Json[]).map((m) => m.rule_id as string),
    ])
    .sort(([a], [b]) => a.localeCompare(b));
}

function setLintScript(dir: string, script: string | undefined): void {
  const file = path.join(dir, "package.json");
  const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { scripts: Record<string, string> };
  if (script === undefined) delete pkg.scripts.lint;
  else pkg.scripts.lint = script;
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2));
}

describe("lintScriptTargets", () => {
  it.each([
    ["eslint .", ["."]],
    ["eslint", ["."]],
    ["eslint src scripts --max-warnings 0", ["src", "scripts"]],
    ["npx eslint -c eslint.config.js --cache src", ["src"]],
    ["tsc --noEmit && eslint lib test", ["lib", "test"]],
    ["NODE_OPTIONS=--max-old-space-size=4096 eslint . --ext .ts", ["."]],
    ["eslint 'src/**/*.ts'", undefined],
    ["eslint src/**/*.ts", undefined],
    ["eslint $DIRS", undefined],
    ["next lint", undefined],
    ["prettier --check .", undefined],
  ])("%s", (script, want) => {
    expect(lintScriptTargets(script)).toEqual(want);
  });
});

describe("the core lint's default scope", () => {
  it("lints the lint script's targets, else the whole project, exactly as ESLint does; the drop-in keeps src/", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "ts-project"));
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const script = await s.call("lint", { path: ".", linter: "eslint", format: "full" });
      expect(ours(dir, script)).toEqual(eslintDirect(dir, ["src", "scripts"]));
      expect(ours(dir, script).map(([f]) => f)).toEqual(["scripts/tool.js", "src/a.js"]);
      expect(script.summary).toMatchObject({ totalFiles: 2, scope: "filtered" });
      expect(script.notes).toContain(
        "no files given: linted src scripts, what the project's lint script lints (eslint src scripts --max-warnings 0)",
      );

      setLintScript(dir, "eslint .");
      const all = await s.call("lint", { path: ".", linter: "eslint", format: "full" });
      expect(ours(dir, all)).toEqual(eslintDirect(dir, ["."]));
      expect(ours(dir, all).map(([f]) => f)).toContain("other/skip.js");
      expect(all.summary).toMatchObject({ totalFiles: 4, scope: "full" });

      setLintScript(dir, undefined);
      const none = await s.call("lint", { path: ".", linter: "eslint", format: "full" });
      expect(ours(dir, none)).toEqual(eslintDirect(dir, ["."]));
      expect(none.summary).toMatchObject({ scope: "full" });
      expect(none.notes).toContain(
        `no files given: linted the whole of ${dir}, as \`eslint\` does with a flat config`,
      );

      const fix = await s.call("lint_fix", { path: ".", linter: "eslint", dry_run: true });
      expect(fix.summary).toMatchObject({ scope: "full" });
      expect((fix.changed_files as string[]).map((f) => path.relative(dir, f)).sort()).toEqual([
        "other/skip.js",
        "src/a.js",
      ]);
    } finally {
      await s.close();
    }

    const seed = await dropIn(dir);
    try {
      const r = await seed.call("lint", { format: "full" });
      expect((r.files as Json[]).map((f) => path.relative(dir, f.file as string))).toEqual(["src/a.js"]);
      expect(r.summary).toMatchObject({ totalFiles: 1, scope: "full" });
    } finally {
      await seed.close();
    }
  });
});
