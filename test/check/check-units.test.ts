/**
 * check's pure parts: merging tools' SARIF logs (made by the project's own SARIF writer), outcomes and
 * exit codes, --only/--skip matching, `--changed`'s optional value, and the report's lines.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sarifLog, type SarifRunInput } from "../../src/findings/sarif.js";
import type { Finding } from "../../src/findings/model.js";
import { filterSarifResults, mergeSarif, type SarifLogLike } from "../../src/check/sarif-merge.js";
import { outcomeOf } from "../../src/check/outcome.js";
import { exitCode, uncheckedProjects } from "../../src/check/exit-code.js";
import { selectChecks } from "../../src/check/select.js";
import { parseCheckArgs, UsageError } from "../../src/check/options.js";
import { renderReport } from "../../src/check/report.js";
import { planChecks, type PlannedCheck } from "../../src/check/detect.js";
import { afterSameKey } from "../../src/check/run.js";
import { CHECK_FIXTURES } from "../helpers/check.js";
import { sarifErrors } from "../helpers/sarif.js";

const finding = (tool: string, file: string, rule_id: string, line = 1): Finding => ({
  tool,
  file,
  path: file.split("/").slice(-2).join("/"),
  line,
  column: 1,
  rule_id,
  severity: "error",
  message: `${rule_id} here`,
  docs_url: `https://docs.example/${rule_id}`,
});

const run = (tool: string, root: string, findings: Finding[]): SarifRunInput => ({
  tool,
  informationUri: "https://example.org/",
  findings: findings.map((f) => ({ ...f, path: f.file.slice(root.length + 1) })),
  root,
  executionSuccessful: true,
});

const log = (...runs: SarifRunInput[]) => sarifLog(runs) as unknown as SarifLogLike;

const planned = (
  id: string,
  kind: PlannedCheck["kind"],
  language: PlannedCheck["language"] = "python",
): PlannedCheck => ({
  id,
  kind,
  language,
  target: "/w/p",
  path: "/w/p",
  call: { tool: "lint", args: {} },
  install: `pip install ${id}`,
  files: /\.py$/,
});

describe("mergeSarif", () => {
  it("makes one run per tool, rules re-indexed, every location relative to the base", () => {
    const format = log(run("ruff", "/w/a", [finding("ruff", "/w/a/x.py", "format")]));
    const lint = log(
      run("ruff", "/w/b", [finding("ruff", "/w/b/y.py", "F401"), finding("ruff", "/w/b/y.py", "format", 3)]),
    );
    const types = log(run("ty", "/w/b", [finding("ty", "/w/b/y.py", "invalid-assignment")]));
    const merged = mergeSarif([format, lint, types], "/w");
    expect(sarifErrors(merged)).toEqual([]);
    expect(merged.runs.map((r) => r.tool.driver.name)).toEqual(["ruff", "ty"]);
    const ruff = merged.runs[0]!;
    expect(ruff.tool.driver.rules?.map((r) => r.id)).toEqual(["format", "F401"]);
    expect(ruff.invocations).toHaveLength(2);
    expect(
      ruff.results?.map((r) => [r.ruleIndex, r.locations?.[0]?.physicalLocation?.artifactLocation?.uri]),
    ).toEqual([
      [0, "a/x.py"],
      [1, "b/y.py"],
      [0, "b/y.py"],
    ]);
    expect(ruff.originalUriBaseIds).toEqual({ "%SRCROOT%": { uri: "file:///w/" } });
  });

  it("keeps files outside the base as absolute file: URIs", () => {
    const merged = mergeSarif(
      [log(run("ruff", "/elsewhere", [finding("ruff", "/elsewhere/z.py", "F401")]))],
      "/w",
    );
    const loc = merged.runs[0]!.results![0]!.locations![0]!.physicalLocation!.artifactLocation;
    expect(loc).toEqual({ uri: "file:///elsewhere/z.py" });
    expect(sarifErrors(merged)).toEqual([]);
  });

  it("filters results by their file", () => {
    const l = log(
      run("ruff", "/w", [finding("ruff", "/w/a.py", "F401"), finding("ruff", "/w/b.py", "F401")]),
    );
    const kept = filterSarifResults(l, (f) => f === "/w/b.py");
    expect(kept.runs[0]!.results).toHaveLength(1);
  });
});

describe("outcomes and exit codes", () => {
  const ok = (id: string, result: Record<string, unknown>) =>
    outcomeOf(planned(id, "lint"), { success: true, ...result }, 5, "/w");
  const withFinding = ok("ruff", {
    passed: false,
    sarif: log(run("ruff", "/w/p", [finding("ruff", "/w/p/a.py", "F401")])),
  });

  it("reads findings, with docs links, from the result's SARIF", () => {
    expect(withFinding.status).toBe("findings");
    expect(withFinding.findings).toEqual([
      {
        tool: "ruff",
        file: "p/a.py",
        line: 1,
        column: 1,
        rule_id: "F401",
        level: "error",
        message: "F401 here",
        docs_url: "https://docs.example/F401",
      },
    ]);
  });

  it("0 clean, 1 findings, 3 a failed tool, 2 a missing tool named with --only; other missing tools change nothing", () => {
    const clean = ok("ruff", { passed: true, sarif: log(run("ruff", "/w/p", [])) });
    const missing = outcomeOf(
      planned("ty", "types"),
      { success: false, error_type: "tool_not_found", error: "no ty" },
      1,
      "/w",
    );
    const failed = outcomeOf(
      planned("mypy", "types"),
      { success: false, error_type: "timeout", error: "killed" },
      1,
      "/w",
    );
    expect(missing).toMatchObject({ status: "skipped", reason: "not installed; install: pip install ty" });
    expect(exitCode([clean], [])).toBe(0);
    expect(exitCode([clean, missing], [])).toBe(0);
    expect(exitCode([withFinding, missing], [])).toBe(1);
    expect(exitCode([withFinding, failed], [])).toBe(3);
    expect(exitCode([clean], [], true)).toBe(3);
    expect(exitCode([withFinding, failed, missing], ["ty"])).toBe(2);
  });

  it("a check the project's config asks for that did not run leaves the project not checked (3), whatever else ran", () => {
    const clean = ok("govet", { passed: true, sarif: log(run("govet", "/w/p", [])) });
    const required = outcomeOf(
      { ...planned("golangci-lint", "lint", "go"), required: true, install: "go install golangci-lint" },
      { success: false, error_type: "tool_not_found", error: "no golangci-lint" },
      1,
      "/w",
    );
    expect(required).toMatchObject({ status: "skipped", required: true });
    expect(uncheckedProjects([clean, required])).toEqual([
      {
        target: "/w/p",
        reasons: ["golangci-lint skipped: not installed; install: go install golangci-lint"],
      },
    ]);
    expect(exitCode([clean, required], [])).toBe(3);
    expect(exitCode([withFinding, required], [])).toBe(3);
    // Not required (a tool the project does not ask for): as before.
    expect(exitCode([clean, { ...required, required: undefined }], [])).toBe(0);
  });

  it("renders a line per tool, findings by file, rule docs and the summary", () => {
    const text = renderReport({ outcomes: [withFinding], elapsedMs: 1234, cwd: "/w" });
    expect(text.split("\n")).toEqual([
      "Checks:",
      "  ruff  lint  1 finding (1 error)  0.0 s",
      "",
      "p/a.py",
      "  1:1  error    F401  F401 here  [ruff]",
      "",
      "Rule docs:",
      "  F401 (ruff)  https://docs.example/F401",
      "",
      "✗ 1 finding (1 error) in 1 file; 1 check ran, 0 skipped, 0 failed · 1.2 s",
      "",
    ]);
  });
});

describe("a report of any size", () => {
  it("renders 100,000 findings in one file (no call depth, argument count or copy grows with the findings)", () => {
    const many = Array.from({ length: 100_000 }, (_, i) =>
      finding("ruff", "/w/p/a.py", `R${i % 997}`, i + 1),
    );
    const outcome = outcomeOf(
      planned("ruff", "lint"),
      { success: true, passed: false, sarif: log(run("ruff", "/w/p", many)) },
      5,
      "/w",
    );
    expect(outcome.findings).toHaveLength(100_000);
    const text = renderReport({ outcomes: [outcome], elapsedMs: 1, cwd: "/w" });
    expect(text.split("\n").filter((l) => l.includes("[ruff]"))).toHaveLength(100_000);
  });
});

describe("--only / --skip and --changed", () => {
  const checks = [
    planned("ruff-format", "format"),
    planned("ruff", "lint"),
    planned("ty", "types"),
    planned("markdown-links", "links", "markdown"),
  ];

  it("matches ids, a tool's name for both its checks, kinds and languages", () => {
    const ids = (only: string[], skip: string[] = []) =>
      selectChecks(checks, only, skip).selected.map((c) => c.id);
    expect(ids(["ruff"])).toEqual(["ruff-format", "ruff"]);
    expect(ids(["types", "links"])).toEqual(["ty", "markdown-links"]);
    expect(ids([], ["python"])).toEqual(["markdown-links"]);
    expect(selectChecks(checks, ["eslint"], []).unmatched).toEqual(["eslint"]);
  });

  it("--changed takes HEAD, a revision, or leaves a following path to be a path", () => {
    expect(parseCheckArgs(["--changed"], CHECK_FIXTURES).changed).toBe("HEAD");
    expect(parseCheckArgs(["--changed", "main"], CHECK_FIXTURES).changed).toBe("main");
    const withPath = parseCheckArgs(["--changed", "python"], CHECK_FIXTURES);
    expect([withPath.changed, withPath.paths]).toEqual(["HEAD", [`${CHECK_FIXTURES}/python`]]);
    expect(parseCheckArgs(["--changed=python"], CHECK_FIXTURES).changed).toBe("python");
    expect(() => parseCheckArgs(["--only"], CHECK_FIXTURES)).toThrow(UsageError);
  });

  it("passes the server's limit flags through to the engine's Config", () => {
    const o = parseCheckArgs(["python", "--timeout", "30", "--max-concurrent=2"], CHECK_FIXTURES);
    expect(o.configArgs).toEqual(["--timeout", "30", "--max-concurrent", "2"]);
    expect(() => parseCheckArgs(["--port", "80"], CHECK_FIXTURES)).toThrow(UsageError);
  });
});

describe("checks that compile into one build cache", () => {
  it("a Go module's linter and go build share one (gofmt compiles nothing)", () => {
    const checks = planChecks(path.join(CHECK_FIXTURES, "go"), { externalLinks: false });
    const keyOf = (id: string) => checks.find((c) => c.id === id)?.buildCache;
    expect(keyOf("go")).toBe(`go:${path.join(CHECK_FIXTURES, "go")}`);
    expect(keyOf("govet") ?? keyOf("golangci-lint")).toBe(keyOf("go"));
    expect(keyOf("gofmt")).toBeUndefined();
  });

  it("run one after another in the order given; other keys and none at once; a failure does not stop the next", async () => {
    const inTurn = afterSameKey();
    const log: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      inTurn("go:a", task("lint", 30, true)),
      inTurn("go:a", task("build", 1)),
      inTurn("go:b", task("other", 1)),
      inTurn(undefined, task("free", 1)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled", "fulfilled"]);
    expect(log.indexOf("start build")).toBeGreaterThan(log.indexOf("end lint"));
    expect(log.indexOf("start other")).toBeLessThan(log.indexOf("end lint"));
    expect(log.indexOf("start free")).toBeLessThan(log.indexOf("end lint"));
  });
});
