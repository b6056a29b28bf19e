/**
 * src/paths/safe-fs.ts on real files: what the server's own reads and writes refuse (links swapped in,
 * links out, dangling links, hard-linked appends, files changed under a fix) and what they keep (the mode,
 * links that stay inside the root, whole files only).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  appendFileIn,
  BatchReader,
  createFileIn,
  listDirIn,
  openDirIn,
  readFileIn,
  readTextIn,
  removeTreeIn,
  writeFileIn,
} from "../../src/paths/safe-fs.js";
import { tempDir } from "../helpers/tools.js";

function layout() {
  const outer = tempDir("mcq-safe-fs-");
  const root = path.join(outer, "root");
  const outside = path.join(outer, "outside");
  fs.mkdirSync(path.join(root, "a"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, "a", "f.txt"), "inside\n", { mode: 0o640 });
  fs.writeFileSync(path.join(outside, "f.txt"), "outside\n");
  return { root, outside };
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { errorType?: string }).errorType;
  }
  return "not refused";
};

describe("safe-fs", () => {
  it("writes by temp file and rename, keeping the mode and leaving no temp file", () => {
    const { root } = layout();
    const file = path.join(root, "a", "f.txt");
    const inode = fs.statSync(file).ino;
    writeFileIn(root, file, "new\n");
    expect(fs.readFileSync(file, "utf8")).toBe("new\n");
    expect(fs.statSync(file).mode & 0o7777).toBe(0o640);
    expect(fs.statSync(file).ino).not.toBe(inode);
    expect(fs.readdirSync(path.join(root, "a"))).toEqual(["f.txt"]);
  });

  it("refuses to read or write through a folder that is a link out, and leaves the outside alone", () => {
    const { root, outside } = layout();
    fs.symlinkSync(outside, path.join(root, "b"));
    expect(refusal(() => readFileIn(root, path.join(root, "b", "f.txt")))).toBe("path_validation");
    expect(refusal(() => writeFileIn(root, path.join(root, "b", "f.txt"), "x"))).toBe("path_validation");
    expect(refusal(() => writeFileIn(root, path.join(root, "b", "g.txt"), "x"))).toBe("path_validation");
    expect(fs.readdirSync(outside)).toEqual(["f.txt"]);
    expect(fs.readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n");
  });

  it("an open folder keeps naming the same folder after its path is swapped for a link", () => {
    const { root, outside } = layout();
    const dir = openDirIn(root, path.join(root, "a"));
    try {
      fs.renameSync(path.join(root, "a"), path.join(root, "a-moved"));
      fs.symlinkSync(outside, path.join(root, "a"));
      expect(fs.readFileSync(dir.entry("f.txt"), "utf8")).toBe("inside\n");
    } finally {
      dir.close();
    }
    expect(refusal(() => readFileIn(root, path.join(root, "a", "f.txt")))).toBe("path_validation");
  });

  it("follows a file link that stays inside the root, once, and writes the real file", () => {
    const { root } = layout();
    const link = path.join(root, "link.txt");
    fs.symlinkSync(path.join(root, "a", "f.txt"), link);
    expect(readTextIn(root, link)).toBe("inside\n");
    writeFileIn(root, link, "via link\n");
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(root, "a", "f.txt"), "utf8")).toBe("via link\n");
    expect(refusal(() => readTextIn(root, link))).toBe("not refused");
  });

  it("refuses a write whose file changed since it was read (error_type locked)", () => {
    const { root } = layout();
    const file = path.join(root, "a", "f.txt");
    expect(refusal(() => writeFileIn(root, file, "fixed\n", { expect: "what the fix read\n" }))).toBe(
      "locked",
    );
    expect(fs.readFileSync(file, "utf8")).toBe("inside\n");
    writeFileIn(root, file, "fixed\n", { expect: "inside\n" });
    expect(fs.readFileSync(file, "utf8")).toBe("fixed\n");
  });

  it("never creates through a dangling link; replace swaps the link itself for a file", () => {
    const { root, outside } = layout();
    const gitignore = path.join(root, ".gitignore");
    fs.symlinkSync(path.join(outside, "created"), gitignore);
    expect(createFileIn(root, gitignore, "*\n")).toBe(false);
    writeFileIn(root, gitignore, "*\n", { links: "replace" });
    expect(fs.lstatSync(gitignore).isFile()).toBe(true);
    expect(fs.readdirSync(outside)).toEqual(["f.txt"]);
  });

  it("appends only to a regular file with one name", () => {
    const { root, outside } = layout();
    const log = path.join(root, "a", "log");
    appendFileIn(root, log, "1\n");
    appendFileIn(root, log, "2\n");
    expect(fs.readFileSync(log, "utf8")).toBe("1\n2\n");
    fs.linkSync(path.join(outside, "f.txt"), path.join(root, "a", "hard"));
    expect(refusal(() => appendFileIn(root, path.join(root, "a", "hard"), "x\n"))).toBe("path_validation");
    expect(fs.readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n");
  });

  it("removes a tree without following the links in it", () => {
    const { root, outside } = layout();
    fs.mkdirSync(path.join(root, "t", "u"), { recursive: true });
    fs.symlinkSync(outside, path.join(root, "t", "u", "out"));
    removeTreeIn(root, path.join(root, "t"));
    expect(fs.existsSync(path.join(root, "t"))).toBe(false);
    expect(fs.readdirSync(outside)).toEqual(["f.txt"]);
    expect(listDirIn(root, root).map((d) => d.name)).toEqual(["a"]);
  });

  it("a batch reader opens each folder once and refuses what readFileIn refuses", () => {
    const { root, outside } = layout();
    fs.mkdirSync(path.join(root, "a", "deep"));
    fs.writeFileSync(path.join(root, "a", "deep", "g.txt"), "deep\n");
    fs.writeFileSync(path.join(root, "top.txt"), "top\n");
    fs.symlinkSync(outside, path.join(root, "out"));
    fs.symlinkSync(path.join(outside, "f.txt"), path.join(root, "a", "leak.txt"));
    fs.symlinkSync(path.join(root, "top.txt"), path.join(root, "a", "in.txt"));
    const reader = new BatchReader(root);
    try {
      expect(reader.readText(path.join(root, "a", "f.txt"))).toBe("inside\n");
      expect(reader.readText(path.join(root, "a", "deep", "g.txt"))).toBe("deep\n");
      expect(reader.readText(path.join(root, "top.txt"))).toBe("top\n");
      // A file link that stays inside is followed once, as readTextIn does; links out are refused.
      expect(reader.readText(path.join(root, "a", "in.txt"))).toBe("top\n");
      expect(refusal(() => reader.readText(path.join(root, "a", "leak.txt")))).toBe("path_validation");
      expect(refusal(() => reader.readText(path.join(root, "out", "f.txt")))).toBe("path_validation");
      expect(refusal(() => reader.readText(path.join(outside, "f.txt")))).toBe("path_validation");
      expect(() => reader.readText(path.join(root, "a", "missing.txt"))).toThrow(/ENOENT/);
      // Its open folder is the one it reached: a folder swapped for a link out later is not followed
      // (deep-moved/ has no f.txt; outside/ has one).
      fs.renameSync(path.join(root, "a", "deep"), path.join(root, "a", "deep-moved"));
      fs.symlinkSync(outside, path.join(root, "a", "deep"));
      expect(() => reader.readText(path.join(root, "a", "deep", "f.txt"))).toThrow(/ENOENT/);
    } finally {
      reader.close();
    }
    // Closed: a new reader reaches the swapped path afresh and refuses it.
    const again = new BatchReader(root);
    try {
      expect(refusal(() => again.readText(path.join(root, "a", "deep", "f.txt")))).toBe("path_validation");
    } finally {
      again.close();
    }
  });
});
