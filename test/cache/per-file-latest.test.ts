/**
 * A project's latest bundle (what a request over another file list takes its unchanged files from) is kept
 * as a pointer to the exact entry, not a second copy of it: an edit writes one bundle, a warm call with
 * nothing new writes nothing, and a file added to the list still finds every other file's value, in a
 * fresh process too (the entries read back from disk).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ResultCache } from "../../src/cache/result-cache.js";
import { runPerFile, type PerFileJob } from "../../src/cache/per-file.js";
import { tempDir } from "../helpers/tools.js";

/** Writes `text` with an mtime in the past (older than the racy window: its hash is remembered). */
function write(file: string, text: string) {
  fs.writeFileSync(file, text);
  const t = Date.now() / 1000 - 10;
  fs.utimesSync(file, t, t);
}

/** A tool whose value for a file is its first line; `ran` lists what each run was given. */
function job(
  cache: ResultCache,
  root: string,
  files: string[],
): PerFileJob<string, null> & { ran: string[][] } {
  const j = {
    ran: [] as string[][],
    cache,
    kind: "first line",
    identity: {},
    root,
    files,
    isEmpty: (v: string) => v === "",
    encode: (v: string) => v,
    decode: (stored: unknown) => String(stored),
    async run(subset: readonly string[] | undefined) {
      const which = subset ?? files;
      j.ran.push(which.map((f) => path.basename(f)));
      return {
        values: new Map(which.map((f) => [f, fs.readFileSync(f, "utf8").split("\n")[0] ?? ""])),
        meta: null,
      };
    },
  };
  return j;
}

const settle = () => new Promise((r) => setTimeout(r, 80));

describe("the latest bundle of a project", () => {
  it("is a pointer: an edit writes one bundle, and a new file's list takes the others from it", async () => {
    const root = tempDir("mcq-latest-");
    const dir = tempDir("mcq-latest-cache-");
    const files = ["a.py", "b.py", "c.py", "d.py"].map((n) => path.join(root, n));
    for (const f of files) write(f, `${path.basename(f)} 1\n`);
    await settle();
    const cache = new ResultCache({ dir, maxBytes: 1 << 24, roots: [root] });
    const writes = async () => {
      await cache.flush();
      return cache.local?.stats.writes ?? -1;
    };

    await runPerFile(job(cache, root, files));
    // The exact bundle and the pointer (and the file hashes, kept elsewhere, are not counted here).
    const afterFirst = await writes();
    expect(afterFirst).toBe(2);

    // Nothing changed: nothing written.
    const warm = job(cache, root, files);
    expect((await runPerFile(warm)).cached).toBe(4);
    expect(warm.ran).toEqual([]);
    expect(await writes()).toBe(afterFirst);

    // One edit: one bundle written again under the same key; the pointer is already right.
    write(files[1] as string, "b.py 2\n");
    await settle();
    const edit = job(cache, root, files);
    const edited = await runPerFile(edit);
    expect(edit.ran).toEqual([["b.py"]]);
    expect(edited.values.get(files[1] as string)).toBe("b.py 2");
    expect(await writes()).toBe(afterFirst + 1);

    // A new file, in a fresh process's cache (read back from disk): only it runs.
    const added = path.join(root, "e.py");
    write(added, "e.py 1\n");
    await settle();
    const fresh = new ResultCache({ dir, maxBytes: 1 << 24, roots: [root] });
    const grown = job(fresh, root, [...files, added]);
    const out = await runPerFile(grown);
    expect(grown.ran).toEqual([["e.py"]]);
    expect(out.cached).toBe(4);
    expect([...out.values.values()]).toEqual(["a.py 1", "b.py 2", "c.py 1", "d.py 1", "e.py 1"]);
    await fresh.flush();
  });
});
