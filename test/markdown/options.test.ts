/**
 * The options and conveniences of check_markdown_links, each on a tree the test writes: disable
 * comments (markdown-link-check's four spellings and ours), did-you-mean suggestions, link rewriting,
 * anchor case sensitivity, {#custom-id} headings, github.com links into the same repository, reference
 * links reported at use and definition, and the note when the list is capped.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

describe("check_markdown_links options", () => {
  let root: string;
  let server: Connected;
  const check = (args: Record<string, unknown>) =>
    server.call("check_markdown_links", { check_external: false, ...args });

  beforeAll(async () => {
    root = tempDir("mcq-mdopts-");
    write(root, {
      "disable/mlc.md": [
        "# Disable",
        "",
        "[a](gone-1.md)",
        "<!-- markdown-link-check-disable -->",
        "[b](gone-2.md) [c](gone-3.md)",
        "<!-- markdown-link-check-enable -->",
        "[d](gone-4.md)",
        "<!-- markdown-link-check-disable-next-line -->",
        "[e](gone-5.md)",
        "[f](gone-6.md) <!-- markdown-link-check-disable-line -->",
        "[g](gone-7.md)",
        "",
        "```",
        "<!-- markdown-link-check-disable -->",
        "```",
        "[h](gone-8.md)",
        "",
      ].join("\n"),
      "disable/ours.md": [
        "# Ours",
        "",
        "<!-- check-markdown-links-disable-next-line -->",
        "[a](gone-1.md)",
        "[b](gone-2.md) <!-- check-markdown-links-disable-line -->",
        "<!-- check-markdown-links-disable -->",
        "[c](gone-3.md)",
        "<!-- check-markdown-links-enable -->",
        "[d](gone-4.md)",
        "",
      ].join("\n"),
      "suggest/guide.md": "# Guide\n\n## Getting started\n\n## Configuration\n",
      "suggest/README.md": "# Read me\n",
      "suggest/links.md": [
        "# Links",
        "",
        "[html](guide.html#getting-started)",
        "[case](GUIDE.md)",
        "[typo](giude.md)",
        "[no ext](readme)",
        "[anchor typo](guide.md#configuraton)",
        "[own anchor](#link)",
        "[nothing near](zzzz-qqqq.md)",
        "",
      ].join("\n"),
      "book/src/chapter.md": "# Chapter\n\n## Deep section\n",
      "book/src/index.md": [
        "# Book",
        "",
        "[ok](chapter.html#deep-section)",
        "[bad anchor](chapter.html#shallow)",
        "[missing](other.html)",
        "[rooted](/docs/chapter.md)",
        "",
      ].join("\n"),
      "case/doc.md": [
        "# Intro",
        "",
        '<a id="MixedCase"></a>',
        "",
        "[lower](#intro) [upper](#Intro) [id exact](#MixedCase) [id lower](#mixedcase)",
        "",
      ].join("\n"),
      "custom/doc.md": [
        "# Title",
        "",
        "## Installing the tool {#install}",
        "",
        "[custom](#install) [github slug](#installing-the-tool-install) [neither](#installing-the-tool)",
        "",
      ].join("\n"),
      "refs/doc.md": [
        "# Refs",
        "",
        "Use [the spec][spec] and again [the spec][spec], or [spec].",
        "",
        "[spec]: missing-spec.md",
        "",
      ].join("\n"),
    });
    server = await connectStdio({ args: ["--allowed-paths", root], cwd: root });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("honours markdown-link-check's disable comments in all four spellings, not inside code", async () => {
    const r = await check({ path: "disable/mlc.md" });
    expect((r.broken as { url: string }[]).map((b) => b.url)).toEqual([
      "gone-1.md",
      "gone-4.md",
      "gone-7.md",
      "gone-8.md",
    ]);
    expect(r).toMatchObject({ total_links: 8, skipped_links: 4, broken_links: 4 });
    expect(r.notes).toContain("4 link(s) not checked: turned off by disable comments");
  });

  it("honours its own spelling of the same comments", async () => {
    const r = await check({ path: "disable/ours.md" });
    expect((r.broken as { url: string }[]).map((b) => b.url)).toEqual(["gone-4.md"]);
  });

  it("suggests the file or anchor a broken link most likely meant", async () => {
    const r = await check({ path: "suggest/links.md" });
    expect(r.broken).toEqual([
      {
        file: "suggest/links.md",
        line: 3,
        lines: [3],
        column: 1,
        url: "guide.html#getting-started",
        error: "file not found",
        suggestion: "guide.md#getting-started",
      },
      {
        file: "suggest/links.md",
        line: 4,
        lines: [4],
        column: 1,
        url: "GUIDE.md",
        error: "file not found",
        suggestion: "guide.md",
      },
      {
        file: "suggest/links.md",
        line: 5,
        lines: [5],
        column: 1,
        url: "giude.md",
        error: "file not found",
        suggestion: "guide.md",
      },
      {
        file: "suggest/links.md",
        line: 6,
        lines: [6],
        column: 1,
        url: "readme",
        error: "file not found",
        suggestion: "README.md",
      },
      {
        file: "suggest/links.md",
        line: 7,
        lines: [7],
        column: 1,
        url: "guide.md#configuraton",
        error: "anchor #configuraton not found in suggest/guide.md",
        suggestion: "guide.md#configuration",
      },
      {
        file: "suggest/links.md",
        line: 8,
        lines: [8],
        column: 1,
        url: "#link",
        error: "anchor #link not found",
        suggestion: "#links",
      },
      {
        file: "suggest/links.md",
        line: 9,
        lines: [9],
        column: 1,
        url: "zzzz-qqqq.md",
        error: "file not found",
      },
    ]);
  });

  it("rewrites links before checking them, anchors in the rewritten target", async () => {
    const r = await check({
      path: "book/src",
      rewrite: [
        { pattern: "^([^/:]+)\\.html(#|$)", replacement: "$1.md$2" },
        { pattern: "^/docs/", replacement: "/book/src/" },
      ],
    });
    expect(r.broken).toEqual([
      {
        file: "book/src/index.md",
        line: 4,
        lines: [4],
        column: 1,
        url: "chapter.html#shallow",
        error: "anchor #shallow not found in book/src/chapter.md",
      },
      {
        file: "book/src/index.md",
        line: 5,
        lines: [5],
        column: 1,
        url: "other.html",
        error: "file not found",
      },
    ]);
    const without = await check({ path: "book/src" });
    expect((without.broken as unknown[]).length).toBe(4);
  });

  it("refuses a rewrite whose replacement names a group the pattern lacks", async () => {
    const r = await check({ path: "book/src", rewrite: [{ pattern: "(a)", replacement: "$2" }] });
    expect(r).toMatchObject({
      success: false,
      error_type: "invalid_input",
      error: "rewrite[0].replacement refers to group $2, but the pattern has 1",
    });
  });

  it("matches anchors case-insensitively by default, exactly with anchor_case_sensitive", async () => {
    expect(await check({ path: "case/doc.md" })).toMatchObject({ passed: true, total_links: 4 });
    const strict = await check({ path: "case/doc.md", anchor_case_sensitive: true });
    expect((strict.broken as { url: string }[]).map((b) => b.url)).toEqual(["#Intro", "#mixedcase"]);
  });

  it("knows {#custom-id} heading attributes beside GitHub's slug", async () => {
    const r = await check({ path: "custom/doc.md" });
    expect((r.broken as { url: string }[]).map((b) => b.url)).toEqual(["#installing-the-tool"]);
  });

  it("reports a broken reference definition once, with the lines of each use and of the definition", async () => {
    const r = await check({ path: "refs/doc.md" });
    const error = "file not found";
    expect(r).toMatchObject({ broken_links: 4, broken_count: 1 });
    expect(r.broken).toEqual([
      // One entry per broken link (seed 000): its three uses on line 3 and its definition on line 5.
      {
        file: "refs/doc.md",
        url: "missing-spec.md",
        lines: [3, 5],
        error,
        line: 3,
        column: 5,
        definition_line: 5,
      },
    ]);
  });

  it("lists what fits max_result_tokens and says how to page through the rest", async () => {
    const many = Array.from({ length: 520 }, (_, i) => `[x](gone-${i}.md)`).join("\n");
    write(root, { "many/doc.md": `# Many\n\n${many}\n` });
    const r = await check({ path: "many" });
    expect(r).toMatchObject({ broken_count: 520, truncated: true, next: { offset: 0 } });
    const listed = (r.broken as unknown[]).length;
    expect(listed).toBeLessThan(520);
    expect(listed).toBe((r.next as { limit: number }).limit);
    const last = await check({ path: "many", offset: 500, limit: 100 });
    expect((last.broken as { url: string }[]).map((b) => b.url)).toEqual(
      Array.from({ length: 20 }, (_, i) => `gone-${500 + i}.md`),
    );
    expect(last.next_offset).toBeUndefined();
  });
});

describe("github.com links into the same repository", () => {
  it("are checked on disk when the remote is known, others are left to the external check", async () => {
    const repo = tempDir("mcq-mdgh-");
    write(repo, {
      ".git/config": '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:Acme/widgets.git\n',
      "docs/setup.md": "# Setup\n\n## Requirements\n",
      "README.md": [
        "# Widgets",
        "",
        "[ok](https://github.com/acme/widgets/blob/main/docs/setup.md#requirements)",
        "[tree](https://github.com/Acme/widgets/tree/v1.2/docs)",
        "[gone](https://github.com/acme/widgets/blob/main/docs/install.md)",
        "[bad anchor](https://github.com/acme/widgets/blob/main/docs/setup.md#usage)",
        "[other repo](https://github.com/acme/gadgets/blob/main/x.md)",
        "",
      ].join("\n"),
    });
    const s = await connectStdio({ args: ["--allowed-paths", repo], cwd: repo });
    try {
      const r = await s.call("check_markdown_links", { path: ".", check_external: false });
      expect(r.broken).toEqual([
        {
          file: "README.md",
          line: 5,
          lines: [5],
          column: 1,
          url: "https://github.com/acme/widgets/blob/main/docs/install.md",
          error: "file not found",
        },
        {
          file: "README.md",
          line: 6,
          lines: [6],
          column: 1,
          url: "https://github.com/acme/widgets/blob/main/docs/setup.md#usage",
          error: "anchor #usage not found in docs/setup.md",
        },
      ]);
      expect(r).toMatchObject({ total_links: 5, skipped_links: 1 });
      expect(r.notes).toContain("4 link(s) to github.com/Acme/widgets checked on disk");
      const off = await s.call("check_markdown_links", {
        path: ".",
        check_external: false,
        github_links_on_disk: false,
      });
      expect(off).toMatchObject({ passed: true, skipped_links: 5 });
    } finally {
      await s.close();
    }
  });
});
