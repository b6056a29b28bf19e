/**
 * src/findings/json-chunks.ts: the text parses to what JSON.stringify gives; levels above expandDepth are
 * laid out as JSON.stringify(value, null, 2) lays them out (small objects of plain values written in one
 * piece must not change that), deeper objects are one line, and long lists come in bounded chunks.
 */
import { describe, expect, it } from "vitest";
import { jsonChunks } from "../../src/findings/json-chunks.js";

const text = (v: unknown, options?: Parameters<typeof jsonChunks>[1]) => [...jsonChunks(v, options)].join("");

describe("jsonChunks", () => {
  it("lays out a check report as JSON.stringify(value, null, 2) does", () => {
    const report = {
      version: "0.1.0",
      exit_code: 1,
      skipped: undefined,
      empty: [],
      none: {},
      checks: [{ id: "ruff", status: "findings", counts: { error: 1, warning: 0 }, notes: [] }],
      findings: Array.from({ length: 50 }, (_, i) => ({
        check: "ruff",
        file: `src/m${i}.py`,
        line: i + 1,
        column: 1,
        rule_id: i % 2 ? "F401" : null,
        message: 'quote " and newline \n inside',
        gone: undefined,
        at: i % 3 ? undefined : [1, undefined, "x"],
      })),
    };
    expect(text(report)).toBe(JSON.stringify(report, null, 2));
  });

  it("writes objects at expandDepth and below on one line", () => {
    const deep = { a: { b: { c: { d: { e: [1, { f: 2 }] } } } } };
    expect(text(deep, { expandDepth: 2 })).toBe(
      ["{", '  "a": {', '    "b": {"c":{"d":{"e":[1,{"f":2}]}}}', "  }", "}"].join("\n"),
    );
    expect(JSON.parse(text(deep, { expandDepth: 2 }))).toEqual(deep);
    // Lists are written element by element at any depth (a list can be long).
    expect(text({ a: [1, 2], b: { c: 1 } }, { expandDepth: 1 })).toBe(
      '{\n  "a": [\n    1,\n    2\n  ],\n  "b": {"c":1}\n}',
    );
  });

  it("gives a long list in bounded chunks", () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `file-${i}.ts`);
    const chunks = [...jsonChunks({ unformatted_files: names }, { chunkChars: 4096 })];
    expect(chunks.length).toBeGreaterThan(50);
    for (const c of chunks) expect(c.length).toBeLessThan(4096 + 64);
    expect(chunks.join("")).toBe(JSON.stringify({ unformatted_files: names }, null, 2));
  });
});
