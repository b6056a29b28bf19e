/**
 * The regression suite of link kinds (issue 14): 56 cases in one tree the test writes, each a link that
 * must pass or must be reported with an exact reason. Missing files, anchors in the same and other
 * files (forward ones too), duplicate-heading suffixes, punctuation, emoji, inline code, Unicode and
 * percent-encoding, reference links, HTML <a href>, <img>, <a id>, <a name>, root-relative links, links
 * in tables and footnotes, links in code that must be ignored, #top, directories, query strings.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const TARGET = [
  "# Target Page",
  "",
  "## Duplicate",
  "## Duplicate",
  "## Duplicate",
  "## Punctuation: what's new? (v2.0)!",
  "## 🚀 Emoji heading",
  "## Inline `code` heading",
  "## Café Ünïcode",
  "## Heading with [a link](../a-links.md) inside",
  '<a id="html-id"></a>',
  '<a name="html-name"></a>',
  '<div id="Div-Id"></div>',
  "",
  "## Forward",
  "",
  "A note[^1].",
  "",
  "[^1]: The note.",
  "",
  "## Custom heading {#custom-id}",
  "",
].join("\n");

type Case = { name: string; md: string[]; broken?: { url: string; error: string; suggestion?: string }[] };
const notFound = (url: string, suggestion?: string) => ({
  url,
  error: "file not found",
  ...(suggestion ? { suggestion } : {}),
});
const noAnchor = (url: string, where?: string, suggestion?: string) => ({
  url,
  error: `anchor #${url.split("#")[1]} not found${where ? ` in ${where}` : ""}`,
  ...(suggestion ? { suggestion } : {}),
});
const T = "docs/target.md";

const CASES: Case[] = [
  { name: "existing file", md: [`[a](${T})`] },
  { name: "missing file", md: ["[a](docs/nope.md)"], broken: [notFound("docs/nope.md")] },
  { name: "own anchor", md: ["[a](#the-links)"] },
  {
    name: "missing own anchor",
    md: ["[a](#the-linkz)"],
    broken: [noAnchor("#the-linkz", undefined, "#the-links")],
  },
  { name: "other file's anchor", md: [`[a](${T}#target-page)`] },
  { name: "missing anchor in other file", md: [`[a](${T}#nope)`], broken: [noAnchor(`${T}#nope`, T)] },
  { name: "duplicate heading -1", md: [`[a](${T}#duplicate-1)`] },
  { name: "duplicate heading -2", md: [`[a](${T}#duplicate-2)`] },
  {
    name: "duplicate heading -3 (only two repeats)",
    md: [`[a](${T}#duplicate-3)`],
    broken: [noAnchor(`${T}#duplicate-3`, T, `${T}#duplicate-1`)],
  },
  { name: "punctuation dropped", md: [`[a](${T}#punctuation-whats-new-v20)`] },
  {
    name: "punctuation kept is wrong",
    md: [`[a](${T}#punctuation-whats-new-v2.0)`],
    broken: [noAnchor(`${T}#punctuation-whats-new-v2.0`, T, `${T}#punctuation-whats-new-v20`)],
  },
  { name: "emoji dropped, its space kept", md: [`[a](${T}#-emoji-heading)`] },
  {
    name: "emoji slug without the dash",
    md: [`[a](${T}#emoji-heading)`],
    broken: [noAnchor(`${T}#emoji-heading`, T, `${T}#-emoji-heading`)],
  },
  { name: "inline code in heading", md: [`[a](${T}#inline-code-heading)`] },
  { name: "Unicode heading", md: [`[a](${T}#café-ünïcode)`] },
  { name: "percent-encoded Unicode fragment", md: [`[a](${T}#caf%C3%A9-%C3%BCn%C3%AFcode)`] },
  {
    name: "ASCII-folded Unicode is wrong",
    md: [`[a](${T}#cafe-unicode)`],
    broken: [noAnchor(`${T}#cafe-unicode`, T, `${T}#café-ünïcode`)],
  },
  { name: "heading containing a link", md: [`[a](${T}#heading-with-a-link-inside)`] },
  { name: "<a id>", md: [`[a](${T}#html-id)`] },
  { name: "<a name>", md: [`[a](${T}#html-name)`] },
  { name: "id on another element, other case", md: [`[a](${T}#div-id)`] },
  {
    name: "missing HTML id",
    md: [`[a](${T}#html-missing)`],
    broken: [noAnchor(`${T}#html-missing`, T)],
  },
  { name: "footnote anchor with GitHub's prefix", md: [`[a](${T}#user-content-fn-1)`] },
  { name: "{#custom-id}", md: [`[a](${T}#custom-id)`] },
  { name: "#top", md: ["[a](#top)"] },
  { name: "#top of another file", md: [`[a](${T}#top)`] },
  { name: "line anchor", md: [`[a](${T}#L3)`] },
  {
    name: "line anchor past the end",
    md: ["[a](src.txt#L9)"],
    broken: [{ url: "src.txt#L9", error: "line 9 is past the end of src.txt (1 line)" }],
  },
  { name: "directory with slash", md: ["[a](docs/sub/dir/)"] },
  { name: "directory without slash", md: ["[a](docs/sub)"] },
  { name: "missing directory", md: ["[a](docs/nodir/)"], broken: [notFound("docs/nodir/")] },
  {
    name: "missing anchor after a query string",
    md: [`[a](${T}?plain=1#nope-q)`],
    broken: [noAnchor(`${T}?plain=1#nope-q`, T)],
  },
  { name: "query string and anchor", md: [`[a](${T}?plain=1#forward)`] },
  { name: "missing file with query", md: ["[a](docs/nope.md?x=1)"], broken: [notFound("docs/nope.md?x=1")] },
  { name: "percent-encoded space", md: ["[a](docs/with%20space.md)"] },
  { name: "space in angle brackets", md: ["[a](<docs/with space.md>)"] },
  {
    name: "wrong percent-encoded name",
    md: ["[a](docs/with%20spaces.md)"],
    broken: [notFound("docs/with%20spaces.md", "docs/with%20space.md")],
  },
  { name: "Unicode file name", md: ["[a](docs/ünï.md)"] },
  { name: "root-relative", md: [`[a](/${T})`] },
  { name: "missing root-relative", md: ["[a](/nope/target.md)"], broken: [notFound("/nope/target.md")] },
  { name: "reference link", md: ["[a][ok-ref]"] },
  {
    name: "broken reference: at use and at definition",
    md: ["[a][bad-ref]"],
    broken: [{ ...notFound("docs/gone.md"), definition: true } as never],
  },
  {
    name: "undefined reference",
    md: ["[a][no-such-label]"],
    broken: [{ url: "[no-such-label]", error: "undefined reference: no definition for this label" }],
  },
  { name: "HTML <a href>", md: [`<a href="${T}">a</a>`] },
  {
    name: "HTML <a href> to a missing .html",
    md: ['<a href="docs/target.html">a</a>'],
    broken: [notFound("docs/target.html", "docs/target.md")],
  },
  { name: "HTML <img>", md: ['<img src="img/logo.png" alt="">'] },
  {
    name: "HTML <img> missing",
    md: ['<img src="img/missing.png" alt="">'],
    broken: [notFound("img/missing.png")],
  },
  { name: "Markdown image", md: ["![a](img/logo.png)"] },
  {
    name: "Markdown image, case differs",
    md: ["![a](img/Logo.png)"],
    broken: [notFound("img/Logo.png", "img/logo.png")],
  },
  {
    name: "link in a table",
    md: ["| col | col |", "| --- | --- |", `| [a](${T}) | [b](docs/nope-table.md) |`],
    broken: [notFound("docs/nope-table.md")],
  },
  {
    name: "link in a footnote",
    md: ["Text[^n].", "", "[^n]: See [a](docs/nope-footnote.md)."],
    broken: [notFound("docs/nope-footnote.md")],
  },
  { name: "link in inline code", md: ["`[a](docs/code.md)`"] },
  { name: "link in fenced code", md: ["```md", "[a](docs/fence.md)", "```"] },
  { name: "link in indented code", md: ["    [a](docs/indented.md)"] },
  { name: "forward cross-file anchor", md: ["[a](z-later.md#later-section)"] },
  {
    name: "missing forward cross-file anchor",
    md: ["[a](z-later.md#nope)"],
    broken: [noAnchor("z-later.md#nope", "z-later.md")],
  },
];

/** The linking file, one case per paragraph, with the line each case starts on. */
function source(): { text: string; lines: number[]; defLine: number } {
  const out = ["# The links", ""];
  const lines: number[] = [];
  for (const c of CASES) {
    lines.push(out.length + 1);
    out.push(...c.md, "");
  }
  out.push(`[ok-ref]: ${T}`);
  const defLine = out.length + 1;
  out.push("[bad-ref]: docs/gone.md", "");
  return { text: out.join("\n"), lines, defLine };
}

