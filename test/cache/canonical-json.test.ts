/**
 * canonicalJson (src/cache/hash.ts), the text every cache key is hashed from: equal values give the same
 * text whatever their keys' order, and it writes exactly what JSON.stringify with a key-sorting replacer
 * writes (its earlier form, kept here as the reference), on the kinds of values keys are made of.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/cache/hash.js";

/** The reference: JSON.stringify sorting each object's keys through a replacer. */
const reference = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );

describe("canonicalJson", () => {
  const values: unknown[] = [
    null,
    "text",
    42,
    ["a", "b", 3, null, true],
    { b: 1, a: 2, "10": 3, "9": 4, é: 5, Z: 6 },
    ["kind", "build", { z: [1, { y: 2, x: [{ d: 1, c: 2 }] }], a: undefined, f: () => 1 }, ["r", "s"]],
    [undefined, () => 1, Symbol("s")],
    { date: new Date(0), buffer: Buffer.from("ab"), nested: { map: new Map([["k", 1]]) } },
    Array.from({ length: 2_000 }, (_, i) => (i % 7 === 0 ? { n: i, m: [i] } : `file_${i}.py`)),
    // eslint-disable-next-line no-sparse-arrays
    [1, , 3],
  ];

  it("writes what the key-sorting replacer writes", () => {
    for (const v of values) expect(canonicalJson(v)).toBe(reference(v));
  });

  it("gives equal values the same text, whatever their keys' order, and changes nothing it is given", () => {
    const a = { x: 1, y: [{ q: 1, p: 2 }], z: "z" };
    const b = { z: "z", y: [{ p: 2, q: 1 }], x: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"x":1,"y":[{"p":2,"q":1}],"z":"z"}');
    expect(Object.keys(b)).toEqual(["z", "y", "x"]);
    expect(Object.keys(b.y[0]!)).toEqual(["p", "q"]);
  });
});
