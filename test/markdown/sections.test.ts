/**
 * A Markdown text parsed a section at a time (cut before each ATX heading at the margin) must give what the
 * whole parse gives; where a cut is not one (a block left open across it) or a definition could resolve
 * differently, the text is parsed whole.
 */
import { parse, postprocess, preprocess } from "micromark";
import { describe, expect, it } from "vitest";
import { analyzeMarkdown } from "../../src/adapters/markdown/extract.js";
import { closedComment, leavesBlockOpen, sectionStarts } from "../../src/adapters/markdown/sections.js";

/** Lines the prose reduction keeps (each holds a link), so that sections are long enough to be cut. */
const lines = (n: number, text = "plain") => Array.from({ length: n }, (_, i) => `${text} [${i}](${i}.md)`);

/** What analyzeMarkdown reports, fast (by section) and as the whole parse. */
function both(text: string) {
  const view = (d: ReturnType<typeof analyzeMarkdown>) => ({ ...d, anchors: [...d.anchorIndex.anchors] });
  return { fast: view(analyzeMarkdown(text)), full: view(analyzeMarkdown(text, { fullParse: true })) };
}

function sectionEvents(text: string, from: number, to: number) {
  return postprocess(
    parse()
      .document()
      .write(preprocess()(text.slice(from, to), undefined, true)),
  );
}

describe("markdown sections", () => {
  it("cuts before ATX headings at the margin, not in fences or comments, after enough lines", () => {
    const text = [
      "# Title", // 1
      ...lines(20), // 2-21
      "## Cut here", // 22
      "```", // 23
      "# in a fence", // 24
      "```", // 25
      ...lines(20), // 26-45
      "<!--", // 46
      "# in a comment", // 47
      "-->", // 48
      "  # indented, no cut", // 49
      "#not-a-heading", // 50
      "### Cut again", // 51
      "# too soon", // 52
    ].join("\n");
    const starts = sectionStarts(text, 16);
    expect(starts.map((s) => s.line)).toEqual([1, 22, 51]);
    for (const s of starts) expect(text.slice(s.offset).split("\n")[0]).toMatch(/^#/);
    expect(sectionStarts(text, 1).map((s) => s.line)).toEqual([1, 22, 51, 52]);
  });

  it("sees a block the next heading would continue", () => {
    const open = (section: string) =>
      leavesBlockOpen(
        sectionEvents(section, 0, section.length),
        section,
        { offset: 0, line: 1 },
        section.length,
      );
    expect(open("text\n\n```\ncode\n")).toBe(true);
    expect(open("text\n\n```\ncode\n```\n\n")).toBe(false);
    expect(open("<div>\nhtml\n")).toBe(true);
    expect(open("<div>\nhtml\n\n")).toBe(false);
    expect(open("<!--\ncomment\n\n")).toBe(true);
    expect(open("<!--\ncomment\n-->\n")).toBe(false);
    expect(open("<?php\n?>\n")).toBe(true);
    expect(open("- item\n\n  ```\n  code\n\nafter\n")).toBe(false);
    expect(closedComment("<!-- one line -->")).toBe(true);
    expect(closedComment("<!-->")).toBe(false);
    expect(closedComment("<div>-->")).toBe(false);
  });

  it("gives what the whole parse gives, across sections and where a cut is not one", () => {
    const text = [
      "# Title",
      "",
      "A [shortcut] and [full][later] and [in-list] reference, [foo](#foo-1), [dup](#title-1).",
      "",
      "- an item using [quoted]",
      ...lines(16),
      "# Title",
      "",
      "- an item",
      "  [in-list]: defined-in-a-list.md",
      "",
      "> [quoted]: defined-in-a-quote.md",
      "> lazy quote line",
      ...lines(16),
      "# Foo",
      "",
      "[later]: defined-later.md",
      "[shortcut]: shortcut.md",
      "<div>",
      ...lines(16, "html"),
      "# Foo",
      "",
      " ```",
      ...lines(16, "code [x](in-code.md)"),
      "# Foo in code",
      " ```",
      "",
      "Setext [heading](setext.md)",
      "===",
      ...lines(16),
      "<!--",
      "# Foo in a comment",
      "-->",
      "# Foo",
      "[end](end.md)",
    ].join("\n");
    const { fast, full } = both(text);
    expect(fast).toEqual(full);
    expect(full.links.map((l) => l.url)).toEqual(
      expect.arrayContaining([
        "defined-later.md",
        "shortcut.md",
        "defined-in-a-quote.md",
        "setext.md",
        "end.md",
      ]),
    );
    expect(full.anchors).toEqual(
      expect.arrayContaining(["title", "title-1", "foo", "foo-1", "setext-heading"]),
    );
  });

  it("reads every section's blocks, and so its definitions, before any section's inline text", () => {
    const text = ["# One", "", "- a [late] use", ...lines(16), "# Two", "", "- [late]: late.md", ""].join(
      "\n",
    );
    const { fast, full } = both(text);
    expect(full.links.map((l) => [l.url, l.kind, l.line])).toContainEqual(["late.md", "reference", 3]);
    expect(fast).toEqual(full);
  });
});
