/** Reading a file's lines from the end: the same lines as a split, in reverse, whatever the chunk size. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { linesFromEnd } from "../../src/engine/lines-from-end.js";
import { tempDir } from "../helpers/tools.js";

async function collect(file: string, options = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const l of linesFromEnd(file, options)) out.push(l);
  return out;
}

describe("linesFromEnd", () => {
  it("gives the non-empty lines of a file, last first, for any chunk size", async () => {
    const dir = tempDir("mcq-lines-");
    const file = path.join(dir, "log.jsonl");
    const lines = Array.from({ length: 300 }, (_, i) =>
      i % 37 === 0 ? "" : `{"i":${i},"s":"${"é".repeat(i % 13)}"}`,
    );
    for (const text of [lines.join("\n") + "\n", lines.join("\n"), "\n\n" + lines.join("\n")]) {
      fs.writeFileSync(file, text);
      const expected = text.split("\n").filter(Boolean).reverse();
      for (const chunkBytes of [7, 64, 4096, 1 << 20])
        expect(await collect(file, { chunkBytes })).toEqual(expected);
    }
  });

  it("skips a line longer than maxLineBytes and keeps the others", async () => {
    const file = path.join(tempDir("mcq-lines-"), "log");
    fs.writeFileSync(file, `first\n${"x".repeat(10_000)}\nlast\n`);
    expect(await collect(file, { chunkBytes: 100, maxLineBytes: 1000 })).toEqual(["last", "first"]);
  });

  it("reads nothing from a missing file, or through a link when told not to follow", async () => {
    const dir = tempDir("mcq-lines-");
    expect(await collect(path.join(dir, "none"))).toEqual([]);
    fs.writeFileSync(path.join(dir, "real"), "a\n");
    fs.symlinkSync(path.join(dir, "real"), path.join(dir, "link"));
    expect(await collect(path.join(dir, "link"), { noFollow: true })).toEqual([]);
    expect(await collect(path.join(dir, "link"))).toEqual(["a"]);
  });
});
