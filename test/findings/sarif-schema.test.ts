/**
 * The SARIF validator can fail, and what the project's SARIF writer makes passes it: logs from findings (fixes,
 * notes, a crash), one run per tool (a tool run twice in a call), GitHub's limits said in the runs that pass
 * them (never a cut), check's merge, --sarif-max-results, a log fitted to a result's size. The schema is the
 * OASIS one (draft-04) exactly as published; the JSON writer gives what JSON.stringify gives.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { Finding } from "../../src/findings/model.js";
import { sarifLog, type SarifRunInput } from "../../src/findings/sarif.js";
import {
  combineRuns,
  GITHUB_LIMITS,
  limitResultsPerRun,
  type SarifLogLike,
  type SarifRunLike,
} from "../../src/findings/sarif-log.js";
import { fitSarif } from "../../src/findings/sarif-fit.js";
import { jsonChunks } from "../../src/findings/json-chunks.js";
import { mergeSarif } from "../../src/check/sarif-merge.js";
import { MUST_REJECT, SARIF_SCHEMA_FILE, sarifErrors } from "../helpers/sarif.js";

const finding = (i: number, over: Partial<Finding> = {}): Finding => ({
  tool: "ruff",
  file: `/w/p/m${i % 7}.py`,
  path: `m${i % 7}.py`,
  line: 1 + (i % 50),
  column: 1,
  end_line: 1 + (i % 50),
  end_column: 5,
  rule_id: i % 3 ? "F401" : "E711",
  severity: i % 3 ? "error" : "warning",
  level: "error",
  message: `finding ${i}`,
  docs_url: "https://docs.astral.sh/ruff/rules/unused-import",
  fingerprint: `mcq/v1:${i.toString(16).padStart(32, "0")}:0`,
  ...over,
});

const input = (tool: string, findings: Finding[], extra: Partial<SarifRunInput> = {}): SarifRunInput => ({
  tool,
  version: "0.17.6",
  informationUri: "https://docs.astral.sh/ruff/",
  findings,
  root: "/w/p",
  executionSuccessful: true,
  commandLine: `${tool} check .`,
  ...extra,
});

const results = (log: SarifLogLike) => log.runs.reduce((n, r) => n + (r.results?.length ?? 0), 0);
const notes = (run: SarifRunLike) =>
  (run.invocations ?? []).flatMap((i) => (i.toolExecutionNotifications ?? []).map((n) => n.message.text));

describe("the validator", () => {
  it("is the OASIS draft-04 schema as published, not a copy wrapped in definitions", () => {
    const schema = JSON.parse(fs.readFileSync(SARIF_SCHEMA_FILE, "utf8")) as Record<string, unknown>;
    expect(schema.$schema).toBe("http://json-schema.org/draft-04/schema#");
    expect(schema.required).toEqual(["version", "runs"]);
    expect(schema.id).toBe(
      "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
    );
  });

  it.each(MUST_REJECT)("rejects %s", (_what, value) => {
    expect(sarifErrors(value)).not.toEqual([]);
  });

  it("rejects the mistakes a writer makes: a level SARIF does not have, a run without its tool, line 0", () => {
    const ok = sarifLog([input("ruff", [finding(1)])]);
    expect(sarifErrors(ok)).toEqual([]);
    const bad = JSON.parse(JSON.stringify(ok)) as { runs: Record<string, unknown>[] };
    (bad.runs[0]!.results as Record<string, unknown>[])[0]!.level = "fatal";
    expect(sarifErrors(bad).join("\n")).toMatch(/level/);
    const noTool = JSON.parse(JSON.stringify(ok)) as { runs: Record<string, unknown>[] };
    delete noTool.runs[0]!.tool;
    expect(sarifErrors(noTool).join("\n")).toMatch(/tool/);
    const lineZero = JSON.parse(JSON.stringify(ok)) as {
      runs: { results: { locations: { physicalLocation: { region: { startLine: number } } }[] }[] }[];
    };
    lineZero.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine = 0;
    expect(sarifErrors(lineZero).join("\n")).toMatch(/startLine/);
  });
});

describe("what the writer makes validates", () => {
  it("a log with fixes, notes and a crash notification", () => {
    const withFix = finding(2, {
      correctable: true,
      correction: {
        safe: true,
        description: "Remove unused import",
        edits: [{ line: 3, column: 1, end_line: 4, end_column: 1, text: "" }],
      },
    });
    const log = sarifLog([
      input("ruff", [finding(1), withFix], { notes: ["ruff from PATH"], crash: "ruff: exit 2" }),
    ]);
    expect(sarifErrors(log)).toEqual([]);
    expect(log.runs[0]!.results![1]!.fixes).toHaveLength(1);
  });

  it("one run per tool: a tool run twice in one call is one run with an invocation each", () => {
    const log = sarifLog([
      input("prettier", [finding(1, { tool: "prettier", rule_id: "format" })], {
        commandLine: "prettier js",
      }),
      input("eslint", [finding(2, { tool: "eslint", rule_id: "no-unused-vars" })]),
      input("prettier", [finding(3, { tool: "prettier", rule_id: "format" })], {
        commandLine: "prettier ts",
      }),
    ]);
    expect(sarifErrors(log)).toEqual([]);
    expect(log.runs.map((r) => r.tool.driver.name)).toEqual(["prettier", "eslint"]);
    const prettier = log.runs[0]!;
    expect(prettier.invocations?.map((i) => i.commandLine)).toEqual(["prettier js", "prettier ts"]);
    expect(prettier.results?.map((r) => [r.ruleIndex, r.message.text])).toEqual([
      [0, "finding 1"],
      [0, "finding 3"],
    ]);
  });

  it("runs that index artifacts are never combined: they get categories of their own", () => {
    const run = (id: string): SarifRunLike => ({
      tool: { driver: { name: "codeql" } },
      artifacts: [{ location: { uri: `${id}.py` } }],
      results: [
        {
          ruleId: "py/x",
          message: { text: id },
          locations: [{ physicalLocation: { artifactLocation: { uri: `${id}.py`, index: 0 } } }],
        },
      ],
    });
    const runs = combineRuns([run("a"), run("b"), run("c")]);
    expect(runs.map((r) => r.automationDetails?.id)).toEqual([undefined, "codeql-2/", "codeql-3/"]);
    expect(sarifErrors({ version: "2.1.0", runs })).toEqual([]);
  });

  it(`holds every result past GitHub's ${GITHUB_LIMITS.resultsPerRun} per run, and says so in the run`, () => {
    const many = Array.from({ length: GITHUB_LIMITS.resultsPerRun + 1 }, (_, i) => finding(i));
    const log = sarifLog([input("ruff", many)]);
    expect(results(log)).toBe(many.length);
    expect(notes(log.runs[0]!)).toContainEqual(
      expect.stringContaining(
        `${many.length} results in one run: GitHub code scanning accepts at most 25000`,
      ),
    );
    expect(sarifErrors(log)).toEqual([]);
  });

  it("check's merge: one run per tool, the limit notes replaced, not doubled", () => {
    const half = Array.from({ length: 13_000 }, (_, i) => finding(i));
    const a = sarifLog([input("ruff", half)]);
    const b = sarifLog([
      input(
        "ruff",
        half.map((f) => ({ ...f, file: `/w/q/${f.path!}` })),
        { root: "/w/q" },
      ),
    ]);
    const merged = mergeSarif([a, b], "/w");
    expect(merged.runs).toHaveLength(1);
    expect(results(merged)).toBe(26_000);
    expect(notes(merged.runs[0]!).filter((n) => n.includes("GitHub code scanning"))).toEqual([
      expect.stringContaining("26000 results in one run"),
    ]);
    expect(sarifErrors(merged)).toEqual([]);
  });

  it("--sarif-max-results keeps the most severe and says how many went", () => {
    const log = sarifLog([
      input(
        "ruff",
        Array.from({ length: 30 }, (_, i) => finding(i)),
      ),
    ]);
    const { log: cut, cuts } = limitResultsPerRun(log, 12);
    expect(cuts).toEqual([{ run: 0, tool: "ruff", kept: 12, total: 30 }]);
    // 20 errors (i % 3 != 0) and 10 warnings: the first 12 errors, in their order.
    expect(cut.runs[0]!.results!.every((r) => r.level === "error")).toBe(true);
    expect(notes(cut.runs[0]!)).toContain(
      "18 of 30 results left out: --sarif-max-results 12 keeps the most severe 12",
    );
    expect(sarifErrors(cut)).toEqual([]);
  });

  it("a log fitted to a byte budget keeps the most severe results, stays valid, and says where the rest are", () => {
    const log = sarifLog([
      input(
        "ruff",
        Array.from({ length: 300 }, (_, i) => finding(i)),
      ),
    ]);
    const size = Buffer.byteLength(JSON.stringify(log));
    const { log: fitted, fit } = fitSarif(log, Math.floor(size / 3), { trace_id: "T1", hint: "" });
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThanOrEqual(Math.floor(size / 3));
    expect(fit).toMatchObject({ results_total: 300, trace_id: "T1" });
    expect(fit!.results_kept).toBe(results(fitted));
    expect(fit!.results_kept).toBeGreaterThan(50);
    expect(fitted.runs[0]!.results!.every((r) => r.level === "error")).toBe(true);
    expect(notes(fitted.runs[0]!).at(-1)).toMatch(/^\d+ of 300 results left out .*trace T1 holds them all$/);
    expect(sarifErrors(fitted)).toEqual([]);
    expect(fitSarif(log, size, { hint: "" }).fit).toBeUndefined();
  });
});

describe("the JSON writer", () => {
  it("writes what JSON.stringify writes, a chunk at a time, whatever the length of a list", () => {
    const value = {
      a: [1, "two", null, undefined, { b: [], c: {}, d: undefined, e: new Date(0) }],
      f: { g: { h: { i: { j: [1, 2] } } } },
      k: Array.from({ length: 200_000 }, (_, i) => ({ i, s: `x${i}` })),
    };
    const chunks = [...jsonChunks(value, { chunkChars: 4096 })];
    expect(chunks.length).toBeGreaterThan(100);
    expect(Math.max(...chunks.slice(0, 100).map((c) => c.length))).toBeLessThan(4096 + 200);
    expect(JSON.parse(chunks.join(""))).toEqual(JSON.parse(JSON.stringify(value)));
  });
});
