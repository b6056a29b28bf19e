/**
 * run_tests on Ruby suites run through `rake test`, through the real server and the real runners, compared
 * with `rake test` run directly: test-unit with a Minitest fixture its tests run in a subprocess (the shape
 * of ruby/rake's suite, once reported as `passed: true` with 0 passed and 1 failed), Minitest::Spec files
 * named `spec_*.rb` declared through Rake::TestTask (rack's shape, once `nothing_checked`), and a test task
 * that exits 0 whatever its tests did (never `passed: true` beside a failure).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

const RUBY = path.join(FIXTURES, "ruby");

/** `rake test` as a user runs it, and the summary line(s) it prints. */
function rakeTest(dir: string): { status: number | null; summaries: string[] } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // vitest sets TEST=true, which rake's test task would read as the files to run.
  delete env.TEST;
  const r = spawnSync("rake", ["test"], { cwd: dir, encoding: "utf8", env });
  return {
    status: r.status,
    summaries: r.stdout.split("\n").filter((l) => /^\d+ (runs|tests), \d+ assertions/.test(l)),
  };
}

describe.skipIf(missing("ruby") || missing("rake"))("run_tests through `rake test`", () => {
  let testUnit: string;
  let spec: string;
  let exitsZero: string;
  let s: Connected;
  beforeAll(async () => {
    testUnit = copyFixture(path.join(RUBY, "rake-test-unit"));
    spec = copyFixture(path.join(RUBY, "minitest-spec-rake"));
    exitsZero = copyFixture(path.join(FIXTURES, "defaults", "minitest-gem"));
    // A test task that runs the tests with `system` and ignores how they ended: rake exits 0.
    fs.writeFileSync(
      path.join(exitsZero, "Rakefile"),
      'require "rbconfig"\n\ntask :test do\n  system(RbConfig.ruby, "-Itest", "-Ilib", "test/calc_test.rb")\nend\n',
    );
    s = await connectStdio({
      args: ["--allowed-paths", [testUnit, spec, exitsZero].join(","), "--rate-limit", "false"],
      cwd: testUnit,
    });
  });
  afterAll(async () => s?.close());

  it("test-unit's own summary, not a Minitest fixture its tests run in a subprocess", async () => {
    const direct = rakeTest(testUnit);
    expect(direct).toEqual({
      status: 0,
      summaries: ["4 tests, 3 assertions, 0 failures, 0 errors, 0 pendings, 1 omissions, 0 notifications"],
    });
    const r = await s.call("run_tests", { path: testUnit });
    expect(r).toMatchObject({
      success: true,
      passed: true,
      runner: "test-unit",
      command: "rake test",
      returncode: 0,
      summary: { passed: 3, failed: 0, skipped: 1, errors: 0 },
      failure_count: 0,
    });

    // A failing test-unit test is itemized from test-unit's own report of it.
    fs.writeFileSync(
      path.join(testUnit, "test", "test_broken.rb"),
      'require "test/unit"\n\nclass TestBroken < Test::Unit::TestCase\n  def test_wrong\n    assert_equal 5, 2 + 2\n  end\nend\n',
    );
    try {
      const failing = await s.call("run_tests", { path: testUnit });
      expect(failing).toMatchObject({
        passed: false,
        runner: "test-unit",
        summary: { passed: 3, failed: 1, skipped: 1, errors: 0 },
        failures: [
          {
            node_id: "TestBroken#test_wrong",
            kind: "failed",
            file: "test/test_broken.rb",
            line: 5,
            message: "<5> expected but was\n<4>",
          },
        ],
      });
    } finally {
      fs.rmSync(path.join(testUnit, "test", "test_broken.rb"));
    }
  });

  it("Minitest::Spec files named spec_*.rb that Rake::TestTask declares are run, with Minitest's counts", async () => {
    const direct = rakeTest(spec);
    expect(direct).toEqual({ status: 1, summaries: ["3 runs, 3 assertions, 1 failures, 0 errors, 0 skips"] });
    const r = await s.call("run_tests", { path: spec });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "minitest",
      command: "rake test",
      summary: { passed: 2, failed: 1, skipped: 0, errors: 0 },
      failures: [
        {
          node_id: "test/spec_slug.rb > Slug#test_0002_drops trailing punctuation",
          kind: "failed",
          file: "test/spec_slug.rb",
          line: 13,
          message: 'Expected: "hello-world"\n  Actual: "hello-world-"',
        },
      ],
    });
    // Minitest's summary and the server's per-test report agree: the fixture's subprocess wrote nothing.
    expect(JSON.stringify(r.notes)).not.toMatch(/add up to/);

    const one = await s.call("run_tests", {
      path: path.join(spec, "test", "spec_slug.rb"),
      pattern: "dashes",
    });
    expect(one).toMatchObject({ passed: true, runner: "minitest", summary: { passed: 1, failed: 0 } });
  });

  it("a test task that exits 0 beside a failing test is no pass", async () => {
    const r = await s.call("run_tests", { path: exitsZero });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      returncode: 0,
      runner: "minitest",
      summary: { passed: 1, failed: 1, errors: 1, skipped: 1 },
    });
    expect(r.notes).toContain("minitest exited 0 but reported 2 failing tests: not a pass");
  });
});
