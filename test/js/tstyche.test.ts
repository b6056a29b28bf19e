/**
 * Issue 39: run_tests runs a JS project's tstyche type tests when its test script does (fastify-plugin:
 * `npm run test:unit && npm run test:typescript`, then `tstyche`), and folds their verdict into the result:
 * TSTyche's counts, each failed type assertion at its file and line. The report parser on real reports
 * (captured from tstyche 7.2.5 on fastify-plugin and 5.0.2 on the fixture), then the real server and the real
 * tstyche (this repo's, linked into the fixture as a project's own node_modules).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectJsRunner } from "../../src/adapters/js/test-runner.js";
import {
  parseTstycheReport,
  tstycheArgs,
  tstycheOnly,
  tstycheScriptArgs,
} from "../../src/adapters/js/tstyche.js";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

const REPORTS = path.join(FIXTURES, "js", "tstyche-reports");

describe("tstyche's report, argv and script", () => {
  it("reads a failed assertion and a type error in a test file (tstyche 7.2.5 on fastify-plugin)", () => {
    const text = fs.readFileSync(path.join(REPORTS, "fastify-plugin-tstyche-7.2.5-failing.jsonl"), "utf8");
    expect(parseTstycheReport(text, "/tmp/fp")).toEqual({
      finished: true,
      summary: {
        tstyche_files_passed: 1,
        tstyche_files_failed: 2,
        tstyche_tests_passed: 0,
        tstyche_tests_failed: 0,
        tstyche_assertions_passed: 38,
        tstyche_assertions_failed: 1,
        tstyche_skipped: 0,
        errors: 1,
      },
      failures: [
        {
          node_id: "types/example-async.tst.ts",
          kind: "error",
          file: "/tmp/fp/types/example-async.tst.ts",
          line: 20,
          message: "Type 'string' is not assignable to type 'number'. ts(2322)",
        },
        {
          node_id: "types/index.tst.ts",
          kind: "failed",
          file: "/tmp/fp/types/index.tst.ts",
          line: 25,
          message: "Type 'FastifyPluginCallback' is not the same as type 'string'.",
        },
      ],
    });
  });

  it("names a failed assertion by its describe and test blocks (tstyche 5.0.2 on the fixture)", () => {
    const text = fs.readFileSync(path.join(REPORTS, "tstyche-project-5.0.2-failing.jsonl"), "utf8");
    const r = parseTstycheReport(text, "/tmp/tsp");
    expect(r.failures).toEqual([
      {
        node_id: "typetests/greet.tst.ts > greet > returns a string",
        kind: "failed",
        file: "/tmp/tsp/typetests/greet.tst.ts",
        line: 14,
        message: "Type 'Greeting' is not the same as type 'string'.",
      },
    ]);
    expect(r.summary).toMatchObject({
      tstyche_files_failed: 1,
      tstyche_tests_passed: 2,
      tstyche_tests_failed: 1,
      tstyche_assertions_passed: 2,
      tstyche_assertions_failed: 1,
      errors: 0,
    });
  });

  it("a report without its end is no verdict", () => {
    expect(parseTstycheReport("", "/p")).toMatchObject({ finished: false, failures: [] });
  });

  it("builds argv: its own reporters kept, --only for a plain name, the script's path fragments", () => {
    expect(tstycheArgs({ reporter: "/r.js", failFast: false })).toEqual([
      "--reporters",
      "list,summary,/r.js",
    ]);
    expect(tstycheArgs({ reporter: "/r.js", only: "greet", failFast: true, fragments: ["types/"] })).toEqual([
      "--reporters",
      "list,summary,/r.js",
      "--only",
      "greet",
      "--failFast",
      "types/",
    ]);
    expect(tstycheOnly("returns a string")).toBe("returns a string");
    expect(tstycheOnly("^adds$")).toBeUndefined();
    expect(
      tstycheScriptArgs(["npx", "tstyche", "--target", "5.8 || latest", "types/", "--failFast"]),
    ).toEqual({
      fragments: ["types/"],
      dropped: ["--target", "5.8 || latest", "--failFast"],
    });
  });

  it("finds tstyche in the test script's chain, and whether its entry runs anything else", () => {
    expect(
      detectJsRunner({
        scripts: {
          test: "npm run test:unit && npm run test:typescript",
          "test:unit": "c8 --100 node --test",
          "test:typescript": "tstyche",
        },
      }),
    ).toMatchObject({
      runner: "node",
      others: ["test:typescript (tstyche)"],
      typeTests: { command: "tstyche", entry: "test:typescript (tstyche)", alone: true },
    });
    expect(
      detectJsRunner({
        scripts: { test: "vitest run && npm run types", types: "tsc -p . && npx tstyche types" },
      }),
    ).toMatchObject({
      runner: "vitest",
      typeTests: {
        command: "npx tstyche types",
        entry: "types (tsc -p . && npx tstyche types)",
        alone: false,
      },
    });
    expect(detectJsRunner({ scripts: { test: "node --test && eslint ." } })).not.toHaveProperty("typeTests");
  });
});

describe("run_tests on a project whose test script runs node --test and tstyche", () => {
  let project: string;
  let s: Connected;
  const typeTests = () => path.join(project, "typetests", "greet.tst.ts");
  beforeAll(async () => {
    project = copyFixture(path.join(FIXTURES, "js", "tstyche-project"));
    // The project's own tstyche and typescript: this repo's devDependencies, as its node_modules.
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(project, "node_modules"));
    s = await connectStdio({ args: ["--allowed-paths", project, "--rate-limit", "false"], cwd: project });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(project, { recursive: true, force: true });
  });

  it("reports the failed type assertion at its file and line, and fails the run", async () => {
    const r = await s.call("run_tests", { path: "." });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "node+tstyche",
      returncode: 1,
      summary: {
        passed: 1,
        failed: 0,
        errors: 0,
        tstyche_files_passed: 0,
        tstyche_files_failed: 1,
        tstyche_tests_passed: 2,
        tstyche_tests_failed: 1,
        tstyche_assertions_passed: 2,
        tstyche_assertions_failed: 1,
      },
      failure_count: 1,
    });
    expect(r.command).toMatch(/ && tstyche --reporters list,summary,\S+tstyche-reporter\.js$/);
    expect(r.failures).toEqual([
      {
        node_id: "typetests/greet.tst.ts > greet > returns a string",
        kind: "failed",
        file: "typetests/greet.tst.ts",
        line: 14,
        message: "Type 'Greeting' is not the same as type 'string'.",
      },
    ]);
    expect(r.notes).toEqual([
      `node --test with this server's Node ${process.version}`,
      "the project's test script runs `node --test`; ran node",
      `tstyche 5.0.2 from the project (${fs.realpathSync(path.join(REPO_ROOT, "node_modules", "tstyche"))}), as the test script runs \`tstyche\``,
      "tstyche: test files: 0 passed, 1 failed; tests: 2 passed, 1 failed; assertions: 2 passed, 1 failed",
    ]);
  });

  it("passes once the failing assertion is gone, with the counts tstyche prints", async () => {
    const before = fs.readFileSync(typeTests(), "utf8");
    fs.writeFileSync(
      typeTests(),
      before.replace(/\n\n {2}test\("returns a string"[\s\S]*?\n {2}\}\);\n/, "\n"),
    );
    try {
      const direct = spawnSync(path.join(project, "node_modules", ".bin", "tstyche"), [], {
        cwd: project,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
      });
      expect(direct.status).toBe(0);
      const printed = stripVTControlCharacters(direct.stdout);
      expect(printed).toMatch(/^Test files: +1 passed, 1 total$/m);
      expect(printed).toMatch(/^Tests: +2 passed, 2 total$/m);
      expect(printed).toMatch(/^Assertions: +2 passed, 2 total$/m);
      const r = await s.call("run_tests", { path: "." });
      expect(r).toMatchObject({
        success: true,
        passed: true,
        returncode: 0,
        summary: {
          passed: 1,
          failed: 0,
          tstyche_files_passed: 1,
          tstyche_files_failed: 0,
          tstyche_tests_passed: 2,
          tstyche_tests_failed: 0,
          tstyche_assertions_passed: 2,
          tstyche_assertions_failed: 0,
        },
        failures: [],
      });
    } finally {
      fs.writeFileSync(typeTests(), before);
    }
  });

  it("passes a plain test name to tstyche as --only; a regular expression skips it with a note", async () => {
    const plain = await s.call("run_tests", { path: ".", pattern: "returns a Greeting" });
    expect(plain.command).toMatch(/ && tstyche --reporters \S+ --only 'returns a Greeting'$/);
    expect(plain.summary).toMatchObject({ tstyche_tests_passed: 1, tstyche_tests_failed: 0 });
    const regex = await s.call("run_tests", { path: ".", pattern: "^adds$" });
    expect(regex).toMatchObject({ passed: true, runner: "node", summary: { passed: 1 } });
    expect(regex.notes).toContain(
      "tstyche did not run: it selects tests by a plain name (--only), and the pattern `^adds$` is a regular expression",
    );
  });

  it("leaves tstyche out of a run on one file, as it leaves out the script's other commands", async () => {
    const r = await s.call("run_tests", { path: "test/math.test.js" });
    expect(r).toMatchObject({ passed: true, runner: "node", summary: { passed: 1 } });
    expect(r.command).not.toMatch(/ && tstyche/);
    expect(r.notes).toContain(
      "the project's test script also runs `test:types (tstyche)`: a run on one path runs node only; run_tests on the project runs tstyche too",
    );
  });
});
