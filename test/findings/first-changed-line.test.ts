/**
 * firstChangedLine (a formatter's first changed line without a diff) says what the unified diff's reader
 * (firstChangedLines) reads from jsdiff's patch of the same texts: SARIF and `check` findings land on the
 * same line whichever way the line was found.
 */
import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { firstChangedLine, firstChangedLines } from "../../src/findings/format-findings.js";

const CASES: [string, string, string][] = [
  ["a change in the middle", "a\nb\nc\nd\n", "a\nb\nC\nd\n"],
  ["a change on line 1", "x=1\ny\n", "x = 1\ny\n"],
  ["lines added at the end", "a\nb\n", "a\nb\nc\n"],
  ["a missing final newline", "a\nb", "a\nb\n"],
  ["a final newline removed", "a\nb\n", "a\nb"],
  ["a line removed", "a\n\n\nb\n", "a\n\nb\n"],
  ["a line inserted", "a\nc\n", "a\nb\nc\n"],
  ["an empty file filled", "", "a\n"],
  ["CRLF to LF", "a\r\nb\r\n", "a\nb\n"],
  ["a change deep in the file", `${"same\n".repeat(2576)}x  =  1\n`, `${"same\n".repeat(2576)}x = 1\n`],
];

describe("firstChangedLine", () => {
  it.each(CASES)("%s: the line the unified diff names", (_, before, after) => {
    const patch = createTwoFilesPatch("f.ts", "f.ts", before, after, undefined, undefined, { context: 3 });
    const fromDiff = firstChangedLines(patch).get("f.ts");
    expect(fromDiff).toBeDefined();
    expect(firstChangedLine(before, after)).toBe(fromDiff);
  });

  it("is undefined for unchanged text", () => {
    expect(firstChangedLine("a\n", "a\n")).toBeUndefined();
  });
});
