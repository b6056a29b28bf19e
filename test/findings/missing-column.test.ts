/**
 * A finding whose tool printed no column (mypy's unused "type: ignore", `nodes.py:203: error: ...` even with
 * --show-column-numbers; pallets/jinja) is at column 1 in every text view, as check's report shows it and SARIF
 * reads a missing startColumn: type_check's issues said `nodes.py:203:0:` where check said `203:1`. Real mypy.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findingToIssue, linePosition } from "../../src/findings/model.js";
import { runCheck } from "../helpers/check.js";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

describe("a finding without a column", () => {
  it("prints at column 1; a whole-file finding stays 0:0", () => {
    expect(linePosition({ line: 203, column: 0 })).toBe("203:1");
    expect(linePosition({ line: 4, column: 7 })).toBe("4:7");
    expect(linePosition({ line: 0, column: 0 })).toBe("0:0");
    expect(
      findingToIssue({
        tool: "mypy",
        file: "/p/a.py",
        line: 3,
        column: 0,
        rule_id: "unused-ignore",
        severity: "error",
        message: "m",
      }),
    ).toBe("/p/a.py:3:1: unused-ignore m");
  });
});

describe.skipIf(missing("mypy"))("mypy's unused type: ignore, which it prints without a column", () => {
  it("type_check's issues and check's report both say line:1", async () => {
    const dir = tempDir("mcq-mypy-nocolumn-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), "[tool.mypy]\nwarn_unused_ignores = true\n");
    fs.writeFileSync(path.join(dir, "a.py"), "x: int = 1\ny: int = 2  # type: ignore\n");
    const hand = spawnSync("mypy", ["--show-column-numbers", "a.py"], { cwd: dir, encoding: "utf8" });
    expect(hand.stdout).toContain('a.py:2: error: Unused "type: ignore" comment');

    const s = await connectStdio({ args: ["--allowed-paths", dir] });
    try {
      const r = await s.call("type_check", { path: dir, checker: "mypy" });
      expect(r.success, JSON.stringify(r)).toBe(true);
      const issues = r.issues as string[];
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatch(/^a\.py:2:1: (?:unused-ignore )?Unused "type: ignore" comment$/);
    } finally {
      await s.close();
    }
    const report = (await runCheck([".", "--only", "mypy"], { cwd: dir })).stdout;
    expect(report).toMatch(/\n {2}2:1 {2}error /);
    expect(report).not.toContain("2:0");
  }, 120_000);
});
