/** Minitest's and test-unit's own output read into counts and failures, on output captured from the real runners. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSummaryLine, RubyTestOutput } from "../../src/adapters/ruby/ruby-test-output.js";
import { FIXTURES } from "../helpers/server.js";

const read = (name: string) => {
  const out = new RubyTestOutput("/proj");
  for (const line of fs.readFileSync(path.join(FIXTURES, "ruby", "captured", name), "utf8").split("\n"))
    out.push(line);
  return out;
};

describe("Ruby test output", () => {
  it("test-unit (through rake test): the summary's counts and each failure and error at its line", () => {
    const out = read("test-unit-faults.txt");
    expect(out.summary()).toEqual({
      framework: "test-unit",
      // 5 tests, 1 failures, 1 errors, 1 pendings, 1 omissions
      summary: { passed: 1, failed: 1, skipped: 2, errors: 1 },
      processes: 1,
    });
    expect(out.failures()).toEqual(
      [
        {
          node_id: "TestCalc#test_wrong",
          kind: "failed",
          file: "/proj/test/test_calc.rb",
          line: 9,
          message: "two plus two should be five\n<5> expected but was\n<4>",
        },
        {
          node_id: "TestCalc#test_raises",
          kind: "error",
          file: "/proj/test/test_calc.rb",
          line: 13,
          message: "ArgumentError: boom",
        },
      ].sort((a, b) => a.line - b.line),
    );
  });

  it("Minitest: the summary's counts and its numbered failure blocks", () => {
    const out = read("minitest-faults.txt");
    expect(out.summary()).toEqual({
      framework: "minitest",
      summary: { passed: 1, failed: 1, skipped: 1, errors: 1 },
      processes: 1,
    });
    expect(out.failures()).toEqual([
      {
        node_id: "TestCalc#test_wrong",
        kind: "failed",
        file: "/proj/test/test_calc.rb",
        line: 9,
        message: "two plus two should be five.\nExpected: 5\n  Actual: 4",
      },
      {
        node_id: "TestCalc#test_raises",
        kind: "error",
        file: "/proj/test/test_calc.rb",
        line: 13,
        message: "ArgumentError: boom",
      },
    ]);
  });

  it("several test processes' summaries add up; other lines are no summary", () => {
    const out = new RubyTestOutput("/proj");
    for (const l of [
      "3 runs, 3 assertions, 1 failures, 0 errors, 0 skips",
      "noise",
      "2 runs, 2 assertions, 0 failures, 0 errors, 1 skips",
    ])
      out.push(l);
    expect(out.summary()).toEqual({
      framework: "minitest",
      summary: { passed: 3, failed: 1, skipped: 1, errors: 0 },
      processes: 2,
    });
    expect(
      parseSummaryLine(
        "606 tests, 1471 assertions, 0 failures, 0 errors, 0 pendings, 1 omissions, 0 notifications",
      ),
    ).toEqual({
      framework: "test-unit",
      summary: { passed: 605, failed: 0, skipped: 1, errors: 0 },
    });
    expect(parseSummaryLine("Finished in 0.3 seconds.")).toBeUndefined();
  });
});
