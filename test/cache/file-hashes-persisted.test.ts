/**
 * The content-hash memo kept on disk: a fresh process (a second FileHashes on the same store, as a second
 * `check` run is) reads only the files that changed since the last save, and trusts nothing it cannot
 * match: another root's entry, a damaged entry, a file whose stat changed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FileHashes } from "../../src/cache/file-hashes.js";
import { LocalStore } from "../../src/cache/local-store.js";
import { tempDir } from "../helpers/tools.js";

/** A root with `n` files, old enough (past the racy window) to be remembered. */
async function project(n: number): Promise<{ root: string; files: string[] }> {
  const root = fs.realpathSync(tempDir("mcq-hashes-root-"));
  const files = Array.from({ length: n }, (_, i) => {
    const f = path.join(root, "src", `m${i}.py`);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, `x = ${i}\n`);
    return f;
  });
  await new Promise((r) => setTimeout(r, 120));
  return { root, files };
}

async function firstRun(store: LocalStore, root: string, files: string[]): Promise<string[]> {
  const a = new FileHashes({ store, roots: [root] });
  const hashes = files.map((f) => a.hashOf(f) as string);
  expect(a.reads).toBe(files.length);
  a.save();
  await store.flush();
  return hashes;
}

describe("the content-hash memo on disk", () => {
  it("lets a fresh process read only the changed file, with the same hashes", async () => {
    const { root, files } = await project(50);
    const store = new LocalStore(tempDir("mcq-hashes-store-"), 64 * 1024 * 1024);
    const before = await firstRun(store, root, files);

    const b = new FileHashes({ store, roots: [root] });
    expect(files.map((f) => b.hashOf(f))).toEqual(before);
    expect(b.reads).toBe(0);

    fs.appendFileSync(files[7] as string, "y = 1\n");
    const c = new FileHashes({ store, roots: [root] });
    const after = files.map((f) => c.hashOf(f));
    expect(c.reads).toBe(1);
    expect(after[7]).not.toBe(before[7]);
    expect(after.filter((h, i) => h !== before[i])).toHaveLength(1);
  });

  it("ignores another root's memo and a damaged one, and reads every file", async () => {
    const { root, files } = await project(5);
    const dir = tempDir("mcq-hashes-store-");
    const store = new LocalStore(dir, 64 * 1024 * 1024);
    await firstRun(store, root, files);
    // The same store asked for a root at another path: nothing of the first root applies.
    const moved = fs.realpathSync(tempDir("mcq-hashes-moved-"));
    fs.cpSync(root, moved, { recursive: true });
    const other = new FileHashes({ store, roots: [moved] });
    for (const f of files) other.hashOf(path.join(moved, path.relative(root, f)));
    expect(other.reads).toBe(files.length);
    // Every stored entry cut in half: read again, no error.
    for (const shard of fs.readdirSync(path.join(dir, "v1")))
      for (const name of fs.readdirSync(path.join(dir, "v1", shard))) {
        const file = path.join(dir, "v1", shard, name);
        const text = fs.readFileSync(file, "utf8");
        fs.writeFileSync(file, text.slice(0, text.length >> 1));
      }
    const damaged = new FileHashes({ store, roots: [root] });
    for (const f of files) damaged.hashOf(f);
    expect(damaged.reads).toBe(files.length);
  });

  it("without a store remembers in memory only", async () => {
    const { root, files } = await project(3);
    const store = new LocalStore(tempDir("mcq-hashes-store-"), 64 * 1024 * 1024);
    const a = new FileHashes();
    for (const f of files) a.hashOf(f);
    a.save();
    await store.flush();
    const b = new FileHashes({ store, roots: [root] });
    for (const f of files) b.hashOf(f);
    expect(b.reads).toBe(files.length);
  });
});
