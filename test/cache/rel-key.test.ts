/** relativeKey's fast path gives exactly what path.relative (with `/` separators) gives. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { relativeKey } from "../../src/cache/rel-key.js";

const CASES: [string, string][] = [
  ["/p", "/p/a.py"],
  ["/p/", "/p/a/b.ts"],
  ["/p", "/p"],
  ["/p", "/pq/a.py"],
  ["/p", "/other/a.py"],
  ["/p", "/p/./a.py"],
  ["/p", "/p/x/../a.py"],
  ["/p", "/p//a.py"],
  ["/p", "/p/a/"],
  ["/p", "/p/a/.."],
  ["/", "/a/b"],
];

describe("relativeKey", () => {
  it.each(CASES)("%s, %s", (root, file) => {
    expect(relativeKey(root, file)).toBe(path.relative(root, file).split(path.sep).join("/"));
  });
});
