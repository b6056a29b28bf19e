/** security_scan through the real server and real bandit on a fixture with known findings and a broken file. */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { banditArgs, hasLevelFlags, parseBanditJson } from "../../src/adapters/python/bandit.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing } from "../helpers/tools.js";

const PROJECT = path.join(FIXTURES, "python", "bandit-project");

describe("security_scan", () => {
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({
      args: ["--allowed-paths", PROJECT],
      cwd: PROJECT,
      env: { VIRTUAL_ENV: undefined },
    });
  });
  afterAll(async () => s?.close());

  it.skipIf(missing("bandit"))(
    "finds shell=True, a hard-coded password and pickle; lists the unparsable file",
    async () => {
      const r = await s.call("security_scan", { path: "app" });
      expect(r).toMatchObject({ success: true, passed: false, returncode: 1, finding_count: 5 });
      const findings = r.findings as Record<string, unknown>[];
      expect(findings.map((f) => [f.test_id, f.line_number, f.issue_severity, f.issue_confidence])).toEqual([
        ["B403", 1, "LOW", "HIGH"],
        ["B404", 2, "LOW", "HIGH"],
        ["B602", 6, "HIGH", "HIGH"],
        ["B106", 10, "LOW", "MEDIUM"],
        ["B301", 14, "MEDIUM", "HIGH"],
      ]);
      expect(findings[2]?.filename).toBe(path.join(PROJECT, "app", "runner.py"));
      expect(r.summary).toEqual({ high: 1, medium: 1, low: 3, errors: 1 });
      expect(r.issues).toContainEqual(
        expect.stringMatching(
          /^app\/runner\.py:6:\d+: B602 subprocess call with shell=True identified, security issue\. \(severity HIGH, confidence HIGH\)$/,
        ),
      );
      expect((r.common_findings as Record<string, unknown>[])[2]).toMatchObject({
        tool: "bandit",
        file: path.join(PROJECT, "app", "runner.py"),
        line: 6,
        rule_id: "B602",
        severity: "error",
      });
      expect(r.unscanned_files).toEqual([path.join(PROJECT, "app", "broken.py")]);
      expect(r.notes).toContain(
        `bandit could not scan ${path.join(PROJECT, "app", "broken.py")}: syntax error while parsing AST from file`,
      );
    },
  );

  it.skipIf(missing("bandit"))("severity and confidence filter what is reported", async () => {
    const high = await s.call("security_scan", { path: "app", severity: "medium" });
    expect((high.findings as { test_id: string }[]).map((f) => f.test_id)).toEqual(["B602", "B301"]);
    expect(high.summary).toEqual({ high: 1, medium: 1, low: 0, errors: 1 });
    const sure = await s.call("security_scan", { path: "app", confidence: "high" });
    expect((sure.findings as { test_id: string }[]).map((f) => f.test_id)).toEqual([
      "B403",
      "B404",
      "B602",
      "B301",
    ]);
  });

  it.skipIf(missing("bandit"))("a clean file passes", async () => {
    const r = await s.call("security_scan", { path: "app/safe.py" });
    expect(r).toMatchObject({ success: true, passed: true, returncode: 0, finding_count: 0, findings: [] });
    expect(r.summary).toEqual({ high: 0, medium: 0, low: 0, errors: 0 });
  });

  it("rejects unknown levels and paths outside the allowlist", async () => {
    await expect(s.call("security_scan", { path: "app", severity: "critical" })).rejects.toThrow(/severity/);
    expect(await s.call("security_scan", { path: "/etc/passwd" })).toMatchObject({
      error_type: "path_validation",
    });
  });
});

describe("bandit argv and report", () => {
  it("uses --severity-level/--confidence-level from bandit 1.7.5, repeated -l/-i before", () => {
    expect(hasLevelFlags("1.6.2")).toBe(false);
    expect(hasLevelFlags("1.7.5")).toBe(true);
    expect(hasLevelFlags("1.8.0")).toBe(true);
    expect(banditArgs("/p", "medium", "high", true)).toEqual([
      "-r",
      "/p",
      "--severity-level",
      "medium",
      "--confidence-level",
      "high",
      "-f",
      "json",
      "-q",
    ]);
    expect(banditArgs("/p", "medium", "high", false)).toEqual([
      "-r",
      "/p",
      "-ll",
      "-iii",
      "-f",
      "json",
      "-q",
    ]);
  });

  it("parses a report even after log lines, and refuses non-reports", () => {
    const report = parseBanditJson(
      '[main]\tINFO\tprofile include tests: None\n{"errors": [], "results": []}',
    );
    expect(report).toEqual({ errors: [], results: [] });
    expect(parseBanditJson("usage: bandit [-h]")).toBeUndefined();
  });
});
