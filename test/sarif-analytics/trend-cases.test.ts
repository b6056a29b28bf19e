/**
 * sarif_trend_analysis's classes on the cases where it used to disagree with the truth, each run with the
 * results in the logs' order and reversed (and shuffled): reopened only for what was gone from the baseline,
 * an inserted line flagged where it is (content fingerprints, not line numbers), baselineState and suppressions
 * honoured, one tool under two names, seed 002's group keys, and 20,000 + 20,000 results on one line.
 */
import { describe, expect, it } from "vitest";
import { normalizeSarif } from "../../src/sarif-analytics/normalize.js";
import { trendAnalysis } from "../../src/sarif-analytics/trend.js";

interface R {
  rule?: string;
  line: number;
  message?: string;
  file?: string;
  level?: string;
  fp?: Record<string, string>;
  snippet?: string;
  baselineState?: string;
  suppressions?: { kind: string; status?: string }[];
  props?: Record<string, unknown>;
  correlationGuid?: string;
}

const result = (r: R) => ({
  ruleId: r.rule ?? "S101",
  level: r.level ?? "warning",
  message: { text: r.message ?? "Use of `assert` detected" },
  locations: [
    {
      physicalLocation: {
        artifactLocation: { uri: r.file ?? "app.py" },
        region: { startLine: r.line, startColumn: 1, ...(r.snippet ? { snippet: { text: r.snippet } } : {}) },
      },
    },
  ],
  ...(r.fp ? { partialFingerprints: r.fp } : {}),
  ...(r.baselineState ? { baselineState: r.baselineState } : {}),
  ...(r.suppressions ? { suppressions: r.suppressions } : {}),
  ...(r.props ? { properties: r.props } : {}),
  ...(r.correlationGuid ? { correlationGuid: r.correlationGuid } : {}),
});

type Log = { version: string; runs: { tool: { driver: { name: string } }; results: unknown[] }[] };
const log = (results: R[], tool = "ruff"): Log => ({
  version: "2.1.0",
  runs: [{ tool: { driver: { name: tool } }, results: results.map(result) }],
});

const reorder = (l: Log, how: (xs: unknown[]) => unknown[]): Log => ({
  ...l,
  runs: l.runs.map((run) => ({ ...run, results: how([...run.results]) })),
});
/** A fixed shuffle (no randomness in tests): odd positions, then even ones, reversed. */
const shuffle = (xs: unknown[]) =>
  [...xs.filter((_, i) => i % 2), ...xs.filter((_, i) => !(i % 2))].reverse();
const ORDERS: [string, (xs: unknown[]) => unknown[]][] = [
  ["as given", (xs) => xs],
  ["reversed", (xs) => xs.reverse()],
  ["shuffled", shuffle],
];

type Entry = { rule_id: string; line?: number; matched_by?: string; previous_line?: number };
/** Each class as sorted `rule@line` (with `<-previous` for moved ones): what the case expects. */
function classes(baseline: Log, current: Log, history: Log[] = [], order = (xs: unknown[]) => xs) {
  const t = trendAnalysis(
    normalizeSarif(reorder(baseline, order)),
    normalizeSarif(reorder(current, order)),
    history.map((h) => normalizeSarif(reorder(h, order))),
  );
  const show = (list: Entry[]) =>
    list
      .map((e) => `${e.rule_id}@${e.line ?? 0}${e.previous_line !== undefined ? `<-${e.previous_line}` : ""}`)
      .sort();
  return {
    counts: t.counts,
    introduced: show(t.introduced),
    reopened: show(t.reopened),
    worsening: show(t.worsening),
    persisting: show(t.persisting),
    fixed: show(t.fixed),
    suppressed: show(t.suppressed),
    notes: t.notes,
    trend: t,
  };
}

/** Our own logs' fingerprints: a hash of the line's text (here the text itself stands for it). */
const ours = (line: number, text: string, rule = "S101"): R => ({
  rule,
  line,
  fp: { "mcq/v1": `mcq/v1:${text}:0` },
});