describe("the 56 link kinds", () => {
  let root: string;
  let server: Connected;

  beforeAll(async () => {
    root = tempDir("mcq-linkkinds-");
    const files: Record<string, string> = {
      "a-links.md": source().text,
      [T]: TARGET,
      "docs/with space.md": "# Spaced\n",
      "docs/ünï.md": "# Unicode name\n",
      "docs/sub/dir/index.md": "# Index\n",
      "img/logo.png": "not really a png\n",
      "src.txt": "one line\n",
      "z-later.md": "# Later\n\n## Later section\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    server = await connectStdio({ args: ["--allowed-paths", root], cwd: root });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("has 56 cases, 22 of them broken", () => {
    expect(CASES).toHaveLength(56);
    expect(CASES.filter((c) => c.broken).length).toBe(22);
  });

  it("reports exactly the broken ones, each at its line, with no false positive", async () => {
    const r = await server.call("check_markdown_links", { path: "a-links.md", check_external: false });
    const { lines, defLine } = source();
    const expected: Record<string, unknown>[] = [];
    CASES.forEach((c, i) => {
      for (const b of c.broken ?? []) {
        const { definition, ...rest } = b as typeof b & { definition?: boolean };
        const line = (lines[i] as number) + (c.md.length > 1 ? c.md.length - 1 : 0);
        // One entry per broken link (seed 000): a broken reference lists its use's line and its definition's.
        expected.push({
          line,
          lines: definition ? [line, defLine] : [line],
          ...rest,
          ...(definition ? { definition_line: defLine } : {}),
        });
      }
    });
    expected.sort((a, b) => (a.line as number) - (b.line as number));
    const got = (r.broken as Record<string, unknown>[]).map(({ file, column, ...rest }) => {
      expect(file).toBe("a-links.md");
      expect(column).toBeGreaterThan(0);
      return rest;
    });
    expect(got).toEqual(expected);
    expect(r).toMatchObject({ success: true, passed: false, files_checked: 1 });
  });

  it("finds the same when the whole tree is walked (the forward anchor file comes later)", async () => {
    const r = await server.call("check_markdown_links", { path: ".", check_external: false });
    const mine = (r.broken as { file: string }[]).filter((b) => b.file === "a-links.md");
    expect(mine).toHaveLength(22);
    expect((r.broken as { file: string }[]).filter((b) => b.file !== "a-links.md")).toEqual([]);
  });
});
