/**
 * FileHashes reads each file into a reused buffer, sized by the stat it took, not through readFileSync
 * (issue 42): whatever the size (empty, around the buffer's size, larger), the hash is the SHA-256 of the
 * whole content, and the executable bit still marks it.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FileHashes } from "../../src/cache/file-hashes.js";
import { sha256 } from "../../src/cache/hash.js";
import { tempDir } from "../helpers/tools.js";

describe("FileHashes reads", () => {
  it("hashes the whole content of files of every size, one after another", () => {
    const dir = tempDir("mcq-hash-read-");
    const sizes = [0, 1, 4096, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 1_000_000, 7];
    const hashes = new FileHashes();
    const files = sizes.map((size, i) => {
      const file = path.join(dir, `f${i}.py`);
      const content = Buffer.alloc(size, String.fromCharCode(97 + (i % 26)));
      if (size > 2) content.write(`#${i}\n`, size - 3);
      fs.writeFileSync(file, content);
      return { file, content };
    });
    // Interleaved with each other: a view of the shared buffer never outlives its own hash.
    for (const { file, content } of [...files, ...files.reverse()])
      expect(hashes.hashOf(file)).toBe(sha256(content));
    fs.chmodSync(files[0]?.file as string, 0o755);
    expect(hashes.hashOf(files[0]?.file as string)).toBe(`${sha256(files[0]?.content as Buffer)}+x`);
  });
});
