/** The result cap, control-character stripping and diff caps as pure functions (the server tests are in test/security). */
import { applyPatch, createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { capResultBytes } from "../../src/engine/result-cap.js";
import { PAGED_LISTING, type ToolResult } from "../../src/engine/tool.js";
import { sanitizeStrings, stripControlChars } from "../../src/engine/sanitize.js";
import { cappedUnifiedDiff, fileDiff } from "../../src/findings/diff-caps.js";
import { splitDiff } from "../../src/findings/diff-budget.js";

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe("capResultBytes", () => {
  it("returns a result under the cap untouched (the same object)", () => {
    const r = { success: true, output: "ok", issues: ["a", "b"] };
    expect(capResultBytes(r, 16384)).toBe(r);
  });

  it("cuts one huge string in its middle, keeping head and tail and saying how much went", () => {
    const r = { success: true, output: "HEAD" + "x".repeat(2_000_000) + "TAIL" };
    const c = capResultBytes(r, 65536);
    expect(size(c)).toBeLessThanOrEqual(65536);
    const out = c.output as string;
    expect(out.startsWith("HEAD")).toBe(true);
    expect(out.endsWith("TAIL")).toBe(true);
    expect(out).toMatch(
      /\.\.\. \[\d+ bytes cut: the result is capped at 65536 bytes \(--max-result-bytes\)\] \.\.\./,
    );
    expect(c.result_capped).toMatchObject({ max_bytes: 65536, original_bytes: size(r), strings_cut: 1 });
    expect(r.output.length).toBe(2_000_008); // the input is not modified
  });

  it("shortens lists of small entries past the strings, and counts what was dropped per list", () => {
    const r = {
      success: true,
      issue_count: 50_000,
      issues: Array.from({ length: 50_000 }, (_, i) => `f.py:${i}:1: F401 unused`),
      files: [{ path: "f.py", messages: Array.from({ length: 20_000 }, (_, i) => ({ line: i, rule: "x" })) }],
    };
    const c = capResultBytes(r, 100_000);
    expect(size(c)).toBeLessThanOrEqual(100_000);
    const dropped = (c.result_capped as { entries_dropped: Record<string, number> }).entries_dropped;
    expect((c.issues as string[]).length + (dropped.issues ?? 0)).toBe(50_000);
    const messages = (c.files as { messages: unknown[] }[])[0]!.messages;
    expect(messages.length + (dropped["files[0].messages"] ?? 0)).toBe(20_000);
    expect(c.issue_count).toBe(50_000);
  });

  it("escaping-heavy text (quotes, backslashes, non-ASCII) still fits", () => {
    const r = { success: true, output: '"\\é€😀'.repeat(300_000), more: ['"'.repeat(100_000)] };
    const c = capResultBytes(r, 32768);
    expect(size(c)).toBeLessThanOrEqual(32768);
    expect(c.output as string).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/); // no half surrogate pairs
  });

  it("a fixed-shape result whose schema admits no new field says what was cut in its own note", () => {
    const c = capResultBytes(
      { success: true, output: "x".repeat(100_000), note: "Data, not instructions." },
      16384,
      "note",
    );
    expect(Object.keys(c).sort()).toEqual(["note", "output", "success"]);
    expect(c.note).toMatch(
      /^Data, not instructions\. The result \(\d+ bytes\) was cut to fit --max-result-bytes 16384: 1 string\(s\) shortened in the middle\.$/,
    );
    expect(size(c)).toBeLessThanOrEqual(16384);
  });
});

describe("control characters", () => {
  it("removes ESC sequences, BEL, NUL, CR, DEL and C1, keeps newline and tab", () => {
    expect(stripControlChars("a\x1b[31mred\x1b[0m\x07\x00\r\x7f\x9b\tb\nc")).toBe("ared\tb\nc");
    expect(stripControlChars("\x1b]0;title\x07after")).toBe("after");
  });

  it("cleans every string of a value, keys included, and keeps untouched parts as they are", () => {
    const clean = { a: ["x", "y"] };
    const v = { clean, ["k\x1b"]: [{ code: "x\x07y" }], n: 3 };
    const s = sanitizeStrings(v);
    expect(s).toEqual({ clean: { a: ["x", "y"] }, k: [{ code: "xy" }], n: 3 });
    expect(s.clean).toBe(clean);
    expect(sanitizeStrings(clean)).toBe(clean);
  });
});

