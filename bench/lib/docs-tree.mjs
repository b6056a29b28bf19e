// A generated documentation tree of the shape of a real project's docs (the one issue 14 measured:
// 478 Markdown files, mean 5.6 KiB, largest 103 KiB, long prose and code listings, about 3 links a file).
// Deterministic (seeded), so every run and every checker sees the same bytes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const DOCS_FILES = 478;
const DIRS = ["guide", "reference", "reference/api", "howto", "tutorials", "concepts", "internals", "faq"];

/** A small seeded PRNG (mulberry32). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the server configuration value request response handler module option default process thread file " +
  "directory cache index token parser buffer stream event queue worker timeout limit retry error result " +
  "client session context schema field record table column query transaction lock snapshot commit " +
  "rollback journal audit policy rule finding severity message line range offset version release build"
).split(" ");

const CODE = [
  "```python",
  "def handle(request, *, timeout=10):",
  '    """Serve one request; arrays like a[0][1] and dicts {"k": [1, 2]} are common here."""',
  "    items = [x for x in request.items if x.ready]",
  "    table[key][0] = items  # see https://example.com/not-a-link-in-code",
  '    log.info("user@example.com requested %s", request.path)',
  "    return Response(items, status=200)",
  "```",
];
const CODE_TS = [
  "```ts",
  "export async function run(args: string[]): Promise<number> {",
  "  const [first] = args; // [not](a-link.md) inside code",
  "  const grid: number[][] = [[1, 2], [3, 4]];",
  "  return grid[0][1] + Number(first ?? 0);",
  "}",
  "```",
];

export function fileList(copies = 1) {
  const files = [];
  for (let c = 0; c < copies; c++)
    for (let i = 0; i < DOCS_FILES; i++) {
      const dir = DIRS[i % DIRS.length];
      files.push(`${copies > 1 ? `copy${c}/` : ""}${dir}/page-${String(i).padStart(3, "0")}.md`);
    }
  return files;
}

/** Target size in bytes: most files 2-8 KiB, a long tail, one of 103 KiB; mean about 5.6 KiB. */
function sizeOf(i, rand) {
  if (i === 7) return 103 * 1024;
  if (i % 97 === 3) return 30 * 1024 + Math.floor(rand() * 20 * 1024);
  return 1500 + Math.floor(Math.pow(rand(), 1.6) * 6800);
}

function sentence(rand) {
  const n = 8 + Math.floor(rand() * 14);
  const w = [];
  for (let i = 0; i < n; i++) w.push(WORDS[Math.floor(rand() * WORDS.length)]);
  if (rand() < 0.15) w.splice(3, 0, "`" + WORDS[Math.floor(rand() * WORDS.length)] + "()`");
  if (rand() < 0.08) w.splice(5, 0, "(see [1])");
  const s = w.join(" ");
  return s[0].toUpperCase() + s.slice(1) + ".";
}

/** One page with its heading slugs known, so links between pages can name real anchors. */
function page(i, rand) {
  const target = sizeOf(i, rand);
  const lines = [`# Page ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`, ""];
  const headings = [];
  let size = 0;
  let section = 0;
  while (size < target) {
    const h = `${WORDS[(i + section * 3) % WORDS.length]} ${WORDS[(i * 5 + section) % WORDS.length]} ${section}`;
    headings.push(h.toLowerCase().replace(/ /g, "-"));
    const block = [`## ${h[0].toUpperCase()}${h.slice(1)}`, ""];
    const paragraphs = 2 + Math.floor(rand() * 3);
    for (let p = 0; p < paragraphs; p++) {
      const s = [];
      for (let k = 0; k < 3 + Math.floor(rand() * 4); k++) s.push(sentence(rand));
      block.push(s.join(" "), "");
    }
    if (rand() < 0.55) block.push(...(rand() < 0.5 ? CODE : CODE_TS), "");
    if (rand() < 0.1) block.push("| option | default |", "| --- | --- |", "| `timeout` | `10` |", "");
    if (rand() < 0.2) block.push("- first item", "- second item with `code`", "");
    lines.push(...block);
    size += block.join("\n").length;
    section++;
  }
  return { lines, headings };
}

/**
 * Writes the tree (`copies` times the 478 files, each copy in its own folder) and returns its root,
 * the number of links and the broken ones planted (same for every copy).
 */
export function generateDocsTree(copies = 1) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-docs-")));
  const files = fileList(1);
  const rand = rng(14);
  const pages = files.map((_, i) => page(i, rand));
  let links = 0;
  let broken = 0;
  const texts = files.map((file, i) => {
    const { lines } = pages[i];
    const rel = (j) => path.posix.relative(path.posix.dirname(file), files[j]);
    const j = (i * 31 + 7) % files.length;
    const k = (i * 17 + 3) % files.length;
    const out = [...lines];
    // About 3 links a file: another page, an anchor in a third (forward or back), one in this page.
    const linkLines = [`See [the related page](${rel(j)}) for background.`];
    if (i % 2 === 0) linkLines.push(`Details are in [that section](${rel(k)}#${pages[k].headings[0]}).`);
    linkLines.push(`Back to [the first section](#${pages[i].headings[0]}).`);
    if (i % 3 === 0) linkLines.push(`Upstream: [the project site](https://example.com/docs/${i}).`);
    if (i % 40 === 5) {
      linkLines.push(`This [missing page](${rel(j).replace(/\.md$/, "-old.md")}) is gone.`);
      broken++;
    }
    if (i % 40 === 25) {
      linkLines.push(`This [stale anchor](${rel(k)}#no-such-section) is broken.`);
      broken++;
    }
    links += linkLines.length;
    out.splice(4, 0, linkLines.join(" "), "");
    return out.join("\n") + "\n";
  });
  for (let c = 0; c < copies; c++) {
    files.forEach((file, i) => {
      const abs = path.join(root, copies > 1 ? `copy${c}` : "", file);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, texts[i]);
    });
  }
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const largest = Math.max(...texts.map((t) => Buffer.byteLength(t)));
  return {
    root,
    files: files.length * copies,
    links: links * copies,
    broken: broken * copies,
    bytes,
    largest,
  };
}
