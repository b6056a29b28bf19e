// Markdown links on real documentation (issue 42): a fresh `check --only links` (bin/mcp-code-quality, from
// its start-up snapshot) against markdown-link-check on rust-lang/book (the whole repository, 478 files)
// and electron's docs/ (298), offline (local links and anchors; external links off for both), side by side,
// interleaved, medians. Ours twice: cold (an empty cache folder every run: every file parsed) and warm (each
// file's parse remembered by its content in the result cache; the links are still resolved every run).
// The broken-link sets are compared: what each reports that the other does not is listed in the notes.
// Projects: bench/lib/real-projects.mjs.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchProjects, loadAverage } from "./lib/real-projects.mjs";
import { timed } from "./lib/timed.mjs";
import { median, ms } from "./stats.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.LINKS_REAL_RUNS ?? 5);
const BIN = path.join(repo, "bin", "mcp-code-quality");
const MLC = path.join(repo, "node_modules", "markdown-link-check", "markdown-link-check");
const MLC_VERSION = JSON.parse(
  fs.readFileSync(path.join(repo, "node_modules", "markdown-link-check", "package.json"), "utf8"),
).version;

/** The folder each project's documentation is checked in, relative to its checkout. */
const DOCS = { book: ".", electron: "docs" };

/** "file → url" of each broken link ours reports (check --json), relative to the folder checked. */
function oursBroken(stdout, base) {
  const out = new Set();
  for (const f of JSON.parse(stdout).findings ?? []) {
    const url = f.message.slice(0, f.message.indexOf(": "));
    out.add(`${path.relative(base, path.resolve(base, f.file)) || f.file} → ${url}`);
  }
  return out;
}

/** The same from markdown-link-check's -q output ("dead link(s) found in FILE !" then "[✖] URL → Status"). */
function mlcBroken(stdout) {
  const out = new Set();
  let file = "";
  for (const line of stdout.split("\n")) {
    const header = /dead links? found in (\S+) !/.exec(line);
    if (header) file = header[1];
    const dead = /\[✖\] (\S+) → Status/.exec(line);
    if (dead) out.add(`${file} → ${dead[1]}`);
  }
  return out;
}

export default async function run() {
  const found = benchProjects(Object.keys(DOCS));
  const rows = [];
  const notes = [];
  const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-links-")), "mlc.json");
  fs.writeFileSync(config, JSON.stringify({ ignorePatterns: [{ pattern: "^https?://" }] }));
  for (const [name, checkout] of Object.entries(found)) {
    const docs = path.join(checkout, DOCS[name]);
    const files = spawnSync("git", ["-C", docs, "ls-files", "--", "*.md"], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean).length;
    const warmCache = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-links-warm-"));
    const envWith = (xdg) => ({ ...process.env, XDG_CACHE_HOME: xdg });
    const ours = [BIN, "check", ".", "--only", "links", "--json"];
    const mlc = [process.execPath, MLC, "-q", "-c", config, "."];
    // Untimed: the warm side's cache filled; both outputs kept for the comparison of what they found.
    const oursOut = spawnSync(ours[0], ours.slice(1), {
      cwd: docs,
      env: envWith(warmCache),
      encoding: "utf8",
    });
    // Its "dead links found in FILE" lines go to stderr, the links to stdout: one stream keeps their order.
    const mlcOut = spawnSync("bash", ["-c", '"$@" 2>&1', "mlc", ...mlc], { cwd: docs, encoding: "utf8" });
    const sides = [
      ["node -e 0", () => timed([process.execPath, "-e", "0"], docs)],
      [`markdown-link-check ${MLC_VERSION}`, () => timed(mlc, docs)],
      [
        "check --only links, cold",
        () => {
          const xdg = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-links-cold-"));
          try {
            return timed(ours, docs, envWith(xdg));
          } finally {
            fs.rmSync(xdg, { recursive: true, force: true });
          }
        },
      ],
      ["check --only links, warm", () => timed(ours, docs, envWith(warmCache))],
    ];
    const samples = new Map(sides.map(([side]) => [side, { wall: [], cpu: [] }]));
    for (let i = 0; i < RUNS; i++)
      for (const [side, measure] of sides) {
        const r = measure();
        samples.get(side).wall.push(r.wall);
        samples.get(side).cpu.push(r.cpu);
      }
    fs.rmSync(warmCache, { recursive: true, force: true });
    const med = (side, what) => median(samples.get(side)[what]);
    const mlcSide = sides[1][0];
    for (const [side] of sides)
      rows.push({
        docs: `${name} (${files} files)`,
        side,
        "wall ms": ms(med(side, "wall")),
        "CPU ms": ms(med(side, "cpu")),
        "markdown-link-check CPU ÷ this": side.startsWith("check")
          ? (med(mlcSide, "cpu") / med(side, "cpu")).toFixed(2)
          : "",
      });
    const a = oursBroken(oursOut.stdout, docs);
    const b = mlcBroken(mlcOut.stdout);
    const onlyOurs = [...a].filter((x) => !b.has(x));
    const onlyMlc = [...b].filter((x) => !a.has(x));
    const some = (list) =>
      list.length ? `${list.slice(0, 12).join("; ")}${list.length > 12 ? "; …" : ""}` : "none";
    notes.push(
      `${name}: broken links (file → url) ours ${a.size}, markdown-link-check ${b.size}, both ${a.size - onlyOurs.length}; ` +
        `only ours (${onlyOurs.length}): ${some(onlyOurs)}; only markdown-link-check (${onlyMlc.length}): ${some(onlyMlc)}`,
    );
  }
  fs.rmSync(path.dirname(config), { recursive: true, force: true });
  notes.push(`load average ${loadAverage()}; ${RUNS} runs each, interleaved; medians`);
  notes.push(
    "CPU: user + system of the process and its children (bash's times); external links off for both",
  );
  return {
    title: "Markdown links on real documentation, a fresh process each (wall and CPU, ms)",
    rows,
    notes,
  };
}
