/**
 * src/paths/fast-relative.ts must give what path.relative (and the containment check built on it) gives,
 * for every shape of root and file: normal, with `.`/`..` segments, doubled or trailing slashes, relative,
 * a sibling sharing a prefix (`/a/b` and `/a/bc`), the root itself and `/`.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isNormalAbsolute, isWithinPath, relativeTo } from "../../src/paths/fast-relative.js";

const slowWithin = (root: string, child: string) => {
  const rel = path.relative(root, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
};

const roots = ["/", "/a", "/a/", "/a/b", "/a/b/", "/a/./b", "/a/b/..", "/a//b", "a/b", ".", "/a/b/."];
const tails = ["", "/", "/c", "/c/d.py", "c", "/./c", "/../c", "//c", "/c/..", "/c/.", "c/../../x", "/.."];
const files = new Set<string>();
for (const r of roots) for (const t of tails) files.add(r + t);
for (const extra of ["/a/bc", "/a/bc/d", "/ab", "/x/y", "/a/b/c/", "relative/file.py", ""]) files.add(extra);

describe("fast-relative", () => {
  it("relativeTo equals path.relative and isWithinPath the containment check, for every pair", () => {
    let pairs = 0;
    for (const root of roots)
      for (const file of files) {
        expect(relativeTo(root, file), `${root} ${file}`).toBe(path.relative(root, file));
        expect(isWithinPath(root, file), `${root} ${file}`).toBe(slowWithin(root, file));
        pairs++;
      }
    expect(pairs).toBeGreaterThan(1000);
  });

  it("slices a file under a root and tells a sibling with the same prefix apart", () => {
    expect(relativeTo("/a/b", "/a/b/c/d.py")).toBe("c/d.py");
    expect(isWithinPath("/a/b", "/a/bc")).toBe(false);
    expect(isWithinPath("/a/b", "/a/b")).toBe(true);
    expect(relativeTo("/a/b", "/a/bc")).toBe("../bc");
  });

  it("isNormalAbsolute says a path is path.resolve's own exactly when it is (the recorder and the cache trust it)", () => {
    const segments = ["", ".", "..", "a", ".a", "..a", "a.", "a..", "...", "b c"];
    function* paths(depth: number, prefix = ""): Generator<string> {
      if (depth === 0) return;
      for (const s of segments) {
        yield `${prefix}/${s}`;
        yield `${prefix}/${s}/`;
        yield* paths(depth - 1, `${prefix}/${s}`);
      }
    }
    let checked = 0;
    for (const p of [...paths(4), "a", "./a", "a/b", ""].filter((q) => q !== "/")) {
      expect([p, isNormalAbsolute(p)]).toEqual([p, path.resolve(p) === p]);
      checked++;
    }
    expect(checked).toBeGreaterThan(20_000);
    // The root is normal too, but left to path.resolve (callers slice below it).
    expect(isNormalAbsolute("/")).toBe(false);
  });
});
