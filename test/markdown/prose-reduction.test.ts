/**
 * The fast path (plain prose set aside before parsing, unused syntax extensions left out) must give
 * exactly what a full parse gives: the same links at the same lines and columns, the same anchors.
 * Compared on real Markdown nobody here wrote (every README, CHANGELOG and doc in node_modules), on
 * this repository's own docs, and on constructs chosen to trip a line-based shortcut.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeMarkdown } from "../../src/adapters/markdown/extract.js";
import { reduceMarkdown, reduceProse } from "../../src/adapters/markdown/prose-reduction.js";
import { extensionsFor } from "../../src/adapters/markdown/syntax.js";
import { REPO_ROOT } from "../helpers/server.js";

function markdownFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) markdownFiles(p, out);
    else if (e.isFile() && /\.(md|markdown)$/i.test(e.name) && fs.statSync(p).size < 100_000) out.push(p);
  }
  return out;
}

const same = (text: string) => {
  const fast = analyzeMarkdown(text);
  const full = analyzeMarkdown(text, { fullParse: true });
  return {
    fast: { ...fast, anchors: [...fast.anchorIndex.anchors] },
    full: { ...full, anchors: [...full.anchorIndex.anchors] },
  };
};

describe("prose reduction", () => {
  it("changes no link or anchor on real Markdown (node_modules and docs/)", () => {
    let files = [
      ...markdownFiles(path.join(REPO_ROOT, "node_modules")),
      ...markdownFiles(path.join(REPO_ROOT, "docs")),
    ];
    expect(files.length).toBeGreaterThan(100);
    // Every fourth file (in a stable order) keeps the test short on a shared machine.
    files = files.sort().filter((_, i) => i % 4 === 0);
    let reducedBytes = 0;
    let totalBytes = 0;
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      totalBytes += text.length;
      reducedBytes += reduceProse(text).length;
      const { fast, full } = same(text);
      expect(fast, file).toEqual(full);
    }
    // It has to pay for itself: real prose is set aside.
    console.log(`${files.length} files, ${totalBytes} bytes, ${reducedBytes} after reduction`);
    expect(reducedBytes).toBeLessThan(totalBytes * 0.9);
  }, 120_000);

  it("keeps whatever could span lines or change a neighbour", () => {
    const tricky = [
      "A paragraph whose code span `starts on this line and",
      "goes on through a plain line of prose that looks inert",
      "until here` and [a link](after-code.md) follows.",
      "",
      "A long label [that spans",
      "several lines of plain words without brackets at all",
      "before closing][ref] is a reference.",
      "",
      "[ref]:",
      "destination-on-next-line.md",
      "",
      "A link whose destination is on the next line: [x](",
      "next-line.md)",
      "",
      "Setext heading text on a long line of plain prose here",
      "=======",
      "",
      "An HTML tag <a",
      "href='split.md' id='split-id'>spanning lines</a> in prose that goes on and on.",
      "",
      "- a list item with a long line of plain prose in it",
      "  continued by more plain prose on an indented line here",
      "",
      "1986\\. A sentence that starts with a number and a dot, escaped.",
      "",
      "Visit www.example.com or mail someone@example.org for plain prose autolinks.",
      "",
      "    an indented code block line of plain prose words here",
      "",
      "A footnote call[^note] in prose.",
      "",
      "[^note]: The note text with plain prose words in it and more.",
      "",
    ].join("\n");
    const { fast, full } = same(tricky);
    expect(fast).toEqual(full);
    expect(full.links.map((l) => l.url)).toEqual(
      expect.arrayContaining(["after-code.md", "destination-on-next-line.md", "next-line.md", "split.md"]),
    );
  });

  it("sets fenced code aside only where a stand-in cannot change the structure", () => {
    const fences = [
      "# Listings",
      "",
      "```rust",
      "let x = [1, 2]; // [not a link](code.md) <a href='code.html'>",
      "---",
      "```",
      "After the fence: [a link](after-fence.md).",
      "",
      "- a list item",
      "",
      "  ```",
      "  [kept as code](list-code.md)",
      "- [the next item](next-item.md)",
      "  ```",
      "",
      "<pre>",
      "```",
      "<a href='in-pre.md'>inside pre</a>",
      "</pre>",
      "",
      "<div>",
      "```",
      "<a href='in-div.md'>inside a div</a>",
      "</div>",
      "",
      "``` info with a ` backtick is a code span, [span-link](span.md)",
      "",
      "~~~",
      "[tilde fenced](tilde.md)",
      "```",
      "still code [x](still.md)",
      "~~~",
      "",
      "> ```",
      "> [quoted code](quoted.md)",
      "> ```",
      "",
      "## After",
      "",
      "````",
      "unclosed [code](unclosed.md) to the end",
    ].join("\n");
    const { fast, full } = same(fences);
    expect(fast).toEqual(full);
    expect(full.links.map((l) => l.url)).toEqual(
      expect.arrayContaining(["after-fence.md", "next-item.md", "in-pre.md", "in-div.md"]),
    );
    expect(reduceProse(fences)).toContain("\na\na\n```\nAfter the fence");
  });

  it("drops stand-ins that repeat the line before and reports links at their source lines", () => {
    const text = [
      "# Title",
      "",
      "Plain prose on a first line that holds nothing a link checker reads,",
      "then a second such line, and a third, all of them one paragraph",
      "that a `Vec<T>` code span or a `[not, a, link]` one does not change.",
      "[a link](first.md) on line 6.",
      "",
      "```rust",
      "fn main() {",
      "",
      "    let v = vec![1, 2]; // [code](code.md)",
      "}",
      "```",
      "",
      "- an item of plain prose",
      "  with a continuation line",
      "  and another",
      "- [second item](second.md)",
      "",
      "    indented code of plain words",
      "    more indented code",
      "",
      "A line after which a link follows on line 24:",
      "[after](after.md)",
    ].join("\n");
    const { fast, full } = same(text);
    expect(fast).toEqual(full);
    expect(full.links.map((l) => [l.url, l.line])).toEqual([
      ["first.md", 6],
      ["second.md", 18],
      ["after.md", 24],
    ]);
    const reduced = reduceMarkdown(text);
    expect(reduced.text.split("\n").length).toBeLessThan(text.split("\n").length - 6);
    expect(reduced.lines?.[reduced.text.split("\n").indexOf("[after](after.md)")]).toBe(24);
  });

  it("parses as written when a fence it set aside is not one (an indented block's closing fence)", () => {
    const text = [
      "Configuration:",
      "",
      " ```js",
      "{ a: 1 }",
      "```",
      "### Invalid",
      "",
      "A heading the parser sees, between two fences [x](between.md).",
      "",
      "```js",
      "code",
      "```",
      "",
      "### Invalid",
    ].join("\n");
    const { fast, full } = same(text);
    expect(fast).toEqual(full);
    expect(full.anchors).toEqual(expect.arrayContaining(["invalid", "invalid-1"]));
    expect(full.links.map((l) => [l.url, l.line])).toEqual([["between.md", 8]]);
  });

  it("keeps what only looks like prose: CRLF setext text, a heading after a BOM, empty items, labels", () => {
    const text = [
      "\uFEFF# Heading after a BOM",
      "",
      "The MIT License (MIT)\r",
      "=====================\r",
      "\r",
      "1.",
      "    [def]: indented-after-empty-item.md",
      "",
      "A collapsed reference [whose label",
      "`spans <lines>` of code",
      "and prose][] is a link.",
      "",
      "[whose label `spans <lines>` of code and prose]: label.md",
      "",
      "[def]: def.md",
    ].join("\n");
    const { fast, full } = same(text);
    expect(fast).toEqual(full);
    expect(full.anchors).toEqual(expect.arrayContaining(["heading-after-a-bom", "the-mit-license-mit"]));
    expect(full.links.map((l) => l.url)).toEqual(expect.arrayContaining(["label.md"]));
  });

  it("drops repeated list items and blank-separated paragraphs of stand-ins, keeping breaks and structure", () => {
    const text = [
      "Intro paragraph of plain prose.",
      "",
      "Second paragraph of plain prose.",
      "",
      "Third paragraph of plain prose.",
      "",
      "* first item of prose",
      "* second item of prose",
      "* third item of prose",
      "",
      "* * *",
      "  [after the break](break.md)",
      "",
      "*Emphasis* at the start of a plain line",
      "_more emphasis_ at the start of a plain line",
      "-not a list item, a word after a dash",
      "",
      "> Quoted prose stays as it is",
      "",
      "- an item",
      "",
      "  a paragraph in the item",
      "",
      "  [in the item](in-item.md)",
    ].join("\n");
    const { fast, full } = same(text);
    expect(fast).toEqual(full);
    expect(full.links.map((l) => [l.url, l.line])).toEqual([
      ["break.md", 12],
      ["in-item.md", 24],
    ]);
    const reduced = reduceMarkdown(text).text.split("\n");
    // The paragraphs and the list of stand-ins between blank lines go (the break at the margin after them
    // closes what they would).
    expect(reduced.slice(0, 4)).toEqual(["a", "", "* * *", "  [after the break](break.md)"]);
    expect(reduced).toContain("* * *");
  });

  it("drops a stand-in paragraph at the margin only where the line after it would close the same blocks", () => {
    const text = [
      "- an item",
      "",
      "Plain prose at the margin closes the item.",
      "",
      "      [indented: code after the paragraph, a link in the item without it](code.md)",
      "",
      "[^note]: A footnote",
      "",
      "More plain prose at the margin.",
      "",
      "    [code after the paragraph](footnote-code.md)",
      "",
      "> A quote",
      "",
      "Prose between the quote and a list.",
      "",
      "* [an item](item.md)",
      "",
      "<!-- a comment",
      "",
      "prose inside the comment",
      "",
      "-->",
      "",
      "Prose before a heading.",
      "",
      "# Heading [with a link](heading.md)",
      "",
      "Prose at the end.",
      "",
      "* A list item of prose at the margin.",
      "",
      "    [in the item; code without it](item-code.md)",
    ].join("\n");
    const { fast, full } = same(text);
    expect(fast).toEqual(full);
    expect(full.links.map((l) => [l.url, l.line])).toEqual([
      ["item.md", 17],
      ["heading.md", 27],
      ["item-code.md", 33],
    ]);
    const reduced = reduceMarkdown(text);
    const lines = reduced.text.split("\n");
    // Kept: the three an indented line follows. Gone: those before `* [an item]`, `-->`, the heading, the end.
    expect(lines.filter((l) => l === "a")).toHaveLength(2);
    expect(lines).toContain("* a");
    expect(reduced.lines?.[lines.indexOf("# Heading [with a link](heading.md)")]).toBe(27);
  });

  it("reads each kind of literal autolink only in a text that has what it needs", () => {
    const texts = [
      "Plain words, then https://example.com/a and http://x.org/b in prose; no at sign, no w-w-w.",
      "Only www.example.com/path here, and WWW.Example.org too (no at sign, no scheme).",
      "Only mail: someone@example.org, and a handle @name, and user@host without a dot.",
      "All three: www.a.com, https://b.com and c@d.org, [a link](x.md) <https://e.com>.",
      "[a label http://inside.com](dest.md) and [w](www.not-literal.com) and `www.in.code`",
    ];
    for (const text of texts) {
      const { fast, full } = same(text);
      expect(fast, text).toEqual(full);
    }
    const urls = (text: string) => analyzeMarkdown(text).links.map((l) => l.url);
    expect(urls(texts[0] as string)).toEqual(["https://example.com/a", "http://x.org/b"]);
    expect(urls(texts[1] as string)).toEqual(["http://www.example.com/path", "http://WWW.Example.org"]);
    expect(urls(texts[2] as string)).toEqual(["mailto:someone@example.org"]);
    // The e-mail construct, tried at every word, is left out where there is no `@`.
    const startsOfWords = (text: string) =>
      extensionsFor(text)
        .flatMap((e) => Object.keys(e.text ?? {}))
        .map(Number);
    expect(startsOfWords(texts[0] as string).sort((a, b) => a - b)).toEqual([72, 104]);
    expect(startsOfWords(texts[1] as string).sort((a, b) => a - b)).toEqual([87, 119]);
    expect(startsOfWords(texts[2] as string)).toContain(97);
  });
});
