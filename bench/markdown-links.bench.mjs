// check_markdown_links vs markdown-link-check and linkinator, offline, on two generated trees:
// - a tree of real-documentation shape (bench/lib/docs-tree.mjs: 478 files, mean about 5.6 KiB, up to
//   103 KiB, long prose and code listings, about 3 links a file), all three checkers interleaved, and
//   the same tree at 1x, 2x and 4x for our memory;
// - 2,000 small files with 20,000 internal links and anchors (20 of them broken).
// Ours runs with `check_external: false`; markdown-link-check with a config ignoring http(s) links;
// linkinator (in-process API, its own local server) skipping external links and checking fragments.
// Each checker runs in a fresh child process, which reports its own peak RSS and CPU time
// (bench/lib/peak-rss.mjs); wall time is measured around the child. BENCH_BASELINE_DIST=<dist dir of
// another build> adds that build as one more interleaved row (before/after).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateDocsTree } from "./lib/docs-tree.mjs";
import { median, ms } from "./stats.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const PEAK_RSS = path.join(here, "lib", "peak-rss.mjs");
const OURS = path.join(here, "lib", "check-markdown-links-child.mjs");
const MLC = path.join(here, "..", "node_modules", "markdown-link-check", "markdown-link-check");
const LINKINATOR = path.join(here, "lib", "linkinator-child.mjs");
const versionOf = (pkg) =>
  JSON.parse(fs.readFileSync(path.join(here, "..", "node_modules", pkg, "package.json"), "utf8")).version;
const MLC_VERSION = versionOf("markdown-link-check");
const LINKINATOR_VERSION = versionOf("linkinator");
const BASELINE = process.env.BENCH_BASELINE_DIST;

const SECTIONS = 20;
/** A tree four times larger, for ours only: memory should stay flat as the tree grows. */
const LARGE_SECTIONS = 80;
const PAGES = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const page = (d, i) => `sec${String(d).padStart(2, "0")}/page${String(i).padStart(3, "0")}.md`;

/** One page: 6 headings (one duplicated), some prose, and 10 internal links. */
function pageText(d, i, sections) {
  const next = (i + 1) % PAGES;
  const prev = (i + PAGES - 1) % PAGES;
  const other = (d + 1) % sections;
  const file = (dd, ii) => path.posix.basename(page(dd, ii));
  const otherDir = `../${path.posix.dirname(page(other, i))}`;
  // Page 50 of every section has one broken link, so both tools have something to find.
  const eighth = i === 50 ? "[gone](missing-page.md)" : "[section start](page000.md)";
  const prose =
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore " +
    "et dolore magna aliqua. `[not a link](nowhere.md)` Ut enim ad minim veniam, quis nostrud exercitation.\n";
  return [
    `# Page ${d}-${i}`,
    "",
    prose,
    "## Overview",
    "",
    `See [this overview](#overview) and [the second examples](#examples-1).`,
    `Continue with [the next page](${file(d, next)}) or [its details](${file(d, next)}#details).`,
    "",
    "## Details",
    "",
    prose,
    `Compare [the same page elsewhere](${otherDir}/${file(other, i)}) and [its notes](${otherDir}/${file(other, i)}#notes).`,
    "",
    "## Examples",
    "",
    `Back to [the previous examples](./${file(d, prev)}#examples), ${eighth}, ![logo](../assets/logo.svg).`,
    "",
    "## Examples",
    "",
    `A [reference link][further].`,
    "",
    "## Notes",
    "",
    prose,
    `[further]: ${file(d, (i + 2) % PAGES)}#overview`,
    "",
  ].join("\n");
}

/** `sections` directories of 100 pages each, plus one asset; and markdown-link-check's offline config. */
export function generateTree(sections) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-mdlinks-")));
  fs.mkdirSync(path.join(root, "assets"));
  fs.writeFileSync(path.join(root, "assets", "logo.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
  for (let d = 0; d < sections; d++) {
    fs.mkdirSync(path.join(root, path.dirname(page(d, 0))));
    for (let i = 0; i < PAGES; i++) fs.writeFileSync(path.join(root, page(d, i)), pageText(d, i, sections));
  }
  const config = path.join(root, "..", `${path.basename(root)}-mlc.json`);
  fs.writeFileSync(config, JSON.stringify({ ignorePatterns: [{ pattern: "^https?://" }] }));
  return { root, config };
}

/** Runs `node peak-rss.mjs <args>` in `cwd`; resolves with wall ms, CPU ms, peak RSS and output. */
function measure(args, cwd, env = process.env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [PEAK_RSS, ...args], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      const rss = /PEAK_RSS_KB=(\d+)/.exec(stderr);
      const cpu = /CPU_MS=(\d+)/.exec(stderr);
      if (!rss) return reject(new Error(`no peak RSS from ${args.join(" ")} (exit ${code}): ${stderr}`));
      resolve({
        wallMs,
        cpuMs: Number(cpu?.[1] ?? NaN),
        peakRssMb: Number(rss[1]) / 1024,
        stdout,
        stderr,
        code,
      });
    });
  });
}

function row(label, runs, summarize) {
  return {
    checker: label,
    "wall ms (median)": ms(median(runs.map((r) => r.wallMs))),
    "CPU ms (median)": ms(median(runs.map((r) => r.cpuMs))),
    "peak RSS MiB (median)": ms(median(runs.map((r) => r.peakRssMb))),
    ...summarize(runs[0]),
  };
}

async function series(label, args, cwd, summarize, runCount = RUNS) {
  const runs = [];
  for (let i = 0; i < runCount; i++) runs.push(await measure(args, cwd));
  return row(label, runs, summarize);
}

