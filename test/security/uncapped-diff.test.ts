/**
 * A dry-run `autoformat` whose diff was 10.9 MB went past the MCP SDK client's 10 MiB buffer and the
 * connection closed. Now no result passes --max-result-bytes (default 1 MiB), whatever the tool; diffs
 * are computed within a memory bound (per file and in total, saying what was left out) and listed within
 * max_result_tokens, cut per file; a listing is cut by its budget before the byte cap would have to.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, resultOf } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** 400 Python files of 10,000 bytes, every line of which ruff format rewrites (`a=1` to `a = 1`): 12 MB of diff. */
function sprawlingProject(): string {
  const dir = tempDir("mcq-bigdiff-");
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "p"\n');
  const body = "a=1\n".repeat(2_500);
  for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(dir, `m${String(i).padStart(3, "0")}.py`), body);
  return dir;
}

describe("result size", () => {
  it("a dry-run diff of many megabytes comes back capped, with what was left out", async () => {
    const dir = sprawlingProject();
    const s = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      const r = await s.client.callTool(
        { name: "autoformat", arguments: { path: dir, dry_run: true } },
        undefined,
        {
          timeout: 300_000,
        },
      );
      const result = resultOf(r);
      expect(result).toMatchObject({ success: true });
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(1024 * 1024);
      // Within the default budget of 8,000 tokens.
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(8000 * 4);
      expect(result.changed_count).toBe(400);
      const diff = result.diff as string;
      // The first file's diff (5,000 lines) is cut, saying how much was shown.
      expect(diff).toMatch(/^--- m000\.py\n\+\+\+ m000\.py\n@@ -1,/);
      expect(diff).toMatch(/\.\.\. \[diff of m000\.py cut: \d+ of \d+ lines shown \(max_result_tokens\)/);
      // One file may take half of the diffs' share: two files, each cut, then the next page.
      expect(result).toMatchObject({ diff_files_listed: 2, diff_files_cut: 2, next_diff_offset: 2 });
      // What the memory bound left uncomputed is said too.
      const notes = result.diff_notes as string[];
      expect(notes.join("\n")).toMatch(
        /\.\.\. \[diffs of \d+ more file\(s\) left out \(the diff budget of 4194304 bytes is spent\)/,
      );
      // Nothing written by a dry run.
      expect(fs.readFileSync(path.join(dir, "m000.py"), "utf8").startsWith("a=1\n")).toBe(true);
    } finally {
      await s.close();
    }
  }, 300_000);

  it("the cap holds for any tool: a long issue list is cut at --max-result-bytes, with counts", async () => {
    const dir = tempDir("mcq-manyissues-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "p"\n');
    fs.writeFileSync(path.join(dir, "imports.py"), "import os\n".repeat(2000));
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--max-result-bytes", "16384"],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      const r = await s.call("lint", { path: dir, linter: "ruff", max_result_tokens: 250_000 });
      expect(r).toMatchObject({ success: true, passed: false });
      expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(16384);
      // The budget never asks for more than the byte cap holds: the listing is trimmed, not cut.
      expect(r.result_capped).toBeUndefined();
      const shown = (r.issues as string[]).length;
      expect(shown).toBeGreaterThan(0);
      expect(r.issue_count as number).toBeGreaterThanOrEqual(2000);
      expect(r).toMatchObject({ truncated: true, next: { offset: 0 } });
    } finally {
      await s.close();
    }
  }, 120_000);
});
