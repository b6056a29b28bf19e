/**
 * The project config file `.mcp-code-quality/config.yaml` (markdown_links section) through the real
 * server: its settings apply, call arguments override them, a bad file is invalid_input naming the key,
 * and a config directory or file that is a link out of the allowed root is refused and never read.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const DOC = ["# Doc", "", "[old](chapter.html#deep)", "[draft](drafts/x.md)", "[Upper](#Doc)", ""].join("\n");

function project(config: string | undefined): { base: string; root: string } {
  const base = tempDir("mcq-projcfg-");
  const root = path.join(base, "root");
  fs.mkdirSync(path.join(root, "docs"), { recursive: true });
  fs.writeFileSync(path.join(root, "docs", "doc.md"), DOC);
  fs.writeFileSync(path.join(root, "docs", "chapter.md"), "# Chapter\n\n## Deep\n");
  if (config !== undefined) {
    fs.mkdirSync(path.join(root, ".mcp-code-quality"));
    fs.writeFileSync(path.join(root, ".mcp-code-quality", "config.yaml"), config);
  }
  return { base, root };
}

const CONFIG = [
  "markdown_links:",
  "  check_external: false",
  "  ignore_patterns: ['^drafts/']",
  "  rewrite:",
  "    - pattern: '^([^/:]+)\\.html(#|$)'",
  "      replacement: '$1.md$2'",
  "  anchor_case_sensitive: true",
  "",
].join("\n");

describe("project config (.mcp-code-quality/config.yaml)", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const serve = async (root: string) =>
    (s = await connectStdio({ args: ["--allowed-paths", root], cwd: root }));

  it("applies the markdown_links settings, found above the checked path", async () => {
    const { root } = project(CONFIG);
    const r = await (await serve(root)).call("check_markdown_links", { path: "docs" });
    expect(r.broken).toEqual([
      {
        file: "docs/doc.md",
        line: 5,
        lines: [5],
        column: 1,
        url: "#Doc",
        error: "anchor #Doc not found",
        suggestion: "#doc",
      },
    ]);
    expect(r).toMatchObject({ skipped_links: 1, external_urls_checked: 0 });
    expect(r.notes).toContain("project settings read from .mcp-code-quality/config.yaml");
  });

  it("lets call arguments override the file", async () => {
    const { root } = project(CONFIG);
    const r = await (
      await serve(root)
    ).call("check_markdown_links", {
      path: "docs",
      anchor_case_sensitive: false,
      ignore_patterns: [],
      rewrite: [],
    });
    expect((r.broken as { url: string }[]).map((b) => b.url)).toEqual(["chapter.html#deep", "drafts/x.md"]);
  });

  it("without a file the defaults apply", async () => {
    const { root } = project(undefined);
    const r = await (await serve(root)).call("check_markdown_links", { path: "docs", check_external: false });
    expect((r.broken as { url: string }[]).map((b) => b.url)).toEqual(["chapter.html#deep", "drafts/x.md"]);
  });

  it("refuses a bad file with invalid_input naming the key, and a bad pattern in it", async () => {
    for (const [config, message] of [
      ["markdown_links:\n  timeout: 500\n", /config\.yaml: markdown_links\.timeout: /],
      ["markdown_links:\n  ignore_patern: []\n", /config\.yaml: markdown_links: Unrecognized key/],
      ["markdown_links: [unclosed\n", /config\.yaml is not valid YAML/],
      [
        "markdown_links:\n  ignore_patterns: ['(a)\\1']\n",
        /config\.yaml: markdown_links\.ignore_patterns\[0\] is not a valid regular expression/,
      ],
    ] as const) {
      const { root } = project(config);
      const r = await (await serve(root)).call("check_markdown_links", { path: "docs" });
      expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
      expect(r.error).toMatch(message);
      await s?.close();
      s = undefined;
    }
  });
});
