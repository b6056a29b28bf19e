/**
 * A tool's file list kept in the result cache (per-file.ts): read back as paths inside the project, and never
 * a path outside it, whatever the cache holds (a shared cache's entry is another machine's word): such a list
 * is not used, the request runs whole, and no file outside the project is hashed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ResultCache } from "../../src/cache/result-cache.js";
import { runPerFile, type PerFileJob, type PerFileRun } from "../../src/cache/per-file.js";
import { tempDir } from "../helpers/tools.js";

function write(file: string, text: string) {
  fs.writeFileSync(file, text);
  const t = Date.now() / 1000 - 10;
  fs.utimesSync(file, t, t);
}

/** A tool that lists its files itself (as ruff does): its value for a file is the file's first line. */
function listingJob(cache: ResultCache, root: string, files: string[]) {
  const runs: (string[] | "whole")[] = [];
  const job: PerFileJob<string, null> = {
    cache,
    kind: "first line, listed",
    identity: {},
    root,
    files: { listing: ["listing of", root] },
    isEmpty: (v) => v === "",
    encode: (v) => v,
    decode: (stored) => String(stored),
    run(subset): Promise<PerFileRun<string, null>> {
      runs.push(subset ? subset.map((f) => path.basename(f)) : "whole");
      const which = subset ?? files;
      return Promise.resolve({
        values: new Map(which.map((f) => [f, fs.readFileSync(f, "utf8").split("\n")[0] ?? ""])),
        meta: null,
        files: subset ? undefined : [...files],
      });
    },
  };
  return { job, runs };
}

describe("a cached file list", () => {
  it("is used while its paths are inside the project; one naming a file outside it is not", async () => {
    const top = tempDir("mcq-per-file-list-");
    const root = path.join(top, "project");
    fs.mkdirSync(root);
    const files = ["a.py", "b.py"].map((n) => path.join(root, n));
    for (const f of files) write(f, `${path.basename(f)}\n`);
    write(path.join(top, "outside.py"), "secret\n");
    await new Promise((r) => setTimeout(r, 80));
    const cache = new ResultCache({
      dir: tempDir("mcq-per-file-list-cache-"),
      maxBytes: 1 << 24,
      roots: [root],
    });
    // The key the list is kept under: the one array of paths the cache is given.
    const lists: string[] = [];
    const put = cache.put.bind(cache);
    cache.put = (key, value, options) => {
      if (Array.isArray(value) && value.every((v) => typeof v === "string")) lists.push(key);
      put(key, value, options);
    };

    const first = listingJob(cache, root, files);
    await runPerFile(first.job);
    expect(first.runs).toEqual(["whole"]);
    expect(lists).toHaveLength(1);
    const listKey = lists[0] as string;
    expect(cache.getLocal(listKey)).toEqual(["a.py", "b.py"]);

    // Warm: the list from the cache, nothing run.
    const warm = listingJob(cache, root, files);
    expect((await runPerFile(warm.job)).cached).toBe(2);
    expect(warm.runs).toEqual([]);

    for (const poisoned of [["a.py", "../outside.py"], [path.join(top, "outside.py")], ["a.py", ".."]]) {
      cache.put(listKey, poisoned);
      const run = listingJob(cache, root, files);
      const outcome = await runPerFile(run.job);
      expect(run.runs).toEqual(["whole"]);
      expect(outcome.files).toEqual(files);
      expect(cache.hashes.mtimeMsOf(path.join(top, "outside.py"))).toBeUndefined();
    }
  });
});
