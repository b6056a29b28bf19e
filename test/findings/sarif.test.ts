/**
 * Findings of each adapter from real runs, seen through `output: "sarif"`: every log validates against
 * the SARIF 2.1.0 schema, results carry the exact rule, region, level and fix edits the tool gave, and a
 * fix applied from the SARIF gives what the tool's own fix gives.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { applySarifFix, sarifErrors } from "../helpers/sarif.js";

const RUFF = path.join(TOOLS_VENV_BIN, "ruff");
const ESLINT = path.join(REPO_ROOT, "node_modules", ".bin", "eslint");

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations?: {
    physicalLocation: {
      artifactLocation: { uri: string; uriBaseId?: string };
      region?: Record<string, number>;
    };
  }[];
  partialFingerprints?: Record<string, string>;
  fixes?: {
    description: { text: string };
    artifactChanges: {
      artifactLocation: { uri: string };
      replacements: {
        deletedRegion: { startLine: number; startColumn: number; endLine: number; endColumn: number };
        insertedContent: { text: string };
      }[];
    }[];
  }[];
  properties?: Record<string, unknown>;
}

interface SarifLogShape {
  version: string;
  runs: {
    tool: { driver: { name: string; semanticVersion?: string; rules: { id: string }[] } };
    invocations: { executionSuccessful: boolean }[];
    originalUriBaseIds: Record<string, { uri: string }>;
    results: SarifResult[];
  }[];
}

function sarifOf(r: Record<string, unknown>): SarifLogShape {
  expect(r.success).toBe(true);
  expect(sarifErrors(r.sarif)).toEqual([]);
  return r.sarif as SarifLogShape;
}

/** rule, region and level of each result, the way a test states them. */
function brief(results: SarifResult[]) {
  return results.map((r) => ({
    rule: r.ruleId,
    level: r.level,
    uri: r.locations?.[0]?.physicalLocation.artifactLocation.uri,
    region: r.locations?.[0]?.physicalLocation.region,
  }));
}

function serverIn(dir: string, PATH: string): Promise<Connected> {
  return connectStdio({
    args: ["--allowed-paths", dir, "--rate-limit", "false"],
    cwd: dir,
    env: { PATH, VIRTUAL_ENV: undefined },
  });
}

