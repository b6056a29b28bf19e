/**
 * Issue 42: a long-lived server keeps the tree's state from inotify (src/paths/tree-watch.ts): once a pass
 * has settled, an unchanged tree costs no stat and a remembered walk is not walked again, and every kind
 * of change (an edit, a new or deleted file, a folder renamed and replaced, a .gitignore edited, the root
 * itself swapped, more events than the kernel's queue holds) is seen: a missed event is a stat or a walk,
 * never a stale answer. Real folders, real inotify.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileHashes } from "../../src/cache/file-hashes.js";
import { discoverPythonFiles } from "../../src/adapters/python/python-files.js";
import { loadRuffSettings } from "../../src/adapters/python/ruff-settings.js";
import { sharedTree, TreeScanner, treeMayHaveChanged } from "../../src/paths/tree-scan.js";
import { TreeWatch } from "../../src/paths/tree-watch.js";
import { tempDir } from "../helpers/tools.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function tree(): Promise<string> {
  const dir = tempDir("mcq-tree-watch-");
  for (const d of ["a", "a/b", "c"]) fs.mkdirSync(path.join(dir, d), { recursive: true });
  for (const f of ["x.py", "a/y.py", "a/b/z.py", "c/w.py"]) fs.writeFileSync(path.join(dir, f), "x = 1\n");
  // Old enough that listings and hashes are remembered (a change in the last 50 ms is looked at again).
  await pause(100);
  return dir;
}

/** A new pass, settled: what a server does at the start of every call. */
async function nextCall(scan: TreeScanner = sharedTree): Promise<void> {
  scan.startPass();
  await scan.settle();
}

const skipNothing = () => false;
const rel = (dir: string, files: readonly string[]) => files.map((f) => path.relative(dir, f)).sort();
const pythonFiles = (dir: string) => rel(dir, discoverPythonFiles(dir, loadRuffSettings(dir, dir), dir));

afterEach(() => sharedTree.unwatchTree());

