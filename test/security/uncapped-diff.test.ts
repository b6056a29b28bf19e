/**
 * A dry-run `autoformat` whose diff was 10.9 MB went past the MCP SDK client's 10 MiB buffer and the
 * connection closed. Now no result passes --max-result-bytes (default 1 MiB), whatever the tool; diffs
 * are capped per file and in total, and say how much was left out.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

type Json = Record<string, unknown>;

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
      const result = r.structuredContent as Json;
      expect(result).toMatchObject({ success: true });
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(1024 * 1024);
      expect(result.changed_files).toHaveLength(400);
      const diff = result.diff as string;
      expect(diff).toMatch(/^--- m000\.py\n\+\+\+ m000\.py\n@@ -1,/);
      expect(diff).toMatch(
        /\.\.\. \[diffs of \d+ more file\(s\) left out \(the diff budget of 524288 bytes is spent\)/,
      );
      expect(diff).toMatch(/: m\d{3}\.py, .*\(\d+ more\)\] \.\.\./);
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
      const r = await s.call("lint", { path: dir, linter: "ruff" });
      expect(r).toMatchObject({ success: true, passed: false });
      expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(16384);
      const capped = r.result_capped as { max_bytes: number; original_bytes: number; entries_dropped: Json };
      expect(capped.max_bytes).toBe(16384);
      expect(capped.original_bytes).toBeGreaterThan(16384);
      const shown = (r.issues as string[]).length;
      expect(shown).toBeGreaterThan(0);
      // The full count is kept; what was dropped is counted.
      expect(r.issue_count as number).toBeGreaterThanOrEqual(2000);
      expect(shown + (capped.entries_dropped.issues as number)).toBeLessThanOrEqual(r.issue_count as number);
      expect((r.notes as string[]).some((n) => n.includes("--max-result-bytes 16384"))).toBe(true);
    } finally {
      await s.close();
    }
  }, 120_000);
});
