/**
 * FileHashes inside a check run (validationEpoch): a file stat'ed since the run started is not stat'ed
 * again by the run's next tool, and nothing else changes: outside a run, before it, or with reuse off
 * (the check after a tool ran), every call stats the file and sees an edit.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FileHashes, validationEpoch } from "../../src/cache/file-hashes.js";
import { sha256 } from "../../src/cache/hash.js";
import { tempDir } from "../helpers/tools.js";

/** Writes `text` with an mtime a second in the past (older than the racy window, so it is remembered). */
function write(file: string, text: string, secondsAgo: number) {
  fs.writeFileSync(file, text);
  const t = Date.now() / 1000 - secondsAgo;
  fs.utimesSync(file, t, t);
}

describe("validationEpoch", () => {
  it("reuses a stat made during the run, and only then", async () => {
    const file = path.join(tempDir("mcq-epoch-"), "a.py");
    write(file, "x = 1\n", 10);
    const hashes = new FileHashes();
    const first = sha256("x = 1\n");
    expect(hashes.hashOf(file)).toBe(first);
    const edit = () => write(file, "y = 2\n", 5); // Same size, another mtime.
    // A change is remembered once its ctime is older than the racy window (50 ms).
    const settle = () => new Promise((r) => setTimeout(r, 80));
    await settle();

    await validationEpoch.run(process.hrtime.bigint(), async () => {
      // Remembered before the run started: stat'ed again, and the edit is seen.
      edit();
      await settle();
      expect(hashes.hashOf(file, true)).toBe(sha256("y = 2\n"));
      // Stat'ed in this run: the next tool of the run takes it as it was then...
      write(file, "z = 3\n", 2);
      await new Promise((r) => setTimeout(r, 5));
      expect(hashes.hashOf(file, true)).toBe(sha256("y = 2\n"));
      // ...but the check after a run (reuse off) stats it and sees the edit.
      expect(hashes.hashOf(file)).toBe(sha256("z = 3\n"));
      expect(hashes.hashOf(file, true)).toBe(sha256("z = 3\n"));
    });
    // Outside a run, reuse is never taken.
    write(file, "w = 4\n", 1);
    expect(hashes.hashOf(file, true)).toBe(sha256("w = 4\n"));
    // A later run does not trust what an earlier one saw.
    await validationEpoch.run(process.hrtime.bigint(), async () => {
      write(file, "v = 5\n", 0.5);
      expect(hashes.hashOf(file, true)).toBe(sha256("v = 5\n"));
    });
    // A file gone is gone, whatever the run saw.
    await validationEpoch.run(process.hrtime.bigint(), async () => {
      fs.rmSync(file);
      expect(hashes.hashOf(file, true)).toBeUndefined();
    });
  });
});