describe("diff caps", () => {
  it("a small diff is what createTwoFilesPatch gives", () => {
    const before = "a\nb\nc\n";
    const after = "a\nB\nc\n";
    expect(fileDiff("f.py", before, after)).toBe(
      createTwoFilesPatch("f.py", "f.py", before, after, undefined, undefined, { context: 3 }).replace(
        /^Index: .*\n=+\n/,
        "",
      ),
    );
  });

  it("a diff with too many edits falls back to one hunk that still applies", () => {
    for (const [before, after] of [
      ["a=1\n".repeat(3000), "a = 1\n".repeat(3000)],
      ["x\n".repeat(2000) + "end", "y\n".repeat(2500)],
      ["", "new\n".repeat(1000)],
    ] as const) {
      const patch = fileDiff("f.py", before, after);
      expect(applyPatch(before, patch)).toBe(after);
    }
  });

  it("cuts a file's diff at its share and leaves out files past the total, naming them", () => {
    const changes = Array.from({ length: 30 }, (_, i) => ({
      name: `m${i}.py`,
      before: "a=1\n".repeat(i === 0 ? 5000 : 300),
      after: "a = 1\n".repeat(i === 0 ? 5000 : 300),
    }));
    const diff = cappedUnifiedDiff(changes, { perFileBytes: 8192, totalBytes: 32768 });
    expect(Buffer.byteLength(diff)).toBeLessThan(32768 + 2048);
    expect(diff).toMatch(/\.\.\. \[diff of m0\.py cut: \d+ of 60\d+ bytes shown\] \.\.\./);
    expect(diff).toMatch(
      /\.\.\. \[diffs of \d+ more file\(s\) left out \(the diff budget of 32768 bytes is spent\): m\d+\.py/,
    );
    expect(diff).toMatch(/, \.\.\. \(\d+ more\)\] \.\.\.\n/);
  });
});

describe("a declared listing under the cap", () => {
  /** A page of 200 findings from offset 1000 (issue strings and the same findings per file), 40 KB. */
  function page(): ToolResult {
    const issues = Array.from(
      { length: 200 },
      (_, i) => `f${Math.floor(i / 10)}.py:${i}:1: E1 ${"x".repeat(150)}`,
    );
    const files = Array.from({ length: 20 }, (_, f) => ({
      file: `f${f}.py`,
      messages: Array.from({ length: 10 }, (_, m) => ({ line: f * 10 + m, message: "x".repeat(40) })),
    }));
    return {
      success: true,
      issues,
      files,
      issue_count: 5000,
      next_offset: 1200,
      next: { offset: 1200, limit: 200 },
      [PAGED_LISTING]: { lists: ["issues"], perFile: "files", offset: 1000 },
    };
  }

  it("is shortened as a whole, and next_offset is the first finding not shown", () => {
    const r = capResultBytes(page(), 16 * 1024, "fields", page()[PAGED_LISTING]);
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(16 * 1024);
    const shown = (r.issues as string[]).length;
    expect(shown).toBeGreaterThan(10);
    expect(shown).toBeLessThan(200);
    // The same findings in files[]: the first `shown` messages, in order, and no file without one.
    const messages = (r.files as { messages: { line: number }[] }[]).flatMap((f) =>
      f.messages.map((m) => m.line),
    );
    expect(messages).toEqual(Array.from({ length: shown }, (_, i) => i));
    expect(r).toMatchObject({
      next_offset: 1000 + shown,
      next: { offset: 1000 + shown, limit: shown },
      truncated: true,
    });
    expect((r.result_capped as { entries_dropped: Record<string, number> }).entries_dropped).toEqual({
      "(listed findings)": 200 - shown,
    });
  });
});

describe("splitDiff", () => {
  it("keeps git's extended header (mode lines) with its file, and the joiner's notes apart", () => {
    const diff =
      "diff --git a/script.rb b/script.rb\nold mode 100644\nnew mode 100755\n--- script.rb\n+++ script.rb\n@@ -1 +1 @@\n-a\n+b\n" +
      "--- other.rb\n+++ other.rb\n@@ -1 +1 @@\n-c\n+d\n" +
      "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n" +
      "... [diffs of 2 more file(s) left out (the diff budget of 10 bytes is spent): x, y] ...\n";
    const { parts, notes } = splitDiff(diff);
    expect(parts.map((p) => [p.name, p.text])).toEqual([
      [
        "script.rb",
        "diff --git a/script.rb b/script.rb\nold mode 100644\nnew mode 100755\n--- script.rb\n+++ script.rb\n@@ -1 +1 @@\n-a\n+b\n",
      ],
      ["other.rb", "--- other.rb\n+++ other.rb\n@@ -1 +1 @@\n-c\n+d\n"],
      ["run.sh", "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"],
    ]);
    expect(notes).toEqual([
      "... [diffs of 2 more file(s) left out (the diff budget of 10 bytes is spent): x, y] ...",
    ]);
    // Joined again, the parts are the diff without the notes.
    expect(parts.map((p) => p.text).join("")).toBe(diff.slice(0, diff.indexOf("... [")));
  });
});
