/**
 * ESLint run without its cache deletes the cache file at its default location, `<cwd>/.eslintcache`: the
 * project's own, which `eslint --cache` wrote. A lint is read-only, so it must leave that file alone. The
 * sandbox turned the deletion into a failure ("EROFS ... unlink .eslintcache": a check that failed on any
 * project where someone had run `eslint --cache`); without the sandbox the file was gone.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const ESLINT = path.resolve("node_modules/eslint/bin/eslint.js");

describe.each(["off", "auto"])(
  "lint with ESLint beside the project's .eslintcache (sandbox %s)",
  (sandbox) => {
    it("keeps the cache file and reports what eslint reports", async () => {
      const dir = copyFixture(path.join(FIXTURES, "js", "findings-project"));
      // The project's own cache, written by ESLint itself.
      let direct = "";
      try {
        execFileSync(process.execPath, [ESLINT, "--cache", "--format", "json", "."], {
          cwd: dir,
          encoding: "utf8",
        });
      } catch (err) {
        direct = (err as { stdout: string }).stdout;
      }
      const cache = path.join(dir, ".eslintcache");
      expect(fs.statSync(cache).size).toBeGreaterThan(0);
      const errors = (JSON.parse(direct) as { errorCount: number }[]).reduce((n, f) => n + f.errorCount, 0);
      expect(errors).toBeGreaterThan(0);
      const before = treeHash(dir);

      const s = await connectStdio({ args: ["--allowed-paths", dir, "--sandbox", sandbox], cwd: dir });
      try {
        const r = await s.call("lint", { path: ".", linter: "eslint" });
        expect(r.success).toBe(true);
        expect(r.passed).toBe(false);
        expect((r.summary as { totalErrors: number }).totalErrors).toBe(errors);
      } finally {
        await s.close();
      }
      expect(treeHash(dir)).toEqual(before);
    });
  },
);
