/**
 * The tree fingerprint a transaction takes before and after its work: a write through a link in the
 * project lands in the link's target, wherever that is, and must show as a change of the link (reported
 * as a write outside the snapshot), though the link itself is unchanged.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { changedPaths, statTree } from "../../src/fix/tree-stat.js";
import { tempDir } from "../helpers/tools.js";

describe("statTree and links", () => {
  it("a write through a link to a file outside the tree is a change of that link", async () => {
    const outer = tempDir("mcq-treestat-");
    const proj = path.join(outer, "proj");
    fs.mkdirSync(path.join(proj, "src"), { recursive: true });
    fs.writeFileSync(path.join(proj, "src", "lib.rs"), "mod m;\n");
    fs.writeFileSync(path.join(outer, "m.rs"), "pub fn g() {}\n");
    fs.symlinkSync(path.join(outer, "m.rs"), path.join(proj, "src", "m.rs"));
    const before = await statTree(proj);
    expect(changedPaths(before, await statTree(proj))).toEqual([]);
    fs.writeFileSync(path.join(proj, "src", "m.rs"), "pub fn g() { /* rewritten */ }\n");
    expect(changedPaths(before, await statTree(proj))).toEqual([path.join("src", "m.rs")]);
  });

  it("a dangling link is fingerprinted too, and its target appearing is a change", async () => {
    const proj = tempDir("mcq-treestat-dangling-");
    fs.symlinkSync(path.join(proj, "nowhere.rs"), path.join(proj, "m.rs"));
    const before = await statTree(proj);
    fs.writeFileSync(path.join(proj, "nowhere.rs"), "x\n");
    expect(changedPaths(before, await statTree(proj))).toEqual(["m.rs", "nowhere.rs"]);
  });
});