describe("the tree watch", () => {
  it("an unchanged tree costs no stat once settled; a change is seen at the next call", async () => {
    const dir = await tree();
    const scan = new TreeScanner();
    scan.watchTree([dir]);
    await nextCall(scan);
    expect(scan.walk(dir, skipNothing).files).toHaveLength(4);
    const stats = scan.stats;
    await nextCall(scan);
    expect(scan.walk(dir, skipNothing).files).toHaveLength(4);
    // Only the root: a walk's start is stat'ed (nothing above the root is watched).
    expect(scan.stats - stats).toBeLessThanOrEqual(1);
    fs.writeFileSync(path.join(dir, "a", "b", "new.py"), "y = 2\n");
    await nextCall(scan);
    expect(rel(dir, scan.walk(dir, skipNothing).files)).toContain("a/b/new.py");
    fs.rmSync(path.join(dir, "c", "w.py"));
    await nextCall(scan);
    expect(rel(dir, scan.walk(dir, skipNothing).files)).not.toContain("c/w.py");
    scan.unwatchTree();
  });

  it("without a settle (a process ended, the server wrote) every folder is stat'ed as before", async () => {
    const dir = await tree();
    const scan = new TreeScanner();
    scan.watchTree([dir]);
    await nextCall(scan);
    scan.walk(dir, skipNothing);
    const stats = scan.stats;
    scan.startPass();
    scan.walk(dir, skipNothing);
    expect(scan.stats - stats).toBe(4);
    scan.unwatchTree();
  });

  it("a folder renamed away and replaced by another of that name is walked anew", async () => {
    const dir = await tree();
    const scan = new TreeScanner();
    scan.watchTree([dir]);
    await nextCall(scan);
    scan.walk(dir, skipNothing);
    fs.renameSync(path.join(dir, "a"), path.join(dir, "a-old"));
    fs.mkdirSync(path.join(dir, "a", "b"), { recursive: true });
    fs.writeFileSync(path.join(dir, "a", "b", "other.py"), "z = 3\n");
    await nextCall(scan);
    expect(rel(dir, scan.walk(dir, skipNothing).files)).toEqual([
      "a-old/b/z.py",
      "a-old/y.py",
      "a/b/other.py",
      "c/w.py",
      "x.py",
    ]);
    scan.unwatchTree();
  });

  it("a folder above the root swapped for another (no event reaches the root's watches) is walked anew", async () => {
    const top = tempDir("mcq-tree-watch-root-");
    const dir = path.join(top, "parent", "project");
    fs.mkdirSync(path.join(dir, "sub"), { recursive: true });
    fs.writeFileSync(path.join(dir, "sub", "old.py"), "x = 1\n");
    await pause(100);
    const scan = new TreeScanner();
    scan.watchTree([dir]);
    await nextCall(scan);
    expect(rel(dir, scan.walk(dir, skipNothing).files)).toEqual(["sub/old.py"]);
    await nextCall(scan);
    // Neither `parent` nor `top` is watched: moving `parent` sends no event to the project's folders.
    fs.renameSync(path.join(top, "parent"), path.join(top, "parent-old"));
    fs.mkdirSync(path.join(dir, "sub"), { recursive: true });
    fs.writeFileSync(path.join(dir, "sub", "new.py"), "x = 2\n");
    await nextCall(scan);
    expect(rel(dir, scan.walk(dir, skipNothing).files)).toEqual(["sub/new.py"]);
    scan.unwatchTree();
  });

  it("a file's content hash follows an edit that keeps its size and modification time", async () => {
    const dir = await tree();
    sharedTree.watchTree([dir]);
    const hashes = new FileHashes();
    const file = path.join(dir, "a", "y.py");
    await nextCall();
    sharedTree.walk(dir, skipNothing); // the folders a call lists are the ones watched
    const before = hashes.hashOf(file);
    await nextCall();
    expect(hashes.hashOf(file)).toBe(before);
    const { atime, mtime } = fs.statSync(file);
    fs.writeFileSync(file, "x = 2\n");
    fs.utimesSync(file, atime, mtime);
    await nextCall();
    expect(hashes.hashOf(file)).not.toBe(before);
  });

  it("a list's hashes come from memory while the watcher saw nothing, and an edit anywhere in it is read", async () => {
    const dir = await tree();
    sharedTree.watchTree([dir]);
    const hashes = new FileHashes();
    const files = sharedTree.walk(dir, skipNothing).files;
    const look = async () => {
      await nextCall();
      sharedTree.walk(dir, skipNothing);
      const [reads, fromMemory] = [hashes.reads, hashes.listsFromMemory];
      const got = hashes.hashesOf(files);
      return { hashes: got, reads: hashes.reads - reads, fromMemory: hashes.listsFromMemory - fromMemory };
    };
    const first = await look(); // read, then each file's stat remembered with the watcher's clock
    expect(first.reads).toBe(4);
    expect((await look()).fromMemory).toBe(0); // each by the watcher: the list is kept
    // Nothing moved since: the same hashes, without a look at any file.
    const kept = await look();
    expect(kept.fromMemory).toBe(1);
    expect(kept.hashes).toEqual(first.hashes);
    const edited = path.join(dir, "a", "b", "z.py");
    const { atime, mtime } = fs.statSync(edited);
    fs.writeFileSync(edited, "x = 2\n");
    fs.utimesSync(edited, atime, mtime);
    await pause(100); // past the racy window: its new hash is remembered
    const after = await look();
    expect(after.fromMemory).toBe(0);
    expect(after.reads).toBe(1);
    expect(after.hashes).not.toEqual(first.hashes);
    expect(after.hashes.filter((h, i) => h !== first.hashes[i])).toHaveLength(1);
    // A file added beside them moves the clock too: the old list is looked at again, not trusted.
    fs.writeFileSync(path.join(dir, "c", "v.py"), "y = 1\n");
    fs.writeFileSync(path.join(dir, "x.py"), "x = 3\n");
    await pause(100);
    expect(await look()).toMatchObject({ reads: 1, fromMemory: 0 });
  });

  it("a remembered walk is reused while nothing it read changed, and walked again after a .gitignore edit", async () => {
    const dir = await tree();
    execFileSync("git", ["init", "-q"], { cwd: dir });
    fs.writeFileSync(path.join(dir, ".gitignore"), "a/\n");
    await pause(100);
    sharedTree.watchTree([dir]);
    await nextCall();
    expect(pythonFiles(dir)).toEqual(["c/w.py", "x.py"]);
    const remembered = sharedTree.remembered;
    await nextCall();
    expect(pythonFiles(dir)).toEqual(["c/w.py", "x.py"]);
    // The walk, and ruff's settings (which looked for config files and a `src` folder, all absent).
    expect(sharedTree.remembered).toBe(remembered + 2);
    // An edit of a file the walk lists (not its names) keeps the walk.
    fs.appendFileSync(path.join(dir, "x.py"), "# edited\n");
    await nextCall();
    expect(pythonFiles(dir)).toEqual(["c/w.py", "x.py"]);
    expect(sharedTree.remembered).toBe(remembered + 4);
    // A config file appears where the settings looked for one: both are made again (the root's names too
    // have changed), and the settings are the new file's.
    fs.writeFileSync(path.join(dir, "ruff.toml"), "line-length = 99\n");
    await nextCall();
    expect(pythonFiles(dir)).toEqual(["c/w.py", "x.py"]);
    expect(sharedTree.remembered).toBe(remembered + 4);
    expect(loadRuffSettings(dir, dir).source).toBe(path.join(dir, "ruff.toml"));
    fs.writeFileSync(path.join(dir, ".gitignore"), "c/\n");
    await nextCall();
    expect(pythonFiles(dir)).toEqual(["a/b/z.py", "a/y.py", "x.py"]);
    fs.writeFileSync(path.join(dir, "a", "b", "new.py"), "");
    await pause(100);
    await nextCall();
    expect(pythonFiles(dir)).toEqual(["a/b/new.py", "a/b/z.py", "a/y.py", "x.py"]);
    // Outside a settled pass (a tool just ran), the watcher is not asked: the walk's folders and files are
    // stat'ed instead, and it is still reused (walked when no folder had changed in the last 50 ms).
    const again = sharedTree.remembered;
    const byStat = sharedTree.rememberedByStat;
    treeMayHaveChanged();
    expect(pythonFiles(dir)).toEqual(["a/b/new.py", "a/b/z.py", "a/y.py", "x.py"]);
    // The walk, by stat; ruff's settings are made again: made when ruff.toml had just been written, a stat
    // could not tell a second write in the same tick, so they were not kept for one to vouch for.
    expect(sharedTree.remembered).toBe(again + 1);
    expect(sharedTree.rememberedByStat).toBe(byStat + 1);
  });

  it("a remembered walk is vouched for once per move of the watcher's clock, and a new file moves it", async () => {
    const dir = await tree();
    const scan = new TreeScanner();
    scan.watchTree([dir]);
    const walk = async () => {
      await nextCall(scan);
      return rel(dir, scan.walk(dir, skipNothing, "nothing").files);
    };
    await walk();
    // The second call asks the watcher about each folder; the third, with the clock unmoved, about none.
    await walk();
    expect(scan.rememberedByClock).toBe(0);
    expect(await walk()).toEqual(["a/b/z.py", "a/y.py", "c/w.py", "x.py"]);
    expect(scan.rememberedByClock).toBe(1);
    // An edit in a folder the walk listed (its names unchanged): the folders are asked again, and the walk
    // is still the same; then, the clock unmoved again, none.
    fs.appendFileSync(path.join(dir, "a", "b", "z.py"), "# edited\n");
    expect(await walk()).toEqual(["a/b/z.py", "a/y.py", "c/w.py", "x.py"]);
    expect(scan.rememberedByClock).toBe(1);
    await walk();
    expect(scan.rememberedByClock).toBe(2);
    fs.writeFileSync(path.join(dir, "a", "b", "new.py"), "y = 2\n");
    expect(await walk()).toEqual(["a/b/new.py", "a/b/z.py", "a/y.py", "c/w.py", "x.py"]);
    expect(scan.rememberedByClock).toBe(2);
    scan.unwatchTree();
  });

  it("calls that settle at once each get their own answer, and the watcher stays on", async () => {
    const dir = await tree();
    const watch = new TreeWatch(true);
    watch.addRoots([dir]);
    watch.watch(dir);
    const answers = await Promise.all([watch.settle(), watch.settle(), watch.settle(), watch.settle()]);
    expect(answers).toEqual([true, true, true, true]);
    expect(watch.active).toBe(true);
    // The first settle touched the marker; the three that came while it was out shared one more round.
    expect(watch.settles).toBe(2);
    watch.close();
  });

  it("more events than half the kernel's queue between two settles: nothing known before is trusted", async () => {
    const dir = await tree();
    // A queue of 64 events: 32 between settles count as a possible overflow.
    const watch = new TreeWatch(true, 64);
    watch.addRoots([dir]);
    const sub = path.join(dir, "c");
    expect(watch.watch(dir) && watch.watch(sub)).toBe(true);
    await watch.settle();
    const seen = watch.now();
    expect(watch.namesUnchangedSince(sub, seen)).toBe(true);
    // Events about another folder only: without the overflow rule, `sub` would still be trusted.
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), String(i));
    await watch.settle();
    expect(watch.namesUnchangedSince(sub, seen)).toBe(false);
    expect(watch.namesUnchangedSince(sub, watch.now())).toBe(true);
    watch.close();
  });
});
