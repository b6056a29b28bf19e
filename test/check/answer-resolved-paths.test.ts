/**
 * The answer recorder takes a path that is already absolute and normalized as it is (src/check/answer/
 * record.ts isResolved), without path.resolve: it must say so only of paths path.resolve leaves unchanged,
 * and of all of those (every combination of a few segments that matter: empty, `.`, `..`, names that start
 * or end with dots; with and without a trailing slash).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isResolved } from "../../src/check/answer/record.js";

const SEGMENTS = ["", ".", "..", "a", ".a", "..a", "a.", "a..", "...", "b c"];

function* paths(depth: number, prefix = ""): Generator<string> {
  if (depth === 0) return;
  for (const s of SEGMENTS) {
    const p = `${prefix}/${s}`;
    yield p;
    yield `${p}/`;
    yield* paths(depth - 1, p);
  }
}

describe("the recorder's resolved paths", () => {
  it("are exactly those path.resolve leaves as they are", () => {
    let checked = 0;
    for (const p of [...paths(4), "/", "a", "./a", "a/b", ""]) {
      expect([p, isResolved(p)]).toEqual([p, path.resolve(p) === p]);
      checked++;
    }
    expect(checked).toBeGreaterThan(20_000);
  });
});