/** Runs every checker once per round, in turn (interleaved, so drifting machine load hits all alike). */
async function interleaved(checkers, rounds = RUNS) {
  const runs = checkers.map(() => []);
  for (let r = 0; r < rounds; r++)
    for (const [i, c] of checkers.entries()) runs[i].push(await measure(c.args, c.cwd, c.env));
  return checkers.map((c, i) => row(c.label, runs[i], c.summarize));
}

const oursSummary = (r) => {
  const s = JSON.parse(r.stdout.trim().split("\n").pop());
  return { files: s.files, links: s.links, "broken found": s.broken };
};

const mlcSummary = (files) => (r) => ({
  files,
  links: "-",
  "broken found": (r.stdout.match(/\[✖\]/g) ?? []).length,
});

const linkinatorSummary = (files) => (r) => {
  const s = JSON.parse(r.stdout.trim().split("\n").pop());
  return { files, links: s.links, "broken found": s.broken };
};

/** The tree of real-documentation shape: three checkers side by side, then our memory as it grows. */
async function docsTree() {
  const tree = generateDocsTree(1);
  const config = `${tree.root}-mlc.json`;
  fs.writeFileSync(config, JSON.stringify({ ignorePatterns: [{ pattern: "^https?://" }] }));
  const checkers = [
    { label: "check_markdown_links", args: [OURS, tree.root], cwd: tree.root, summarize: oursSummary },
    ...(BASELINE
      ? [
          {
            label: "check_markdown_links (baseline build)",
            args: [OURS, tree.root],
            cwd: tree.root,
            env: { ...process.env, MCQ_DIST: BASELINE },
            summarize: oursSummary,
          },
        ]
      : []),
    {
      label: `markdown-link-check ${MLC_VERSION}`,
      args: [MLC, "-q", "-c", config, "."],
      cwd: tree.root,
      summarize: mlcSummary(tree.files),
    },
    {
      label: `linkinator ${LINKINATOR_VERSION}`,
      args: [LINKINATOR, tree.root],
      cwd: tree.root,
      summarize: linkinatorSummary(tree.files),
    },
  ];
  let rows;
  try {
    rows = await interleaved(checkers);
  } finally {
    fs.rmSync(tree.root, { recursive: true, force: true });
    fs.rmSync(config, { force: true });
  }
  const growth = [];
  for (const copies of [1, 2, 4]) {
    const t = generateDocsTree(copies);
    try {
      const r = await measure([OURS, t.root], t.root);
      const s = JSON.parse(r.stdout.trim().split("\n").pop());
      growth.push({
        tree: `${copies}x (${t.files} files)`,
        "wall ms": ms(r.wallMs),
        "CPU ms": ms(r.cpuMs),
        "peak RSS MiB": ms(r.peakRssMb),
        "heap MiB at end": s.heapMb,
        "broken found": s.broken,
      });
    } finally {
      fs.rmSync(t.root, { recursive: true, force: true });
    }
  }
  return { tree, rows, growth };
}

export default async function run() {
  const docs = await docsTree();
  console.log(
    `\n## Markdown links: documentation-shaped tree, ${docs.tree.files} files, ` +
      `mean ${(docs.tree.bytes / docs.tree.files / 1024).toFixed(1)} KiB, largest ` +
      `${(docs.tree.largest / 1024).toFixed(0)} KiB, ${docs.tree.links} links (${docs.tree.broken} broken), offline\n`,
  );
  console.table(docs.rows);
  console.log(`- ${RUNS} interleaved round(s); each run a fresh Node process; medians.`);
  console.log(
    "- markdown-link-check does not check anchors in other files (half of the planted breaks); " +
      "linkinator counts broken links as it sees them after rendering.",
  );
  console.log("\n## Our memory as the documentation-shaped tree grows (1 run each)\n");
  console.table(docs.growth);

  const files = SECTIONS * PAGES;
  const { root, config } = generateTree(SECTIONS);
  const rows = [];
  try {
    // markdown-link-check walks the directory itself; -q prints only dead links.
    rows.push(
      ...(await interleaved([
        { label: "check_markdown_links", args: [OURS, root], cwd: root, summarize: oursSummary },
        {
          label: `markdown-link-check ${MLC_VERSION}`,
          args: [MLC, "-q", "-c", config, "."],
          cwd: root,
          summarize: mlcSummary(files),
        },
      ])),
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(config, { force: true });
  }
  const large = generateTree(LARGE_SECTIONS);
  try {
    rows.push(await series("check_markdown_links, 4x tree", [OURS, large.root], large.root, oursSummary, 1));
  } finally {
    fs.rmSync(large.root, { recursive: true, force: true });
    fs.rmSync(large.config, { force: true });
  }
  return {
    title: `Markdown links: ${files} small files, 10 internal links and anchors each (offline)`,
    rows,
    notes: [
      `${RUNS} interleaved round(s), each run in a fresh Node process (the 4x tree: 1 run); wall time includes process start-up.`,
      "Peak RSS is the child's own VmHWM (/proc/self/status), its high-water mark since exec.",
      `${SECTIONS} links are broken (one missing file per 100 pages). markdown-link-check does not check ` +
        "anchors in other files (page.md#heading), which make up 4 of every 10 links here.",
      "markdown-link-check runs with a config ignoring ^https?:// (no external links are generated either).",
      "The 4x tree (8,000 files) shows how our memory grows with the tree.",
      "Our link count includes each use of a reference link as well as its definition (11 per page).",
    ],
  };
}