describe("ruff CLI findings", () => {
  const skip = missing("ruff", [TOOLS_VENV_BIN]);
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    if (skip) return;
    dir = copyFixture(path.join(FIXTURES, "python", "lint-project"));
    s = await serverIn(dir, `${TOOLS_VENV_BIN}:/usr/bin:/bin`);
  });
  afterAll(() => s?.close());

  it.skipIf(skip)("exact rules, regions, fix edits and safety; a valid SARIF log", async () => {
    const r = await s.call("lint", { path: "pkg/app.py", output: "sarif" });
    const log = sarifOf(r);
    const run = log.runs[0]!;
    expect(run.tool.driver.name).toBe("ruff");
    expect(run.tool.driver.semanticVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(run.originalUriBaseIds["%SRCROOT%"]!.uri).toBe(`file://${dir}/`);
    expect(run.invocations[0]!.executionSuccessful).toBe(true);
    expect(brief(run.results)).toEqual([
      {
        rule: "F401",
        level: "error",
        uri: "pkg/app.py",
        region: { startLine: 1, startColumn: 8, endLine: 1, endColumn: 10 },
      },
      {
        rule: "E711",
        level: "error",
        uri: "pkg/app.py",
        region: { startLine: 8, startColumn: 13, endLine: 8, endColumn: 17 },
      },
    ]);
    const [f401, e711] = run.results;
    expect(f401!.fixes![0]!.artifactChanges[0]!.replacements).toEqual([
      {
        deletedRegion: { startLine: 1, startColumn: 1, endLine: 2, endColumn: 1 },
        insertedContent: { text: "" },
      },
    ]);
    expect(f401!.properties).toMatchObject({ fixSafety: "safe" });
    expect(e711!.properties).toMatchObject({ fixSafety: "unsafe" });
    expect(e711!.fixes![0]!.artifactChanges[0]!.replacements[0]!.insertedContent.text).toBe("x is None");
    expect(f401!.partialFingerprints!["mcq/v1"]).toMatch(/^mcq\/v1:[0-9a-f]{32}:0$/);
  });

  it.skipIf(skip)("a fix applied from the SARIF gives what `ruff check --fix` gives", async () => {
    const file = path.join(dir, "pkg", "app.py");
    const before = fs.readFileSync(file, "utf8");
    const r = await s.call("lint", { path: "pkg/app.py", output: "sarif" });
    const f401 = sarifOf(r).runs[0]!.results.find((x) => x.ruleId === "F401")!;
    const fromSarif = applySarifFix(before, f401.fixes![0]!.artifactChanges[0]!.replacements);
    const copy = copyFixture(path.join(FIXTURES, "python", "lint-project"));
    execFileSync(RUFF, ["check", "--no-cache", "--fix", "--select", "F401", "--", "pkg/app.py"], {
      cwd: copy,
      stdio: "ignore",
    });
    expect(fromSarif).toBe(fs.readFileSync(path.join(copy, "pkg", "app.py"), "utf8"));
    expect(fromSarif).not.toBe(before);
  });

  it.skipIf(missing("flake8"))("flake8 findings in SARIF", async () => {
    const r = await s.call("lint", { path: "pkg/app.py", linter: "flake8", output: "sarif" });
    const run = sarifOf(r).runs[0]!;
    expect(run.tool.driver.name).toBe("flake8");
    expect(brief(run.results)).toEqual([
      { rule: "F401", level: "error", uri: "pkg/app.py", region: { startLine: 1, startColumn: 1 } },
      { rule: "E231", level: "warning", uri: "pkg/app.py", region: { startLine: 6, startColumn: 11 } },
      { rule: "E711", level: "warning", uri: "pkg/app.py", region: { startLine: 8, startColumn: 10 } },
    ]);
  });
});

describe("embedded ruff findings", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "python", "lint-project"));
    s = await serverIn(dir, "/usr/bin:/bin");
  });
  afterAll(() => s?.close());

  it("the embedded build's diagnostics with their fix edits, marked unsafe", async () => {
    const r = await s.call("lint", { path: "pkg/app.py", output: "sarif" });
    const run = sarifOf(r).runs[0]!;
    expect(brief(run.results)).toEqual([
      {
        rule: "F401",
        level: "error",
        uri: "pkg/app.py",
        region: { startLine: 1, startColumn: 8, endLine: 1, endColumn: 10 },
      },
      {
        rule: "E711",
        level: "error",
        uri: "pkg/app.py",
        region: { startLine: 8, startColumn: 13, endLine: 8, endColumn: 17 },
      },
    ]);
    expect(run.results[0]!.fixes![0]!.artifactChanges[0]!.replacements).toEqual([
      {
        deletedRegion: { startLine: 1, startColumn: 1, endLine: 2, endColumn: 1 },
        insertedContent: { text: "" },
      },
    ]);
    expect(run.results[0]!.properties).toMatchObject({ fixSafety: "unsafe" });
  });
});

