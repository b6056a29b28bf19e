/** run_tests on JavaScript projects through the real server: the project's vitest, and node --test. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

describe("run_tests with node --test", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(path.join(FIXTURES, "js", "node-test-project"));
    s = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
  });
  afterAll(async () => s?.close());

  it("counts and locates the failure from the server's node:test reporter: the file in the node id, the whole message", async () => {
    const r = await s.call("run_tests", { path: "." });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "node",
      returncode: 1,
      summary: { passed: 1, failed: 1, skipped: 1 },
      failure_count: 1,
    });
    expect(r.command).toMatch(
      /^node --test --test-reporter=\S+node-test-reporter\.js --test-reporter-destination=\S+report\.jsonl$/,
    );
    expect(r.failures).toEqual([
      {
        node_id: "test/math.test.js > fails",
        kind: "failed",
        file: "test/math.test.js",
        line: 12,
        message: "Expected values to be strictly equal:\n\n4 !== 5",
      },
    ]);
    const only = await s.call("run_tests", { path: ".", pattern: "adds" });
    expect(only).toMatchObject({ passed: true, summary: { passed: 1, failed: 0 } });
  });
});

describe.skipIf(missing("npm"))("run_tests with the project's vitest", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(path.join(FIXTURES, "js", "vitest-project"));
    const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: project, encoding: "utf8" });
    if (npm.status !== 0) throw new Error(`npm ci failed: ${npm.stderr}`);
    s = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
  });
  afterAll(async () => s?.close());

  it("reads vitest's JSON report: counts, the failing line, the test's full name", async () => {
    const r = await s.call("run_tests", { path: "." });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "vitest",
      summary: { passed: 1, failed: 1, skipped: 1, errors: 0 },
      failure_count: 1,
    });
    expect((r.notes as string[])[0]).toMatch(/^vitest 4\.1\.12 from the project/);
    const failure = (r.failures as Record<string, unknown>[])[0];
    expect(failure).toMatchObject({
      node_id: "test/math.test.js > add fails",
      kind: "failed",
      file: "test/math.test.js",
      line: 12,
    });
    expect(failure?.message).toMatch(/^AssertionError: expected 4 to be 5/);
    const only = await s.call("run_tests", { path: "test/math.test.js", pattern: "adds" });
    expect(only).toMatchObject({ passed: true, runner: "vitest" });
    expect(only.command).toMatch(/ -t adds test\/math\.test\.js$/);
  });

  it("counts the errors vitest caught outside any test (a rejection left behind), as vitest's exit does", async () => {
    fs.writeFileSync(
      path.join(project, "test", "leak.test.js"),
      'import { expect, test } from "vitest";\n\ntest("passes, and leaves a rejection behind", () => {\n  void Promise.reject(new Error("left behind"));\n  expect(1).toBe(1);\n});\n',
    );
    try {
      const direct = spawnSync(
        path.join(project, "node_modules", ".bin", "vitest"),
        ["run", "test/leak.test.js"],
        {
          cwd: project,
          encoding: "utf8",
          env: { ...process.env, CI: "true" },
        },
      );
      expect(direct.status).toBe(1);
      expect(direct.stdout + direct.stderr).toMatch(/Vitest caught 1 unhandled error/);
      const r = await s.call("run_tests", { path: "test/leak.test.js" });
      expect(r).toMatchObject({
        success: true,
        passed: false,
        summary: { passed: 1, failed: 0, errors: 1 },
      });
      expect(r.failures).toEqual([
        { node_id: "unhandled error 1 of 1", kind: "error", message: "Error: left behind" },
      ]);
    } finally {
      fs.rmSync(path.join(project, "test", "leak.test.js"));
    }
  });
});

describe.skipIf(missing("npm"))("run_tests with the project's jest", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(path.join(FIXTURES, "js", "jest-project"));
    const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: project, encoding: "utf8" });
    if (npm.status !== 0) throw new Error(`npm ci failed: ${npm.stderr}`);
    s = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
  });
  afterAll(async () => s?.close());

  it("reads jest's --json report like vitest's", async () => {
    const r = await s.call("run_tests", { path: "." });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "jest",
      summary: { passed: 1, failed: 1, skipped: 1, errors: 0 },
      failure_count: 1,
    });
    expect(r.command).toMatch(/^jest --json --outputFile=\S+report\.json --ci$/);
    const failure = (r.failures as Record<string, unknown>[])[0];
    expect(failure).toMatchObject({
      node_id: "test/math.test.js > add fails",
      file: "test/math.test.js",
      line: 10,
    });
    expect(failure?.message).toBe(
      "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 5\nReceived: 4",
    );
  });
});
