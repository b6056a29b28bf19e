/**
 * A whole run that names its files before it ends (ruff's `--show-files` beside its check) has them hashed
 * while it still runs (per-file.ts): each file is read once, and the values stored are those of the
 * content the tool saw. A file edited after it was hashed early, while the tool ran, is never stored under
 * the content hashed early: the run is reported uncached, and the next run reads the file again.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ResultCache } from "../../src/cache/result-cache.js";
import { runPerFile, type PerFileJob } from "../../src/cache/per-file.js";
import { tempDir } from "../helpers/tools.js";

/** Writes `text` with an mtime `secondsAgo` in the past (older than the racy window: remembered). */
function write(file: string, text: string, secondsAgo: number) {
  fs.writeFileSync(file, text);
  const t = Date.now() / 1000 - secondsAgo;
  fs.utimesSync(file, t, t);
}

/** A tool whose value for a file is its content's first line, listing its files before it ends. */
function job(
  cache: ResultCache,
  root: string,
  files: string[],
  during: () => void = () => {},
): PerFileJob<string, null> & { runs: number } {
  const j = {
    runs: 0,
    cache,
    kind: "first line",
    identity: {},
    root,
    files: { listing: files.map((f) => path.relative(root, f)) },
    isEmpty: (v: string) => v === "",
    encode: (v: string) => v,
    decode: (stored: unknown) => String(stored),
    async run(
      subset: readonly string[] | undefined,
      _needFiles?: boolean,
      listed?: (f: readonly string[]) => void,
    ) {
      j.runs++;
      const which = subset ?? files;
      // The list first (as --show-files answers before the check does), then the check's reading.
      listed?.(which);
      during();
      const values = new Map(which.map((f) => [f, fs.readFileSync(f, "utf8").split("\n")[0] ?? ""]));
      return { values, meta: null, files: subset ? undefined : [...which] };
    },
  };
  return j;
}

describe("a whole run that names its files early", () => {
  it("hashes them while it runs: each file read once, the values stored and served", async () => {
    const root = tempDir("mcq-listed-early-");
    const files = ["a.py", "b.py", "c.py"].map((n) => path.join(root, n));
    for (const f of files) write(f, `${path.basename(f)} 1\n`, 10);
    // Their ctime past the racy window (50 ms), so that a hash is remembered by the file's stat.
    await new Promise((r) => setTimeout(r, 80));
    const cache = new ResultCache({ maxBytes: 0, roots: [root] });
    let readWhileRunning = -1;
    const first = job(cache, root, files, () => (readWhileRunning = cache.hashes.reads));
    const out = await runPerFile(first);
    // Read as soon as they were named, before the tool ended; not again after it.
    expect(readWhileRunning).toBe(files.length);
    expect(out.ran).toBe("whole");
    expect(out.uncached).toBeUndefined();
    expect(cache.hashes.reads).toBe(files.length);
    expect([...out.values]).toEqual(files.map((f) => [f, `${path.basename(f)} 1`]));
    // The next run is served from what was stored, without a run or a read.
    const again = job(cache, root, files);
    const served = await runPerFile(again);
    expect(again.runs).toBe(0);
    expect(served.cached).toBe(files.length);
    expect(cache.hashes.reads).toBe(files.length);
    expect([...served.values]).toEqual([...out.values]);
  });

  it("never stores a file edited after it was hashed early, while the tool ran", async () => {
    const root = tempDir("mcq-listed-early-");
    const files = ["a.py", "b.py"].map((n) => path.join(root, n));
    for (const f of files) write(f, `${path.basename(f)} 1\n`, 10);
    await new Promise((r) => setTimeout(r, 80));
    const cache = new ResultCache({ maxBytes: 0, roots: [root] });
    const b = files[1] as string;
    // Hashed early as "b.py 1", then edited before the tool reads it: the tool sees "b.py 2".
    const out = await runPerFile(job(cache, root, files, () => fs.writeFileSync(b, "b.py 2\n")));
    expect(out.values.get(b)).toBe("b.py 2");
    expect(out.uncached).toBe("a file changed during the run or just before it");
    // Nothing was stored under the early hash: the next run runs, and answers the file as it is.
    const next = job(cache, root, files);
    const after = await runPerFile(next);
    expect(next.runs).toBe(1);
    expect(after.values.get(b)).toBe("b.py 2");
  });
});