describe("ESLint findings", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "findings-project"));
    s = await serverIn(dir, "/usr/bin:/bin");
  });
  afterAll(() => s?.close());

  it("fixes as safe corrections, suggestions as unsafe ones, exact ends", async () => {
    const r = await s.call("lint", { path: ".", linter: "eslint", output: "sarif" });
    expect(r.issues).toEqual([
      "src/shapes.js:1:5: prefer-const 'area' is never reassigned. Use 'const' instead.",
      "src/shapes.js:2:19: no-useless-escape Unnecessary escape character: \\..",
      "src/shapes.js:4:3: no-debugger Unexpected 'debugger' statement.",
    ]);
    const run = sarifOf(r).runs[0]!;
    expect(run.tool.driver.name).toBe("eslint");
    expect(brief(run.results)).toEqual([
      {
        rule: "prefer-const",
        level: "error",
        uri: "src/shapes.js",
        region: { startLine: 1, startColumn: 5, endLine: 1, endColumn: 9 },
      },
      {
        rule: "no-useless-escape",
        level: "warning",
        uri: "src/shapes.js",
        region: { startLine: 2, startColumn: 19, endLine: 2, endColumn: 20 },
      },
      {
        rule: "no-debugger",
        level: "error",
        uri: "src/shapes.js",
        region: { startLine: 4, startColumn: 3, endLine: 4, endColumn: 12 },
      },
    ]);
    const [preferConst, escape, debuggerStmt] = run.results;
    expect(preferConst!.fixes![0]!.artifactChanges[0]!.replacements).toEqual([
      {
        deletedRegion: { startLine: 1, startColumn: 1, endLine: 1, endColumn: 18 },
        insertedContent: { text: "const area = 3 * 4;" },
      },
    ]);
    expect(preferConst!.properties).toMatchObject({ fixSafety: "safe" });
    expect(escape!.fixes![0]!.description.text).toBe(
      "Remove the `\\`. This maintains the current functionality.",
    );
    expect(escape!.fixes![0]!.artifactChanges[0]!.replacements).toEqual([
      {
        deletedRegion: { startLine: 2, startColumn: 19, endLine: 2, endColumn: 20 },
        insertedContent: { text: "" },
      },
    ]);
    expect(escape!.properties).toMatchObject({ fixSafety: "unsafe" });
    expect(debuggerStmt!.fixes).toBeUndefined();
  });

  it("a fix applied from the SARIF gives what `eslint --fix` gives", async () => {
    const file = path.join(dir, "src", "shapes.js");
    const before = fs.readFileSync(file, "utf8");
    const r = await s.call("lint", { path: ".", linter: "eslint", output: "sarif" });
    const fix = sarifOf(r).runs[0]!.results[0]!.fixes![0]!;
    const fromSarif = applySarifFix(before, fix.artifactChanges[0]!.replacements);
    const own = spawnSync(ESLINT, ["--fix-dry-run", "-f", "json", "src/shapes.js"], {
      cwd: dir,
      encoding: "utf8",
    });
    const [report] = JSON.parse(own.stdout) as { output: string }[];
    expect(fromSarif).toBe(report!.output);
  });
});

describe("type checkers and bandit in SARIF", () => {
  let s: Connected;
  beforeAll(async () => {
    const dir = copyFixture(path.join(FIXTURES, "python"));
    s = await serverIn(dir, `${TOOLS_VENV_BIN}:/usr/bin:/bin`);
  });
  afterAll(() => s?.close());

  it.skipIf(missing("mypy"))("type_check (mypy) gives a valid log with its findings", async () => {
    const r = await s.call("type_check", { path: "typecheck-project", checker: "mypy", output: "sarif" });
    const run = sarifOf(r).runs[0]!;
    expect(run.tool.driver.name).toBe("mypy");
    expect(run.results.length).toBe(r.issue_count);
    expect(run.results.map((x) => x.ruleId)).toEqual(
      (r.findings as { rule_id: string }[]).map((f) => f.rule_id),
    );
  });

  it("type_check (pyright) gives a valid log", async () => {
    const r = await s.call("type_check", { path: "typecheck-project", checker: "pyright", output: "sarif" });
    const run = sarifOf(r).runs[0]!;
    expect(run.tool.driver.name).toBe("pyright");
    expect(run.results.length).toBe(r.issue_count);
  });

  it.skipIf(missing("bandit"))("security_scan gives a valid log with every finding", async () => {
    const r = await s.call("security_scan", { path: "bandit-project", output: "sarif" });
    const run = sarifOf(r).runs[0]!;
    expect(run.tool.driver.name).toBe("bandit");
    expect(run.tool.driver.semanticVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(run.results.map((x) => x.ruleId)).toEqual(
      (r.common_findings as { rule_id: string }[]).map((f) => f.rule_id),
    );
  });
});
