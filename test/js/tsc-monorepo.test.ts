/**
 * TypeScript monorepos were only partly type-checked, exit 0. A solution-style root tsconfig (`"files": [],
 * "references": [...]`) was checked as `tsc -p` checks it: 0 root files, passed, where `tsc -b` finds the
 * referenced projects' errors. A turborepo root (workspaces, no root tsconfig) ran ESLint only: its packages'
 * tsconfigs were swallowed by the root JavaScript project. Now a tsconfig's references are checked as `tsc
 * -b` checks them (each referenced project, its references read from sources, nothing built), and each
 * package with a tsconfig no run reaches gets a run of its own. Compared with `tsc -b` by hand (in a copy:
 * it writes its builds), the real bundled TypeScript.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson, runCheck, type CheckJson } from "../helpers/check.js";
import { connectStdio, FIXTURES, REPO_ROOT } from "../helpers/server.js";
import { copyFixture, tempDir } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const FIXTURE = path.join(FIXTURES, "js", "ts-monorepo");

/** `tsc -b <projects>` by hand in a scratch copy of `dir`, as sorted `file:line TScode`. */
function tscBuildByHand(dir: string, projects: string[]): string[] {
  const copy = path.join(tempDir("mcq-tsc-b-"), "copy");
  fs.cpSync(dir, copy, { recursive: true });
  const run = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-b", ...projects, "--pretty", "false"],
    { cwd: copy, encoding: "utf8" },
  );
  return run.stdout
    .trim()
    .split("\n")
    .map((l) => /^(.+)\((\d+),\d+\): error (TS\d+):/.exec(l))
    .map((m) => `${m?.[1]}:${m?.[2]} ${m?.[3]}`)
    .sort();
}

const found = (json: CheckJson) =>
  json.findings
    .filter((f) => f.check === "tsc")
    .map((f) => `${f.file}:${f.line} ${f.rule_id}`)
    .sort();

async function checkTsc(dir: string): Promise<CheckJson> {
  const before = treeHash(dir);
  const json = parseJson(
    await runCheck([".", "--json", "--result-cache", "false", "--allowed-paths", dir], {
      cwd: dir,
    }),
  );
  // Read-only: nothing built, no .tsbuildinfo.
  expect(treeHash(dir)).toEqual(before);
  return json;
}

describe("a TypeScript monorepo is type-checked as tsc -b checks it", () => {
  it("a solution-style root tsconfig: each referenced project, by check and type_check", async () => {
    const dir = path.join(copyFixture(FIXTURE), "solution");
    const byHand = tscBuildByHand(dir, []);
    expect(byHand).toEqual(["packages/app/src/index.ts:3 TS2322", "packages/shared/src/index.ts:1 TS7006"]);
    const json = await checkTsc(dir);
    expect(found(json)).toEqual(byHand);
    expect(json.exit_code).toBe(1);
    expect(json.checks.find((c) => c.id === "tsc")?.notes).toContainEqual(
      "tsconfigs run: tsconfig.json (nearest), packages/app/tsconfig.json (referenced), " +
        "packages/shared/tsconfig.json (referenced); a diagnostic several of them report is shown once",
    );
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const r = await s.call("type_check", { path: dir, checker: "tsc" });
      expect(r).toMatchObject({ success: true, passed: false, issue_count: 2 });
    } finally {
      await s.close();
    }
  }, 240_000);

  it("a workspace root without a tsconfig: each package no run references, once", async () => {
    const dir = path.join(copyFixture(FIXTURE), "turbo");
    const byHand = tscBuildByHand(dir, ["apps/web", "apps/docs"]);
    expect(byHand).toEqual([
      "apps/docs/src/index.ts:1 TS2322",
      "apps/web/src/index.ts:3 TS2322",
      "packages/ui/src/index.ts:1 TS7006",
    ]);
    const json = await checkTsc(dir);
    expect(found(json)).toEqual(byHand);
    // packages/ui is apps/web's reference: checked by its run, not again by one of its own.
    const tsc = json.checks.filter((c) => c.id === "tsc");
    expect(tsc.map((c) => `${c.id} ${path.relative(dir, c.target)}`).sort()).toEqual([
      "tsc apps/docs",
      "tsc apps/web",
    ]);
    expect(json.exit_code).toBe(1);
  }, 240_000);

  it("a referenced project outside the allowed paths is said, not silently skipped", async () => {
    const app = path.join(copyFixture(FIXTURE), "solution", "packages", "app");
    const s = await connectStdio({ args: ["--allowed-paths", app], cwd: app });
    try {
      const r = await s.call("type_check", { path: app, checker: "tsc" });
      expect(r.notes).toContainEqual(
        `warning: ${fs.realpathSync(path.join(app, "..", "shared", "tsconfig.json"))} is a referenced project ` +
          "outside the allowed paths: not type-checked (add its folder with --allowed-paths)",
      );
    } finally {
      await s.close();
    }
  }, 240_000);
});
