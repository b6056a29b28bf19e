/**
 * tj/commander.js type-checks with `tsc -p tsconfig.ts.json` and `tsc -p tsconfig.js.json` (its scripts), and
 * type_check and check ran only the nearest tsconfig.json, whose lenient settings hid errors `npm run check`
 * shows. They now run every tsconfig the scripts name beside it, show a diagnostic several runs report once,
 * and warn of a script's tsconfig they cannot run. The real tsc (bundled), compared with it run by hand.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runnableTsconfigs, scriptTsconfigs } from "../../src/adapters/js/tsc-scripts.js";
import { parseJson, runCheck } from "../helpers/check.js";
import { connectStdio, FIXTURES, REPO_ROOT } from "../helpers/server.js";
import { copyFixture, tempDir } from "../helpers/tools.js";

const FIXTURE = path.join(FIXTURES, "js", "tsc-script-configs");

/** `tsc --noEmit -p <config>` by hand (the bundled TypeScript, which the fixture runs), as issue strings. */
function tscByHand(dir: string, config: string): string[] {
  const run = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "--pretty", "false", "-p", config],
    { cwd: dir, encoding: "utf8" },
  );
  return run.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => /^(.+)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(l))
    .map((m) => `${m?.[1]}:${m?.[2]}:${m?.[3]}: ${m?.[4]} ${m?.[5]}`);
}

const RAN =
  "tsconfigs run: tsconfig.json (nearest), tsconfig.strict.json (typecheck, typecheck:ci); a diagnostic several of them report is shown once";
const GONE =
  "warning: the project's scripts type-check with tsconfig.missing.json (typecheck:gone), not run: it does not exist";
const sibling = (dir: string) =>
  `warning: the project's scripts type-check with ../type-errors/tsconfig.json (typecheck:sibling), not run: it is outside the project (${dir})`;

describe("the tsconfigs a project's scripts type-check with", () => {
  it("are read from each script's tsc commands by the shell parser", async () => {
    const dir = tempDir("mcq-tsc-scripts-");
    expect(
      await scriptTsconfigs(
        {
          "check:type:js": "tsc -p tsconfig.js.json",
          "check:type:ts": "tsd && tsc -p tsconfig.ts.json",
          quoted: "npx tsc --noEmit --project 'tsconfig a.json' || exit 1",
          moved: "cd packages/a && tsc -P tsconfig.build.json",
          later: "tsc -p $CONFIG",
          // tsc refuses `--project=X` (TS5023), and vue-tsc or an echo is no tsc run.
          equals: "tsc --project=tsconfig.eq.json",
          other: "vue-tsc -p x.json",
          said: "echo run tsc -p said.json",
          plain: "tsc --noEmit",
        },
        dir,
      ),
    ).toEqual([
      { script: "check:type:js", config: "tsconfig.js.json", resolved: path.join(dir, "tsconfig.js.json") },
      { script: "check:type:ts", config: "tsconfig.ts.json", resolved: path.join(dir, "tsconfig.ts.json") },
      { script: "quoted", config: "tsconfig a.json", resolved: path.join(dir, "tsconfig a.json") },
      {
        script: "moved",
        config: "tsconfig.build.json",
        resolved: path.join(dir, "packages", "a", "tsconfig.build.json"),
      },
      { script: "later", config: "$CONFIG" },
    ]);
  });

  it("run when they exist inside the project, once each; the others are said", async () => {
    const dir = copyFixture(FIXTURE);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const found = await scriptTsconfigs(pkg.scripts, dir);
    expect(runnableTsconfigs(found, path.join(dir, "tsconfig.json"), dir, () => true)).toEqual({
      run: [{ file: path.join(dir, "tsconfig.strict.json"), scripts: ["typecheck", "typecheck:ci"] }],
      skipped: [
        "tsconfig.missing.json (typecheck:gone), not run: it does not exist",
        `../type-errors/tsconfig.json (typecheck:sibling), not run: it is outside the project (${dir})`,
      ],
    });
  });

  it("are all run by type_check and check, as tsc run by hand with each reports", async () => {
    const dir = copyFixture(FIXTURE);
    const lenient = tscByHand(dir, "tsconfig.json");
    const strict = tscByHand(dir, "tsconfig.strict.json");
    expect([lenient.length, strict.length]).toEqual([1, 3]);
    const byHand = [...new Set([...lenient, ...strict])];
    expect(byHand.length).toBe(3);
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const r = await s.call("type_check", { path: dir, checker: "tsc" });
      expect(r).toMatchObject({ success: true, passed: false, issue_count: 3 });
      expect(r.issues).toEqual(byHand);
      expect(r.notes).toEqual(expect.arrayContaining([RAN, GONE, sibling(dir)]));
      // Both runs share the project's warm worker: the second config does not restart it.
      expect(r.notes).toContainEqual(expect.stringMatching(/^warm tsc worker pid \d+, request 2$/));
      // A tsconfig the call names is the one checked: tsc's own verdict on it.
      const named = await s.call("type_check", {
        path: dir,
        checker: "tsc",
        config: path.join(dir, "tsconfig.json"),
      });
      expect(named.issues).toEqual(lenient);
      expect(JSON.stringify(named.notes)).not.toContain("tsconfigs run:");
    } finally {
      await s.close();
    }
    // Through bin/mcp-code-quality, as a user runs it: its start-up snapshot holds the shell parser too.
    const run = await runCheck([".", "--only", "tsc", "--json"], {
      cwd: dir,
      program: [path.join(REPO_ROOT, "bin", "mcp-code-quality")],
    });
    const json = parseJson(run);
    expect(json.findings.map((f) => `${f.file}:${f.line}: ${f.rule_id}`)).toEqual(
      byHand.map((i) => i.replace(/^(.+?):(\d+):\d+: (TS\d+) .*$/, "$1:$2: $3")),
    );
    expect(json.checks[0]?.notes).toEqual(expect.arrayContaining([RAN, GONE, sibling(dir)]));
    const report = (await runCheck([".", "--only", "tsc"], { cwd: dir })).stdout;
    expect(report).toContain(`\nTool warnings:\n  tsc: ${GONE}\n  tsc: ${sibling(dir)}\n`);
  }, 180_000);

  it("are all part of a cached result, which answers as the runs did", async () => {
    const dir = copyFixture(FIXTURE);
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--result-cache-dir", tempDir("mcq-tsc-scripts-cache-")],
      cwd: dir,
      env: { MCP_CODE_QUALITY_RESULT_CACHE: "true" },
    });
    try {
      const first = await s.call("type_check", { path: dir, checker: "tsc" });
      const again = await s.call("type_check", { path: dir, checker: "tsc" });
      expect(again.cached).toMatch(/^(\d+) of \1 files$/);
      expect(again.issues).toEqual(first.issues);
      expect(again.issue_count).toBe(3);
      expect(again.notes).toEqual(expect.arrayContaining([RAN, GONE]));
      // The script's tsconfig changed: run again, as tsc by hand.
      fs.writeFileSync(
        path.join(dir, "tsconfig.strict.json"),
        '{ "extends": "./tsconfig.json", "compilerOptions": { "noImplicitAny": true } }\n',
      );
      const changed = await s.call("type_check", { path: dir, checker: "tsc" });
      expect(changed.cached).toMatch(/^0 of \d+ files$/);
      expect(changed.issues).toEqual([
        ...new Set([...tscByHand(dir, "tsconfig.json"), ...tscByHand(dir, "tsconfig.strict.json")]),
      ]);
      expect(changed.issue_count).toBe(2);
    } finally {
      await s.close();
    }
  }, 180_000);
});
