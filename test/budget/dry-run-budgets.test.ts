/**
 * Issue 30: dry runs of 5,000 findings keep within max_result_tokens, diffs included (cut per file, paged by
 * file), and their issue_count is what can be paged; context_lines snippets, notes and lint_check's advice
 * are counted.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { pageThrough, prettierProject, pythonProject, tokens, type Json } from "./projects.js";

const noRuff = missing("ruff", [TOOLS_VENV_BIN]);

describe("dry runs, snippets, notes and advice within max_result_tokens", () => {
  let root: string;
  let s: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-dry-");
    pythonProject(path.join(root, "py"));
    prettierProject(path.join(root, "fmt"));
    s = await connectStdio({
      args: ["--allowed-paths", root, "--rate-limit", "false"],
      cwd: root,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(noRuff)("lint_fix dry run of 5,000 findings: within 8,000 tokens, diffs counted", async () => {
    const dir = path.join(root, "py");
    const r = await s.call("lint_fix", { path: dir, dry_run: true, safety: "unsafe" });
    expect(tokens(r)).toBeLessThanOrEqual(8000);
    expect(r.diff_file_count).toBe(200);
    expect(r.diff_files_listed as number).toBeLessThan(200);
    expect(r.next_diff_offset).toBe(r.diff_files_listed);
    // Diffs are listed once (in `diff`), not again per file; the changed files are counted in full.
    expect((r.files as Json[]).every((f) => f.diff === undefined)).toBe(true);
    expect(r.changed_count).toBe(200);
    // Nothing was written.
    expect(fs.readFileSync(path.join(dir, "m000.py"), "utf8")).toMatch(/^import mod_0\n/);
  });

  it.skipIf(noRuff)(
    "a dry run pages through every file's diff once, and through every problem left",
    async () => {
      const dir = path.join(root, "small");
      // Each page repeats the first diff page beside its findings, so a 1,000-token page holds about one
      // finding: 6 files (30 findings left) keep the walk short.
      pythonProject(dir, 6);
      const args = { path: dir, dry_run: true, max_result_tokens: 1000 };
      const names: string[] = [];
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const page = await s.call("lint_fix", { ...args, diff_offset: offset });
        expect(tokens(page)).toBeLessThanOrEqual(1000);
        names.push(...[...(page.diff as string).matchAll(/^\+\+\+ (\S+)/gm)].map((m) => m[1] as string));
        offset = page.next_diff_offset as number | undefined;
        if (offset !== undefined) expect(offset).toBe(names.length);
        expect(names.length).toBeLessThanOrEqual(6);
      }
      expect(new Set(names).size).toBe(6);
      expect(names).toHaveLength(6);
      // ruff's safe fixes take the unused imports; the 30 `== None` are left, and all of them can be paged.
      const left = await pageThrough(
        s,
        "lint_fix",
        args,
        500,
        (r) => {
          expect(tokens(r)).toBeLessThanOrEqual(1000);
          expect(r.issue_count).toBe(30);
        },
        (r) => r.issues as unknown[],
      );
      expect(left).toHaveLength(30);
      expect(new Set(left).size).toBe(30);
    },
    120_000,
  );

  it.skipIf(noRuff)("fix_all and autoformat dry runs: within the budget, diffs counted", async () => {
    const dir = path.join(root, "py");
    const all = await s.call("fix_all", {
      path: dir,
      dry_run: true,
      safety: "unsafe",
      max_result_tokens: 4000,
    });
    expect(tokens(all)).toBeLessThanOrEqual(4000);
    expect(all.diff_file_count as number).toBeGreaterThanOrEqual(200);
    const fmt = await s.call("autoformat", { path: dir, dry_run: true, max_result_tokens: 2000 });
    expect(tokens(fmt)).toBeLessThanOrEqual(2000);
  });

  it.skipIf(noRuff)("context_lines: snippets are counted, so fewer findings fit", async () => {
    const dir = path.join(root, "py");
    const plain = await s.call("lint", { path: dir, max_result_tokens: 4000 });
    const snippets = await s.call("lint", { path: dir, max_result_tokens: 4000, context_lines: 5 });
    expect(tokens(plain)).toBeLessThanOrEqual(4000);
    expect(tokens(snippets)).toBeLessThanOrEqual(4000);
    expect((snippets.issues as unknown[]).length).toBeLessThan((plain.issues as unknown[]).length);
    expect(snippets.findings).toHaveLength((snippets.issues as unknown[]).length);
  });

  it("format_check: 300 Prettier notes are budgeted, said once, and prettier is named once", async () => {
    const r = await s.call("format_check", { path: path.join(root, "fmt"), max_result_tokens: 2000 });
    expect(tokens(r)).toBeLessThanOrEqual(2000);
    expect(r.summary_text).toBe("prettier: 2 files would be reformatted");
    const notes = r.notes as string[];
    expect(new Set(notes).size).toBe(notes.length);
    expect(notes.at(-1)).toMatch(
      /^\.\.\. \d+ more note\(s\) left out to keep the result within max_result_tokens$/,
    );
  });

  it.skipIf(noRuff)("lint_check: the advice of the listed rules is counted too", async () => {
    for (const budget of [1000, 3000]) {
      const r = await s.call("lint_check", { path: path.join(root, "py"), max_result_tokens: budget });
      expect(tokens(r)).toBeLessThanOrEqual(budget);
      expect(r.finding_count).toBe(5000);
    }
  });
});
