/**
 * Issue 42: within one pass, each folder of a tree is stat'ed once however many walks and look-ups meet it;
 * a new pass (a tool call, a process ended, a write of the server's own) sees what changed. Real folders.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { discoverPythonFiles } from "../../src/adapters/python/python-files.js";
import { loadRuffSettings } from "../../src/adapters/python/ruff-settings.js";
import { projectLayout } from "../../src/adapters/projects.js";
import { runBounded } from "../../src/exec/runner.js";
import { writeFileIn } from "../../src/paths/safe-write.js";
import { sharedTree, TreeScanner, treeMayHaveChanged } from "../../src/paths/tree-scan.js";
import { tempDir } from "../helpers/tools.js";

async function tree(): Promise<string> {
  const dir = tempDir("mcq-tree-pass-");
  for (const d of ["a", "a/b", "c"]) fs.mkdirSync(path.join(dir, d), { recursive: true });
  for (const f of ["x.py", "a/y.py", "a/b/z.py", "c/w.py"]) fs.writeFileSync(path.join(dir, f), "x = 1\n");
  // Old enough that the listings are remembered (a folder changed in the last 50 ms is listed again).
  await new Promise((resolve) => setTimeout(resolve, 100));
  return dir;
}

const skipNothing = () => false;
const pythonFiles = (dir: string) => discoverPythonFiles(dir, loadRuffSettings(dir, dir), dir);

describe("the tree scan's passes", () => {
  it("stats each folder once in a pass, whatever walks it; a new pass stats it again", async () => {
    const dir = await tree();
    const scan = new TreeScanner();
    scan.walk(dir, skipNothing);
    expect([scan.listed, scan.stats]).toEqual([4, 4]);
    scan.walk(dir, skipNothing);
    scan.entries(path.join(dir, "a"));
    expect([scan.listed, scan.stats]).toEqual([4, 4]);
    scan.startPass();
    scan.walk(dir, skipNothing);
    expect([scan.listed, scan.stats]).toEqual([4, 8]);
  });

  it("a file added between passes is found; within a pass the walks agree with each other", async () => {
    const dir = await tree();
    const scan = new TreeScanner();
    expect(scan.walk(dir, skipNothing).files).toHaveLength(4);
    fs.writeFileSync(path.join(dir, "c", "new.py"), "y = 2\n");
    // The same pass: the walk answers as the first did (one view of the tree per pass).
    expect(scan.walk(dir, skipNothing).files).toHaveLength(4);
    scan.startPass();
    expect(scan.walk(dir, skipNothing).files).toContain(path.join(dir, "c", "new.py"));
  });

  it("the server's several walks of a call (Python files, project layout) share the pass's stats", async () => {
    const dir = await tree();
    treeMayHaveChanged();
    const before = sharedTree.stats;
    pythonFiles(dir);
    const first = sharedTree.stats - before;
    projectLayout(dir, dir);
    pythonFiles(dir);
    expect(sharedTree.stats - before).toBe(first);
    // The tree's four folders, and ruff's default `src` folder looked for by its settings.
    expect(first).toBeLessThanOrEqual(6);
  });

  it("a .gitignore is read once while it stays the same, and again after it changed", async () => {
    const dir = await tree();
    execFileSync("git", ["init", "-q"], { cwd: dir });
    fs.writeFileSync(path.join(dir, ".gitignore"), "a/\n");
    await new Promise((resolve) => setTimeout(resolve, 100));
    treeMayHaveChanged();
    const rel = () => pythonFiles(dir).map((f) => path.relative(dir, f));
    expect(rel()).toEqual(["c/w.py", "x.py"]);
    treeMayHaveChanged();
    expect(rel()).toEqual(["c/w.py", "x.py"]);
    fs.writeFileSync(path.join(dir, ".gitignore"), "c/\n");
    treeMayHaveChanged();
    expect(rel()).toEqual(["a/b/z.py", "a/y.py", "x.py"]);
    // Read again while it may still change within its timestamp's grain, and once it has settled.
    await new Promise((resolve) => setTimeout(resolve, 100));
    fs.writeFileSync(path.join(dir, ".gitignore"), "*.py\n!x.py\n");
    treeMayHaveChanged();
    expect(rel()).toEqual(["x.py"]);
  });

  it("a process the server ran and a write of its own start a new pass", async () => {
    const dir = await tree();
    treeMayHaveChanged();
    expect(pythonFiles(dir)).toHaveLength(4);
    await runBounded({
      program: "touch",
      args: [path.join(dir, "a", "b", "made.py")],
      cwd: dir,
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    });
    expect(pythonFiles(dir)).toContain(path.join(dir, "a", "b", "made.py"));
    writeFileIn(dir, path.join(dir, "c", "written.py"), "z = 3\n");
    expect(pythonFiles(dir)).toContain(path.join(dir, "c", "written.py"));
  });
});