describe.each(ORDERS)("trend classes, results %s", (_order, order) => {
  it("a new assert above two old ones is introduced, not reopened: history and baseline both had the old two", () => {
    const before = log([ours(1, "assert a"), ours(2, "assert b")]);
    const c = classes(
      before,
      log([ours(1, "assert c"), ours(2, "assert a"), ours(3, "assert b")]),
      [before],
      order,
    );
    expect(c.introduced).toEqual(["S101@1"]);
    expect(c.reopened).toEqual([]);
    expect(c.persisting).toEqual(["S101@2<-1", "S101@3<-2"]);
    expect(c.fixed).toEqual([]);
  });

  it("the same without any fingerprint: still nothing reopened, the counts right", () => {
    const before = log([{ line: 1 }, { line: 2 }]);
    const c = classes(before, log([{ line: 1 }, { line: 2 }, { line: 3 }]), [before], order);
    expect(c.counts).toMatchObject({ introduced: 1, reopened: 0, persisting: 2, fixed: 0 });
  });

  it("reopened: present in a history run, absent from the baseline, present now (moved)", () => {
    const history = log([ours(5, "debugger", "no-debugger"), ours(9, "x == 1", "eqeqeq")]);
    const baseline = log([ours(9, "x == 1", "eqeqeq")]);
    const current = log([ours(7, "debugger", "no-debugger"), ours(9, "x == 1", "eqeqeq")]);
    const c = classes(baseline, current, [history], order);
    expect(c.reopened).toEqual(["no-debugger@7"]);
    expect(c.trend.reopened[0]).toMatchObject({ seen_in_history: 0, matched_by: "fingerprint" });
    expect(c.persisting).toEqual(["eqeqeq@9"]);
    expect(c.introduced).toEqual([]);
  });

  it("a line inserted above: the new finding is the one flagged (partialFingerprints, GitHub's line hash)", () => {
    const hash = (text: string, line: number): R => ({
      rule: "F401",
      line,
      message: "import unused",
      fp: { primaryLocationLineHash: `${text}:1` },
    });
    const c = classes(
      log([hash("os", 2), hash("sys", 3)]),
      log([hash("re", 2), hash("os", 3), hash("sys", 4)]),
      [],
      order,
    );
    expect(c.introduced).toEqual(["F401@2"]);
    expect(c.persisting).toEqual(["F401@3<-2", "F401@4<-3"]);
    expect(c.trend.persisting.every((p) => p.matched_by === "fingerprint")).toBe(true);
  });

  it("a line inserted above: the same from the region's snippet when the log has no fingerprints", () => {
    const snip = (text: string, line: number): R => ({
      rule: "F401",
      line,
      message: "import unused",
      snippet: text,
    });
    const c = classes(
      log([snip("import os", 2), snip("import sys", 3)]),
      log([snip("import re", 2), snip("import os", 3), snip("import sys", 4)]),
      [],
      order,
    );
    expect(c.introduced).toEqual(["F401@2"]);
    expect(c.persisting).toEqual(["F401@3<-2", "F401@4<-3"]);
  });

  it("a finding's fingerprint differing from one of the same rule on the same line: fixed + introduced", () => {
    const c = classes(log([ours(1, "import os", "F401")]), log([ours(1, "import sys", "F401")]), [], order);
    expect([c.introduced, c.fixed, c.persisting]).toEqual([["F401@1"], ["F401@1"], []]);
  });

  it("baselineState absent is not present; an accepted suppression is not open, one under review is", () => {
    const baseline = log([
      { line: 1, message: "a" },
      { line: 2, message: "b", baselineState: "absent" },
    ]);
    const current = log([
      { line: 1, message: "a", suppressions: [{ kind: "inSource" }] },
      { line: 3, message: "c" },
      { line: 4, message: "d", suppressions: [{ kind: "external", status: "underReview" }] },
      { line: 5, message: "e", baselineState: "absent" },
      { line: 6, message: "f", suppressions: [{ kind: "external", status: "accepted" }] },
    ]);
    const c = classes(baseline, current, [], order);
    expect(c.suppressed).toEqual(["S101@1"]);
    expect(c.introduced).toEqual(["S101@3", "S101@4"]);
    expect([c.fixed, c.persisting, c.reopened]).toEqual([[], [], []]);
    expect(c.counts).toMatchObject({
      baseline: 1,
      current: 2,
      absent: { baseline: 1, current: 1 },
      suppressed_results: { baseline: 0, current: 2 },
    });
  });

  it("one tool under two spellings (case, version suffix) is one tool, and the result says so", () => {
    const c = classes(
      log([{ line: 1, rule: "no-empty", message: "Empty block" }], "ESLint"),
      log([{ line: 2, rule: "no-empty", message: "Empty block" }], "eslint 9.1.0"),
      [],
      order,
    );
    expect(c.persisting).toEqual(["no-empty@2<-1"]);
    expect(c.notes).toEqual([
      'tool names differ between the baseline ("ESLint") and the current log ("eslint 9.1.0"): compared as one tool, eslint',
    ]);
  });

  it("one tool renamed (each log's only tool the other does not name) is compared as one, with a note", () => {
    const c = classes(
      log([{ line: 6, rule: "SARIF2003", message: "runs[0]: no versionControlProvenance" }], "testhost"),
      log(
        [
          { line: 5, rule: "SARIF2003", message: "runs[0]: no versionControlProvenance" },
          { line: 9, rule: "SARIF2002", message: "use message arguments" },
        ],
        "SARIF Functional Testing",
      ),
      [],
      order,
    );
    expect(c.persisting).toEqual(["SARIF2003@5<-6"]);
    expect(c.introduced).toEqual(["SARIF2002@9"]);
    expect(c.notes[0]).toMatch(
      /^the baseline names its tool "testhost" and the current log "SARIF Functional Testing"/,
    );
  });

  it("seed 002's group keys (coding_ethos_group_key) match first, and a GitHub correlationGuid too", () => {
    const key = (k: string, line: number, rule: string, extra: Partial<R> = {}): R => ({
      rule,
      line,
      message: `${rule} issue`,
      props: { coding_ethos_group_key: k },
      ...extra,
    });
    const c = classes(
      log([
        key("python.old||src/old.py|1", 1, "python.old"),
        key("python.persisting||src/app.py|3", 3, "python.persisting"),
      ]),
      log([
        key("python.persisting||src/app.py|3", 3, "python.persisting"),
        key("python.new||src/new.py|9", 9, "python.new"),
      ]),
      [],
      order,
    );
    expect(c.persisting).toEqual(["python.persisting@3"]);
    expect(c.trend.persisting[0]).toMatchObject({ matched_by: "group_key" });
    expect([c.introduced, c.fixed]).toEqual([["python.new@9"], ["python.old@1"]]);
  });
});

