/**
 * A check whose tool failed says "see output": the report shows that output (the command, its exit code,
 * the last lines, control characters out), --json carries all of it, the HTML report folds it. The real
 * ruff on a file it cannot parse, compared with ruff run by hand on the same folder.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CheckOutcome } from "../../src/check/outcome.js";
import { FAILED_OUTPUT_LINES, failedRunLines, plain, renderReport } from "../../src/check/report.js";
import { runCheck, type CheckJson } from "../helpers/check.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const failed = (over: Partial<CheckOutcome>): CheckOutcome => ({
  id: "black-format",
  kind: "format",
  language: "python",
  target: "/w",
  status: "failed",
  duration_ms: 10,
  counts: { error: 0, warning: 0, note: 0 },
  findings: [],
  reason: "black failed (exit 123); see output",
  error_type: "tool_error",
  ...over,
});

describe("a failed check's run in the report", () => {
  it("shows the command, the exit code and the last lines, without control characters or endless lines", () => {
    const output = [
      ...Array.from({ length: 30 }, (_, i) => `would reformat f${i}.py`),
      "\u001b[31merror: cannot format x.py: Cannot parse: 1:5\u001b[0m\r",
      "y".repeat(1000),
    ].join("\n");
    const lines = failedRunLines(
      {
        outcomes: [failed({ command: "black --check -- x.py", returncode: 123, output, truncated: true })],
        elapsedMs: 1,
        cwd: "/w",
      },
      plain,
    );
    expect(lines.slice(0, 4)).toEqual([
      "",
      "Failed runs:",
      "  black-format: black --check -- x.py (exit 123)",
      "    … 12 earlier lines in --json; the output was capped (--max-output-bytes)",
    ]);
    const shown = lines.slice(4);
    expect(shown).toHaveLength(FAILED_OUTPUT_LINES);
    expect(shown[0]).toBe("    would reformat f12.py");
    expect(shown.at(-2)).toBe("    [31merror: cannot format x.py: Cannot parse: 1:5[0m");
    expect(shown.at(-1)).toBe(`    ${"y".repeat(400)}…`);
    // eslint-disable-next-line no-control-regex
    expect(lines.join("\n")).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });

  it("is left out when no check failed with a run to show (a missing tool, a failure without output)", () => {
    const text = renderReport(
      { outcomes: [failed({ reason: "invalid_input: no such path" })], elapsedMs: 1, cwd: "/w" },
      plain,
    );
    expect(text).not.toContain("Failed runs:");
  });
});

describe("check on a file ruff cannot parse", () => {
  const skip = missing("ruff", [TOOLS_VENV_BIN]);
  let dir: string;
  let byHand: string[];
  beforeAll(() => {
    if (skip) return;
    dir = tempDir("mcq-check-failed-run-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), "[tool.ruff]\n");
    fs.writeFileSync(path.join(dir, "bad.py"), "def f(:\n    pass\n");
    fs.writeFileSync(path.join(dir, "good.py"), "x = 1\n");
    const ruff = spawnSync(path.join(TOOLS_VENV_BIN, "ruff"), ["format", "--check", "."], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(ruff.status).toBe(2);
    // ruff's diagnostic: `invalid-syntax: ...` and ` --> bad.py:1:7`.
    byHand = ruff.stdout
      .split("\n")
      .filter((l) => l.startsWith("invalid-syntax:") || l.includes("--> bad.py"));
    expect(byHand).toHaveLength(2);
  });

  it.skipIf(skip)("prints ruff's own error under the failed check, as ruff prints it by hand", async () => {
    const run = await runCheck([".", "--only", "ruff-format"], { cwd: dir });
    expect(run.status).toBe(3);
    const report = run.stdout.split("\n");
    const at = report.indexOf("Failed runs:");
    expect(at).toBeGreaterThan(0);
    expect(report[at + 1]).toMatch(/^ {2}ruff-format: ruff .*format .*--check.* \(exit 2\)$/);
    for (const line of byHand) expect(report.slice(at + 2)).toContain(`    ${line}`);
  });

  it.skipIf(skip)("--github folds it under the check in the job summary", async () => {
    const runner = tempDir("mcq-check-failed-gh-");
    const summary = path.join(runner, "summary.md");
    fs.writeFileSync(summary, "");
    await runCheck([".", "--only", "ruff-format", "--github"], {
      cwd: dir,
      env: {
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_OUTPUT: path.join(runner, "output"),
        GITHUB_WORKSPACE: dir,
      },
    });
    const text = fs.readFileSync(summary, "utf8");
    expect(text).toMatch(/- \*\*ruff-format\*\* \(format, python\): ruff format failed \(exit 2\)/);
    expect(text).toMatch(
      / {2}<details><summary>ruff [^<]*\(exit 2\)<\/summary>\n\n {2}<pre>[^<]*invalid-syntax: Expected/,
    );
  });

  it.skipIf(skip)(
    "--json carries the command, the exit code and the whole output; --html folds it",
    async () => {
      const html = path.join(tempDir("mcq-check-failed-html-"), "report.html");
      const run = await runCheck([".", "--only", "ruff-format", "--json", "--html", html], { cwd: dir });
      const json = JSON.parse(run.stdout) as CheckJson;
      const check = json.checks.find((c) => c.status === "failed");
      expect(check?.command).toMatch(/^ruff .*format .*--check/);
      expect(check?.returncode).toBe(2);
      for (const line of byHand) expect(check?.output?.split("\n")).toContain(line);
      const page = fs.readFileSync(html, "utf8");
      expect(page).toMatch(
        /<details><summary>ruff [^<]*format [^<]*\(exit 2\)<\/summary><pre>[^<]*invalid-syntax: Expected/,
      );
    },
  );
});
