/**
 * Issue 39 (fastify/fastify-plugin: `"test": "npm run test:unit && npm run test:typescript"`, then
 * `tstyche`): run_tests runs the project's test runner and says which other commands its test script runs,
 * whose verdicts are not in the result. The script reader on real shapes, and through the real server.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectJsRunner } from "../../src/adapters/js/test-runner.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

describe("the commands a test script runs beside its runner", () => {
  it("follows npm run chains and lists the rest (fastify-plugin's shape)", () => {
    expect(
      detectJsRunner({
        scripts: {
          test: "npm run test:unit && npm run test:typescript",
          "test:unit": "c8 --100 node --test",
          "test:typescript": "tstyche",
        },
      }),
    ).toEqual({
      runner: "node",
      via: ["test", "test:unit"],
      command: "c8 --100 node --test",
      others: ["test:typescript (tstyche)"],
      typeTests: { command: "tstyche", entry: "test:typescript (tstyche)", alone: true },
    });
    expect(detectJsRunner({ scripts: { test: "npm run lint && vitest run", lint: "eslint ." } })).toEqual({
      runner: "vitest",
      via: ["test"],
      command: "vitest run",
      others: ["lint (eslint .)"],
    });
    expect(detectJsRunner({ scripts: { test: "vitest run" } })).toEqual({
      runner: "vitest",
      via: ["test"],
      command: "vitest run",
    });
  });
});

describe("run_tests on a project whose test script runs more than its runner", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = tempDir("mcq-js-steps-");
    fs.writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({
        name: "steps",
        private: true,
        scripts: { test: "node --test && npm run types", types: "tstyche" },
      }),
    );
    fs.mkdirSync(path.join(project, "test"));
    fs.writeFileSync(
      path.join(project, "test", "one.test.js"),
      'const test = require("node:test");\nconst assert = require("node:assert");\ntest("adds", () => assert.equal(1 + 1, 2));\n',
    );
    s = await connectStdio({ args: ["--allowed-paths", project, "--rate-limit", "false"], cwd: project });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(project, { recursive: true, force: true });
  });

  it("runs node --test and says the script also runs `types (tstyche)`, whose verdict is not in the result", async () => {
    const r = await s.call("run_tests", { path: "." });
    expect(r).toMatchObject({ success: true, passed: true, summary: { passed: 1, failed: 0 } });
    expect(r.notes).toContain(
      "the project's test script also runs `types (tstyche)`: run_tests ran node only, so its verdict is not in this result",
    );
  });
});
