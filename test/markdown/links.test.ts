/**
 * check_markdown_links through the MCP client on the fixture tree (test/fixtures/markdown/links), run
 * offline: relative links, anchors, references, HTML links, .gitignore and exclude, the allowlist.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const FIXTURE = path.join(FIXTURES, "markdown", "links");

/**
 * The broken links of README.md and docs/guide.md, exactly: one record per broken link (seed 000), with every
 * line it is on; `line` and `column` are its first occurrence's.
 */
const README_BROKEN = [
  {
    file: "README.md",
    line: 29,
    lines: [29, 37],
    column: 17,
    url: "docs/missing.md",
    error: "file not found",
  },
  {
    file: "README.md",
    line: 30,
    lines: [30],
    column: 24,
    url: "#no-such-heading",
    error: "anchor #no-such-heading not found",
  },
  {
    file: "README.md",
    line: 31,
    lines: [31],
    column: 25,
    url: "docs/guide.md#nope",
    error: "anchor #nope not found in docs/guide.md",
  },
  {
    file: "README.md",
    line: 32,
    lines: [32],
    column: 22,
    url: "src/example.ts#L99",
    error: "line 99 is past the end of src/example.ts (5 lines)",
  },
  {
    file: "README.md",
    line: 33,
    lines: [33],
    column: 25,
    url: "[nowhere]",
    error: "undefined reference: no definition for this label",
  },
  {
    file: "README.md",
    line: 33,
    lines: [33],
    column: 45,
    url: "[nothing-here]",
    error: "undefined reference: no definition for this label",
  },
  {
    file: "README.md",
    line: 34,
    lines: [34],
    column: 18,
    url: "docs/images/gone.png",
    error: "file not found",
  },
  { file: "README.md", line: 35, lines: [35], column: 18, url: "docs/nothing.md", error: "file not found" },
  {
    file: "README.md",
    line: 35,
    lines: [35],
    column: 56,
    url: "docs/images/none.png",
    error: "file not found",
  },
  {
    file: "README.md",
    line: 36,
    lines: [36],
    column: 22,
    url: "../outside.md",
    error: "resolves outside the allowed paths (not read)",
  },
  {
    file: "README.md",
    line: 41,
    lines: [41],
    column: 1,
    url: "docs/undefined-target.md",
    error: "file not found",
  },
];
const GUIDE_BROKEN = [
  {
    file: "docs/guide.md",
    line: 32,
    lines: [32],
    column: 9,
    url: "#usage-3",
    error: "anchor #usage-3 not found",
    suggestion: "#usage-1",
  },
  {
    file: "docs/guide.md",
    line: 32,
    lines: [32],
    column: 35,
    url: "api.md#classes",
    error: "anchor #classes not found in docs/api.md",
  },
  {
    file: "docs/guide.md",
    line: 32,
    lines: [32],
    column: 72,
    url: "../README.md#nope",
    error: "anchor #nope not found in README.md",
  },
];

