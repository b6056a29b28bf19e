/**
 * sarif_risk_summary, sarif_remediation_advice and sarif_policy_feedback on our own SARIF (real ruff and
 * flake8 runs of one file, merged: the same issue reported by both tools is one finding group) and on
 * real-shaped CodeQL, Semgrep and GitHub code scanning samples; malformed and oversized SARIF, and trace ids
 * that try to escape the traces folder.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const SOURCE = `import os
import subprocess


def run(branch):
    subprocess.run("git log " + branch, shell=True)
    return branch == None
`;
const sample = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, "sarif", "foreign", name), "utf8")) as Record<
    string,
    unknown
  >;

type Obj = Record<string, unknown>;

describe("SARIF risk summary, remediation advice and policy feedback", () => {
  const skip = missing("ruff", [TOOLS_VENV_BIN]) || missing("flake8");
  let s: Connected;
  let dir: string;
  let ours: { runs: Obj[] };
  beforeAll(async () => {
    dir = tempDir("mcq-sarif-risk-");
    fs.writeFileSync(
      path.join(dir, "pyproject.toml"),
      '[tool.ruff.lint]\nselect = ["F401", "E711", "S602"]\n',
    );
    fs.writeFileSync(path.join(dir, "app.py"), SOURCE);
    s = await connectStdio({
      args: [
        "--allowed-paths",
        dir,
        "--rate-limit",
        "false",
        "--toolsets",
        "core,policy",
        "--sarif-max-bytes",
        "65536",
      ],
      cwd: dir,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
    if (skip) return;
    const ruff = await s.call("lint", { path: "app.py", linter: "ruff", output: "sarif" });
    const flake8 = await s.call("lint", { path: "app.py", linter: "flake8", output: "sarif" });
    const runOf = (r: Obj) => (r.sarif as { runs: Obj[] }).runs[0]!;
    ours = { ...(ruff.sarif as Obj), runs: [runOf(ruff), runOf(flake8)] } as { runs: Obj[] };
  });
  afterAll(() => s?.close());

  it.skipIf(skip)(
    "our SARIF: counts as ruff and flake8 print them, cross-tool groups, score, next call",
    async () => {
      // ruff itself, same config (exit 1: findings).
      const run = spawnSync(
        path.join(TOOLS_VENV_BIN, "ruff"),
        ["check", "--output-format", "json", "--no-cache", "app.py"],
        {
          cwd: dir,
          encoding: "utf8",
        },
      );
      const direct = (JSON.parse(run.stdout) as unknown[]).length;
      const r = await s.call("sarif_risk_summary", { sarif: ours });
      expect(r.success).toBe(true);
      const byTool = Object.fromEntries(
        (r.tools as { tool: string; count: number }[]).map((t) => [t.tool, t.count]),
      );
      expect(byTool.ruff).toBe(direct);
      expect(direct).toBe(3);
      expect(byTool.flake8).toBe(2); // F401 and E711
      // flake8's E711 is a warning (only E9 and F codes are errors), ruff's an error.
      expect(r.counts).toEqual({ error: 4, warning: 1, note: 0, none: 0 });
      expect(r).toMatchObject({
        blocking_count: 4,
        security_count: 1,
        group_count: 3,
        shared_group_count: 2,
      });
      const groups = r.finding_groups as {
        tools: string[];
        rule_ids: string[];
        line: number;
        level: string;
      }[];
      expect(groups.map((g) => [g.rule_ids, g.tools.sort(), g.line, g.level])).toEqual([
        [["F401"], ["flake8", "ruff"], 1, "error"],
        [["E711"], ["flake8", "ruff"], 7, "error"],
      ]);
      // Groups: F401 error 10 + E711 error 10 + S602 error and security 10×2 = 40.
      expect(r.risk_score).toBe(40);
      expect(r.risk_level).toBe("high");
      expect(r.top_item).toMatchObject({ rule_id: "S602", security: true, line: 6 });
      expect(r.next_call).toEqual({
        tool: "sarif_remediation_advice",
        arguments: { result_index: (r.top_item as Obj).result_index },
        note: "pass the same sarif",
      });
    },
  );

  it.skipIf(skip)(
    "remediation advice on our SARIF: the packet, the shipped bundle's advice, and a rerun that works",
    async () => {
      const top = (await s.call("sarif_risk_summary", { sarif: ours })).top_item as { result_index: number };
      const a = await s.call("sarif_remediation_advice", { sarif: ours, result_index: top.result_index });
      expect(a.success).toBe(true);
      expect(a.result).toMatchObject({
        tool: "ruff",
        rule_id: "S602",
        level: "error",
        path: "app.py",
        line: 6,
        fingerprint_source: "partialFingerprints:mcq/v1",
        security: true,
      });
      expect((a.result as Obj).fingerprint).toMatch(/^mcq\/v1:[0-9a-f]{32}:0$/);
      // ruff S602 (subprocess with shell=True) is mapped by the shipped bundle's evidence map.
      expect(a.advice).toMatchObject({
        provider: "local",
        bundle_hash: expect.stringMatching(/^sha256:[0-9a-f]+$/),
        mapped: true,
        policies: [expect.objectContaining({ policy_id: "security.shell_injection", severity: "block" })],
        skills: [expect.objectContaining({ skill_id: "shell-injection" })],
      });
      expect((a.guardrails as string[]).join(" ")).toMatch(/broad suppressions/);
      // Seed 002's MCP lint_check request, narrowed to the file.
      expect(a.rerun).toEqual({
        tool: "lint_check",
        arguments: { path: dir, tool: "ruff", files: ["app.py"] },
      });
      const flake8 = await s.call("sarif_remediation_advice", { sarif: ours, result_index: 3 });
      expect(flake8.rerun).toMatchObject({ tool: "lint_check", arguments: { tool: "flake8" } });

      // The rerun after a fix: the finding with that fingerprint is gone.
      fs.writeFileSync(path.join(dir, "app.py"), SOURCE.replace(", shell=True", ""));
      const rerun = a.rerun as { tool: string; arguments: Obj };
      const again = await s.call(rerun.tool, rerun.arguments);
      fs.writeFileSync(path.join(dir, "app.py"), SOURCE);
      const left = (again.findings as { rule_id: string }[]).map((x) => x.rule_id);
      expect(left.sort()).toEqual(["E711", "F401"]);
    },
  );

  it.skipIf(skip)(
    "another finding of the same rule on the same line is fixed + introduced, not persisting",
    async () => {
      const lint = async () =>
        (await s.call("lint", { path: "app.py", linter: "ruff", output: "sarif" })).sarif;
      const before = await lint();
      fs.writeFileSync(path.join(dir, "app.py"), SOURCE.replace("import os", "import sys"));
      const after = await lint();
      fs.writeFileSync(path.join(dir, "app.py"), SOURCE);
      const t = await s.call("sarif_trend_analysis", { baseline: before, current: after });
      expect(t.counts).toMatchObject({ introduced: 1, fixed: 1, persisting: 2 });
      expect((t.introduced as { message: string }[])[0]!.message).toBe("`sys` imported but unused");
      expect((t.fixed as { message: string }[])[0]!.message).toBe("`os` imported but unused");
    },
  );

  it("CodeQL: rules in extensions, levels inherited, security severity, relative paths under `path`", async () => {
    const r = await s.call("sarif_risk_summary", { sarif: sample("codeql-python.sarif") });
    expect(r).toMatchObject({
      result_count: 2,
      counts: { error: 1, warning: 0, note: 1, none: 0 },
      blocking_count: 1,
      security_count: 1,
      tools: [{ tool: "CodeQL", count: 2, version: "2.19.3" }],
      top_item: { rule_id: "py/sql-injection", level: "error", path: "app/db.py", line: 14 },
    });
    const withExtra = sample("codeql-python.sarif") as { runs: { results: Obj[] }[] };
    withExtra.runs[0]!.results[0]!["x-triage"] = { owner: "team-db" };
    const cel = { policy_id: "python.sql_injection", expression: 'diagnostic.rule == "py/sql-injection"' };
    withExtra.runs[0]!.results[0]!.properties = { "coding-ethos": { cel } };
    const a = await s.call("sarif_remediation_advice", { sarif: withExtra, result_index: 0, path: "." });
    expect(a.result).toMatchObject({
      rule_id: "py/sql-injection",
      level: "error",
      security_severity: 8.8,
      fingerprint: "primaryLocationLineHash=5b5f7b6a9bd0a9f1:1",
      fingerprint_source: "partialFingerprints:primaryLocationLineHash",
      extra: { "x-triage": { owner: "team-db" } },
      cel,
      rule_properties: { "problem.severity": "error" },
    });
    expect(a.rerun).toEqual({
      tool: "lint_check",
      arguments: { path: dir, files: ["app/db.py"] },
      note: "CodeQL is not a tool this server runs: lint_check re-checks the file with the project's linters",
    });
    const noRoot = await s.call("sarif_remediation_advice", {
      sarif: sample("codeql-python.sarif"),
      result_index: 1,
    });
    expect((noRoot.rerun as Obj).note).toMatch(/relative to the project root/);
    expect(noRoot.result).toMatchObject({ rule_id: "py/unused-import", level: "note", security: false });
  });

  it("Semgrep: rule default levels, match-based fingerprints, snippets, properties kept; policy feedback", async () => {
    const a = await s.call("sarif_remediation_advice", { sarif: sample("semgrep.sarif"), result_index: 1 });
    expect(a.result).toMatchObject({
      tool: "Semgrep OSS",
      level: "note",
      fingerprint_source: "fingerprints:matchBasedId/v1",
      snippet: "    if value == value:",
      properties: { exposure: "internal" },
    });
    const f = await s.call("sarif_policy_feedback", { sarif: sample("semgrep.sarif") });
    expect(f).toMatchObject({
      success: true,
      bundle_hash: expect.stringMatching(/^sha256:[0-9a-f]+$/),
      unmapped_count: 2,
      weak_security: [
        {
          tool: "Semgrep OSS",
          rule_id: "python.lang.security.audit.subprocess-shell-true.subprocess-shell-true",
          count: 1,
          levels: ["warning"],
        },
      ],
      noisy_rule_count: 0,
      noise_threshold: 20,
    });
  });

  it("computed fingerprints (no fingerprints in the log) survive lines inserted above", async () => {
    const strip = (shift: number) => {
      const log = sample("semgrep.sarif") as { runs: { results: Obj[] }[] };
      for (const r of log.runs[0]!.results) {
        delete r.fingerprints;
        const region = (r.locations as { physicalLocation: { region: Record<string, number> } }[])[0]!
          .physicalLocation.region;
        region.startLine! += shift;
        region.endLine! += shift;
      }
      return log;
    };
    const t = await s.call("sarif_trend_analysis", { baseline: strip(0), current: strip(3) });
    expect(t.counts).toMatchObject({ introduced: 0, fixed: 0, persisting: 2 });
    const persisting = t.persisting as {
      matched_by: string;
      line: number;
      previous_line: number;
      fingerprint: string;
    }[];
    expect(persisting.map((p) => [p.matched_by, p.previous_line, p.line])).toEqual([
      ["fingerprint", 6, 9],
      ["fingerprint", 10, 13],
    ]);
    expect(persisting[0]!.fingerprint).toMatch(/^c1=[0-9a-f]{24}:0$/);
  });

  it("GitHub code scanning export: no version, messages from messageStrings, correlationGuid groups", async () => {
    const r = await s.call("sarif_risk_summary", { sarif: JSON.stringify(sample("github-export.sarif")) });
    expect(r.notes).toEqual(["the log has no version: read as SARIF 2.1.0"]);
    expect(r).toMatchObject({ counts: { error: 1, note: 1 }, security_count: 1 });
    const a = await s.call("sarif_remediation_advice", { sarif: sample("github-export.sarif") });
    expect((a.result as Obj).message).toBe(
      "Cross-site scripting vulnerability due to [user-provided value](1).",
    );
    const b = await s.call("sarif_remediation_advice", {
      sarif: sample("github-export.sarif"),
      result_index: 1,
    });
    expect(b.result).toMatchObject({
      group_key: "guid:6a3e1d2c-0b9f-4e8d-a7c6-5b4a3f2e1d0c",
      group_source: "sarif",
    });
  });

  it.skipIf(skip)("noisy rules: a rule repeated 20 times (ruff on a generated file)", async () => {
    fs.writeFileSync(
      path.join(dir, "noisy.py"),
      Array.from({ length: 21 }, (_, i) => `v${i} = v == None\n`).join(""),
    );
    const lint = await s.call("lint", { path: "noisy.py", linter: "ruff", output: "sarif" });
    const f = await s.call("sarif_policy_feedback", { sarif: lint.sarif });
    expect(f.noisy_rules).toEqual([{ tool: "ruff", rule_id: "E711", count: 21, files: 1, share: 1 }]);
  });

  it("trend lists fit the result budget, repair queue first, with full counts", async () => {
    const log = (n: number) => ({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "ruff" } },
          results: Array.from({ length: n }, (_, i) => ({
            ruleId: "F401",
            level: "error",
            message: { text: `\`m${i}\` imported but unused` },
            locations: [
              { physicalLocation: { artifactLocation: { uri: "many.py" }, region: { startLine: i + 1 } } },
            ],
          })),
        },
      ],
    });
    const r = await s.call("sarif_trend_analysis", {
      baseline: log(50),
      current: log(250),
      max_result_tokens: 1500,
    });
    expect(r, JSON.stringify(r).slice(0, 400)).toMatchObject({ success: true, truncated: true });
    expect((r.counts as Obj).introduced).toBe(200);
    expect((r.introduced as unknown[]).length).toBeGreaterThan(0);
    expect((r.introduced as unknown[]).length).toBeLessThan(200);
    // The repair queue keeps its entries before any persisting one is listed.
    expect(r.persisting).toEqual([]);
    expect(JSON.stringify(r).length / 4).toBeLessThanOrEqual(1500);
    const whole = await s.call("sarif_trend_analysis", { baseline: log(50), current: log(250) });
    expect(JSON.stringify(whole).length / 4).toBeLessThanOrEqual(8000);
  });

  it("malformed SARIF is invalid_input naming the JSON path", async () => {
    const codeql = () => sample("codeql-python.sarif") as { runs: Obj[] } & Obj;
    const badLevel = codeql();
    (badLevel.runs[0]!.results as Obj[])[1]!.level = "fatal";
    const badLine = codeql();
    (
      (badLine.runs[0]!.results as Obj[])[0]!.locations as { physicalLocation: { region: Obj } }[]
    )[0]!.physicalLocation.region.startLine = "14";
    const noName = codeql();
    delete ((noName.runs[0]!.tool as Obj).driver as Obj).name;
    const cases: [unknown, string][] = [
      ["{not json", "$"],
      [[], "$"],
      [{ version: "2.1.0" }, "$.runs"],
      [{ version: "2.0.0", runs: [] }, "$.version"],
      [{ version: "2.1.0", runs: {} }, "$.runs"],
      [badLevel, "$.runs[0].results[1].level"],
      [badLine, "$.runs[0].results[0].locations[0].physicalLocation.region.startLine"],
      [noName, "$.runs[0].tool.driver.name"],
    ];
    for (const [sarif, jsonPath] of cases) {
      const r = await s.call("sarif_risk_summary", { sarif });
      expect(r, jsonPath).toMatchObject({ success: false, error_type: "invalid_input", json_path: jsonPath });
      expect(r.error).toContain(jsonPath);
    }
    const t = await s.call("sarif_trend_analysis", { baseline: sample("semgrep.sarif"), current: badLevel });
    expect(t).toMatchObject({ error_type: "invalid_input", argument: "current" });
    const neither = await s.call("sarif_remediation_advice", {});
    expect(neither).toMatchObject({ error_type: "invalid_input", error: "give either sarif or trace_id" });
  });

  it("oversized SARIF (over --sarif-max-bytes) is refused, inline or as a trace", async () => {
    const big = { ...sample("semgrep.sarif"), properties: { padding: "x".repeat(70_000) } };
    const r = await s.call("sarif_risk_summary", { sarif: big });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toMatch(/over --sarif-max-bytes 65536/);
    fs.mkdirSync(path.join(dir, ".mcp-cache", "lint-runs"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".mcp-cache", "lint-runs", "big.json"), JSON.stringify(big));
    const t = await s.call("sarif_risk_summary", { trace_id: "big" });
    expect(t).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(t.error).toMatch(/over --sarif-max-bytes 65536/);
  });

  it("trace ids that try to escape are not trace ids; a planted link is not followed", async () => {
    const outside = tempDir("mcq-outside-");
    fs.writeFileSync(path.join(outside, "x.json"), JSON.stringify(sample("semgrep.sarif")));
    const tries = [
      "../x.json",
      "../../x",
      `${outside}/x.json`,
      "/etc/passwd",
      "a/b",
      "..",
      ".",
      "x\\y",
      ".json",
      "a\u0000b",
      "",
    ];
    for (const trace_id of tries) {
      const r = await s.call("sarif_risk_summary", { trace_id });
      expect(r, trace_id).toMatchObject({ success: false, error_type: "invalid_input" });
      expect(r.error).toMatch(/^not a trace id/);
    }
    const h = await s.call("sarif_trend_analysis", {
      baseline: sample("semgrep.sarif"),
      current: sample("semgrep.sarif"),
      history_trace_ids: ["../x"],
    });
    expect(h.error).toMatch(/^not a trace id/);
    fs.mkdirSync(path.join(dir, ".mcp-cache", "lint-runs"), { recursive: true });
    fs.symlinkSync(path.join(outside, "x.json"), path.join(dir, ".mcp-cache", "lint-runs", "planted.json"));
    const p = await s.call("sarif_risk_summary", { trace_id: "planted" });
    expect(p).toMatchObject({ success: false, error_type: "path_validation" });
    expect(p.result_count).toBeUndefined();
    const missingTrace = await s.call("sarif_risk_summary", { trace_id: "nope" });
    expect(missingTrace).toMatchObject({ success: false, error_type: "invalid_input" });
  });
});