/**
 * A microsoft/sarif-sdk-style baseline case (as its Multitool BaselineOption tests write them): rules with
 * messageStrings, results with message ids and arguments, locations by artifact index, the baseline's
 * results with correlationGuids, a renamed tool, and the current log carrying the baselineState sarif-sdk
 * assigned: our classes must agree with it (unchanged/updated = persisting, new = introduced, absent = fixed).
 */
describe("a sarif-sdk-style baseline case", () => {
  const rules = [
    { id: "SARIF2003", messageStrings: { Note_Default: { text: "{0}: no 'versionControlProvenance'." } } },
    { id: "SARIF2002", messageStrings: { Note_Default: { text: "{0}: use 'message.id' and 'arguments'." } } },
  ];
  const res = (rule: number, arg: string, line: number, extra: Record<string, unknown> = {}) => ({
    ruleId: rules[rule]!.id,
    ruleIndex: rule,
    level: "note",
    message: { id: "Note_Default", arguments: [arg] },
    locations: [
      { physicalLocation: { artifactLocation: { index: 0 }, region: { startLine: line, startColumn: 5 } } },
    ],
    ...extra,
  });
  const sdkLog = (tool: string, results: unknown[]) => ({
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: tool, rules } },
        artifacts: [{ location: { uri: "ToBeValidated.sarif" } }],
        results,
      },
    ],
  });
  const baseline = sdkLog("testhost", [
    res(0, "runs[0]", 6, { correlationGuid: "7285fa21", baselineState: "unchanged" }),
    res(1, "runs[0].results[0].message", 10, { correlationGuid: "a1", baselineState: "unchanged" }),
    res(1, "runs[0].results[1].message", 16, { correlationGuid: "a2", baselineState: "unchanged" }),
  ]);
  const current = sdkLog("SARIF Functional Testing", [
    res(0, "runs[0]", 5, { baselineState: "updated" }),
    res(1, "runs[0].results[0].message", 9, { baselineState: "updated" }),
    res(1, "runs[0].invocations[0].toolExecutionNotifications[0].message", 21, { baselineState: "new" }),
    res(1, "runs[0].results[1].message", 16, { baselineState: "absent" }),
  ]);

  it.each(ORDERS)("agrees with the baselineState sarif-sdk assigned (results %s)", (_o, order) => {
    const c = classes(baseline as unknown as Log, current as unknown as Log, [], order);
    const states = (current.runs[0]!.results as { baselineState?: string }[]).map((r) => r.baselineState);
    const n = (s: string) => states.filter((x) => x === s).length;
    expect(c.counts).toMatchObject({
      persisting: n("unchanged") + n("updated"),
      introduced: n("new"),
      fixed: n("absent"),
    });
    expect(c.persisting).toEqual(["SARIF2002@9<-10", "SARIF2003@5<-6"]);
    expect(c.introduced).toEqual(["SARIF2002@21"]);
  });
});

describe("scale", () => {
  it("20,000 + 20,000 results with one rule, file and line all persist (linear matching, no queue scans)", () => {
    const many = (n: number) => log(Array.from({ length: n }, () => ({ line: 7 })));
    const c = classes(many(20_000), many(20_000));
    expect(c.counts).toMatchObject({ persisting: 20_000, introduced: 0, fixed: 0 });
  });

  it("20,000 + 20,000 with one group key and differing fingerprints: paired by fingerprint, none by the key alone", () => {
    const many = (offset: number) =>
      log(
        Array.from({ length: 20_000 }, (_, i) => ({
          line: 7,
          fp: { "mcq/v1": `mcq/v1:${i + offset}:0` },
          props: { coding_ethos_group_key: "python.same||app.py|7" },
        })),
      );
    const c = classes(many(0), many(10_000));
    expect(c.counts).toMatchObject({ persisting: 10_000, introduced: 10_000, fixed: 10_000 });
  });
});