describe("check_markdown_links on the fixture tree", () => {
  let base: string;
  let root: string;
  let escapes: string;
  let server: Connected;

  beforeAll(async () => {
    base = tempDir("mcq-mdlinks-");
    root = path.join(base, "root");
    escapes = path.join(base, "escapes");
    fs.cpSync(FIXTURE, root, { recursive: true });
    // Outside every allowed root, as a FIFO: reading it would block, so a test that finishes proves it
    // was never read.
    execFileSync("mkfifo", [path.join(base, "outside.md")]);
    fs.mkdirSync(escapes);
    fs.symlinkSync(path.join(base, "outside.md"), path.join(escapes, "escape.md"));
    // A dangling link among the Markdown files: skipped silently, as seed 000's checker does.
    fs.symlinkSync(path.join(escapes, "nowhere.md"), path.join(escapes, "dangling.md"));
    fs.writeFileSync(
      path.join(escapes, "links.md"),
      "# Escapes\n\n[symlink](escape.md)\n[symlink anchor](escape.md#secret)\n[up](../outside.md#secret)\n" +
        "[rooted](/../outside.md)\n[fine](#escapes)\n",
    );
    server = await connectStdio({ args: ["--allowed-paths", `${root},${escapes}`], cwd: root });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("reports exactly the broken links, with .gitignore and exclude honoured", async () => {
    const r = await server.call("check_markdown_links", {
      path: ".",
      check_external: false,
      exclude: ["drafts/"],
    });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      files_checked: 4,
      total_links: 56,
      broken_links: 15,
      skipped_links: 3,
      broken_count: 14,
    });
    expect(r.broken).toEqual([...README_BROKEN, ...GUIDE_BROKEN]);
  });

  it("walks every Markdown file that is not gitignored when nothing is excluded", async () => {
    const r = await server.call("check_markdown_links", { path: root, check_external: false });
    expect(r.files_checked).toBe(5);
    const files = new Set((r.broken as { file: string }[]).map((b) => b.file));
    expect([...files].sort()).toEqual(["README.md", "docs/guide.md", "drafts/wip.md"]);
    expect(r.broken).toContainEqual({
      file: "drafts/wip.md",
      line: 3,
      lines: [3],
      column: 1,
      url: "nope.md",
      error: "file not found",
    });
  });

  it("checks one file when path is a file", async () => {
    const r = await server.call("check_markdown_links", { path: "docs/guide.md", check_external: false });
    expect(r).toMatchObject({ success: true, passed: false, files_checked: 1, total_links: 15 });
    expect(r.broken).toEqual(GUIDE_BROKEN);
  });

  it("skip_anchors leaves only file-level problems", async () => {
    const r = await server.call("check_markdown_links", {
      path: ".",
      check_external: false,
      exclude: ["drafts/"],
      skip_anchors: true,
    });
    const anchorErrors = new Set([
      "#no-such-heading",
      "docs/guide.md#nope",
      "src/example.ts#L99",
      "#usage-3",
      "../README.md#nope",
      "api.md#classes",
    ]);
    expect(r.broken).toEqual(README_BROKEN.filter((b) => !anchorErrors.has(b.url)));
  });

  it("ignore_patterns are regexes against the link", async () => {
    const r = await server.call("check_markdown_links", {
      path: ".",
      check_external: false,
      exclude: ["drafts/**"],
      ignore_patterns: ["^docs/missing", "outside\\.md$", "#usage-\\d"],
    });
    const ignoredUrls = new Set(["docs/missing.md", "../outside.md", "#usage-3"]);
    expect(r.broken).toEqual([...README_BROKEN, ...GUIDE_BROKEN].filter((b) => !ignoredUrls.has(b.url)));
    // 3 other schemes; docs/missing.md twice, ../outside.md, #usage-1, #usage-2, #usage-3.
    expect(r.skipped_links).toBe(3 + 6);
  });

  it("never follows a link out of the allowed roots, through .. or a symlink; a dangling link file is skipped silently", async () => {
    const r = await server.call("check_markdown_links", { path: escapes, check_external: false });
    const outside = "resolves outside the allowed paths (not read)";
    // Display paths are relative to the project root of the call (here the allowed root `escapes`).
    const file = "links.md";
    expect(r.broken).toEqual([
      { file, line: 3, lines: [3], column: 1, url: "escape.md", error: outside },
      { file, line: 4, lines: [4], column: 1, url: "escape.md#secret", error: outside },
      { file, line: 5, lines: [5], column: 1, url: "../outside.md#secret", error: outside },
      { file, line: 6, lines: [6], column: 1, url: "/../outside.md", error: outside },
    ]);
  });

  it("reports a file too large to read as {file, error}, without reading it", async () => {
    const big = path.join(escapes, "big", "huge.md");
    fs.mkdirSync(path.dirname(big));
    fs.writeFileSync(big, "");
    fs.truncateSync(big, 11 * 1024 * 1024); // sparse: its size is all that is looked at
    const r = await server.call("check_markdown_links", { path: path.dirname(big), check_external: false });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      files_checked: 0,
      broken_links: 0,
      broken_count: 1,
    });
    expect(r.broken).toEqual([{ file: "big/huge.md", error: "larger than 10 MiB; not checked" }]);
  });

  it("refuses a path that is neither a file nor a directory (and does not open it)", async () => {
    const fifo = path.join(escapes, "pipe.md");
    execFileSync("mkfifo", [fifo]);
    const r = await server.call("check_markdown_links", { path: fifo });
    expect(r).toMatchObject({
      success: false,
      error_type: "invalid_input",
      error: "path must be a regular file or a directory",
    });
  });

  it("rejects bad arguments with typed errors and checks nothing", async () => {
    const badRegex = await server.call("check_markdown_links", { path: ".", ignore_patterns: ["(unclosed"] });
    expect(badRegex).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(badRegex.error).toContain("ignore_patterns[0] is not a valid regular expression");

    const control = await server.call("check_markdown_links", {
      path: ".",
      ignore_patterns: ["ok", "a\u0007b"],
    });
    expect(control).toMatchObject({
      success: false,
      error_type: "invalid_input",
      error: "ignore_patterns[1] contains control characters",
    });

    const excludeControl = await server.call("check_markdown_links", { path: ".", exclude: ["docs/\n"] });
    expect(excludeControl).toMatchObject({ success: false, error_type: "invalid_input" });

    const outside = await server.call("check_markdown_links", { path: "../outside.md" });
    expect(outside).toMatchObject({ success: false, error_type: "path_validation" });

    await expect(server.call("check_markdown_links", { path: ".", timeout: 0 })).rejects.toThrow(/timeout/);
    await expect(server.call("check_markdown_links", { path: ".", concurrent: 65 })).rejects.toThrow(
      /concurrent/,
    );
  });
});
