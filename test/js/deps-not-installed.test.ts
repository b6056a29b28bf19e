/**
 * A TypeScript project cloned without `npm install`: tsc's `TS2688 Cannot find type definition file for
 * 'node'` and ESLint's `Cannot find package '@eslint/js'` are the missing install, so type_check and lint say
 * to run the project's install command (as run_tests does), never a type error of the project. Real tsc and
 * ESLint (the server's bundled copies, which a project without node_modules gets) through the real server.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

describe("a TypeScript project whose dependencies are not installed", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "deps-not-installed"));
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(async () => s?.close());

  it("type_check says to run npm install where tsc reports TS2688", async () => {
    const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    const direct = spawnSync(process.execPath, [tsc, "--noEmit", "-p", "tsconfig.json"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(direct.stdout).toMatch(/^error TS2688: Cannot find type definition file for 'node'\./);

    const r = await s.call("type_check", { path: dir });
    expect(r).toMatchObject({ success: false, error_type: "tool_error", missing_packages: ["@types/node"] });
    expect(r.error).toMatch(
      new RegExp(
        `^the project's dependencies are not installed: ${dir}/package\\.json declares @types/node, which is not in node_modules; run \`npm install\` in ${dir}, then run tsc again \\(tsc said: tsconfig\\.json: TS2688 Cannot find type definition file for 'node'\\.`,
      ),
    );
    expect(r.issues).toBeUndefined();
  });

  it("lint with ESLint says to run the project's install command where the config's import fails", async () => {
    const r = await s.call("lint", { path: dir, linter: "eslint" });
    expect(r).toMatchObject({ success: false, error_type: "tool_error", missing_packages: ["@eslint/js"] });
    expect(r.error).toMatch(/declares @eslint\/js, which is not in node_modules; run `npm install` in /);
    expect(r.error).toMatch(
      /ESLint said: ESLint failed \(config: .*eslint\.config\.js\): Cannot find package '@eslint\/js'/,
    );
    // A pnpm project is told pnpm's command.
    fs.writeFileSync(path.join(dir, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
    const pnpm = await s.call("lint", { path: dir, linter: "eslint" });
    expect(pnpm.error).toMatch(/run `pnpm install` in /);
  });
});
