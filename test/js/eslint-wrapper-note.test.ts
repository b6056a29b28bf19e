/**
 * A project that lints with xo (sindresorhus/ky) and has no eslint.config.*, and has not installed xo: lint
 * runs the bundled default config, whose findings are not xo's (ky: 140 against xo's 11), and says so; check
 * shows it under "Tool warnings:". The bundled ESLint, for real (an installed xo runs: xo.test.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { eslintWrapperOf } from "../../src/adapters/js/eslint-wrappers.js";
import { runCheck } from "../helpers/check.js";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

describe("a project that lints with an ESLint wrapper", () => {
  it("is told by its package.json: a dependency, a config key, a script that runs it", () => {
    expect(eslintWrapperOf({ devDependencies: { xo: "^1.2.3" } })).toEqual({
      name: "xo",
      why: "depends on xo",
    });
    expect(eslintWrapperOf({ scripts: { test: "xo && npm run build && ava" } })?.why).toBe(
      "its test script runs xo",
    );
    expect(eslintWrapperOf({ scripts: { lint: "standard --fix" } })?.name).toBe("standard");
    // A word that only contains the name is not the command.
    expect(eslintWrapperOf({ scripts: { test: "node xo-check.js && exotic" } })).toBeUndefined();
    expect(eslintWrapperOf({ devDependencies: { eslint: "^9" } })).toBeUndefined();
  });

  it("gets a warning from lint and check that the findings are the bundled config's (xo not installed)", async () => {
    const dir = tempDir("mcq-xo-");
    fs.writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({
        name: "p",
        type: "module",
        scripts: { test: "xo && ava" },
        devDependencies: { xo: "^1.2.3" },
      }),
    );
    fs.writeFileSync(path.join(dir, "index.js"), "export const one = () => 1;\n");
    // xo is run where it is installed (xo.test.ts); here it is not.
    const warning = `warning: the project lints with xo (package.json depends on xo, its test script runs xo), but xo is not installed (no node_modules/xo from ${dir} up): these are the bundled default config's findings, not xo's; install the project's dependencies (npm install) to lint it with its xo`;
    const s = await connectStdio({ args: ["--allowed-paths", dir] });
    try {
      const r = await s.call("lint", { path: dir, linter: "eslint" });
      expect(r.success).toBe(true);
      expect(r.notes).toContain(warning);
    } finally {
      await s.close();
    }
    const report = (await runCheck([".", "--only", "eslint"], { cwd: dir })).stdout;
    expect(report).toContain(`\nTool warnings:\n  eslint: ${warning}\n`);
  }, 60_000);
});
