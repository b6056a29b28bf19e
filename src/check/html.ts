/**
 * `check --html FILE`: one self-contained page (no network: its CSS, script, data and charts are inline)
 * that a person reads instead of the terminal: totals, what ran and what was skipped (and why), findings by
 * rule and by file with the code around each, and the findings of each tool over the retained runs as SVG
 * charts (traces in `.mcp-cache/lint-runs/`, kept with `--retain-traces true`: src/traces/lint-runs.ts).
 *
 * The summary, the tables and the charts are static HTML; the findings are data (JSON in the page) that its
 * script shows a page of rows at a time, by file or by rule, with a filter, so 20,000 findings load at once
 * (bench/html-report.bench.mjs). Every text from a tool or a file goes into the page escaped, and into the
 * DOM through textContent. Written race-safe, never through a link (output.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { readFileIn, listDirIn } from "../paths/safe-fs.js";
import { isWithin } from "../paths/allowlist.js";
import { LINT_RUNS_DIR, TRACE_PROPERTY } from "../traces/lint-runs.js";
import type { CheckOutcome, FindingRow, Level } from "./outcome.js";
import { writeOutputFile } from "./output.js";
import type { FixLine } from "./report.js";
import { levelCounts, seconds } from "./report.js";

/** Lines shown above and below a finding's line. */
const CONTEXT_LINES = 2;
/** Source files read for snippets: each at most this size, and this much in all. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
const MAX_SNIPPET_BYTES = 16 * 1024 * 1024;
const MAX_LINE_CHARS = 400;
/** Retained traces read for the charts (the newest), and their size each. */
const MAX_TRACES = 200;
const MAX_TRACE_BYTES = 32 * 1024 * 1024;
/** Points per chart. */
const MAX_POINTS = 60;

const LEVELS: Level[] = ["error", "warning", "note"];

export interface HtmlInput {
  outcomes: readonly CheckOutcome[];
  fixes?: readonly FixLine[];
  elapsedMs: number;
  exitCode: number;
  cwd: string;
  /** The paths checked (files or folders): snippets are read inside them or the working directory. */
  paths: readonly string[];
  version: string;
  now: Date;
}

/** One point of a trend: when, and the findings by level. */
export interface TrendPoint {
  at: string;
  counts: Record<Level, number>;
  /** This check, not a retained run. */
  current?: boolean;
}

export interface Trend {
  tool: string;
  points: TrendPoint[];
}

/** The page's data: what its script renders. Findings are arrays to keep 20,000 of them small. */
export interface PageData {
  files: string[];
  rules: { tool: string; rule: string; docs?: string }[];
  /** [file index, line, column, level index, rule index, message] */
  findings: [number, number, number, number, number, string][];
  /** Per file index: windows of source lines, [first line number, lines]. */
  snippets: Record<number, [number, string[]][]>;
}

/** HTML text escaped for element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON for a <script> element: no `</script>` or `<!--` can end or change it. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** The page's data from the outcomes; `source` gives a file's text (or undefined) for its snippets. */
export function pageData(
  outcomes: readonly CheckOutcome[],
  source: (file: string) => string | undefined,
): PageData {
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const rules: PageData["rules"] = [];
  const ruleIndex = new Map<string, number>();
  const findings: PageData["findings"] = [];
  const linesByFile = new Map<number, Set<number>>();
  for (const o of outcomes)
    for (const f of o.findings) {
      let fi = fileIndex.get(f.file);
      if (fi === undefined) {
        fi = files.push(f.file) - 1;
        fileIndex.set(f.file, fi);
      }
      const key = `${f.tool}\0${f.rule_id}`;
      let ri = ruleIndex.get(key);
      if (ri === undefined) {
        ri = rules.push({ tool: f.tool, rule: f.rule_id, ...(f.docs_url ? { docs: f.docs_url } : {}) }) - 1;
        ruleIndex.set(key, ri);
      }
      findings.push([fi, f.line, f.column, LEVELS.indexOf(f.level), ri, f.message]);
      if (f.line > 0) {
        const wanted = linesByFile.get(fi) ?? new Set<number>();
        wanted.add(f.line);
        linesByFile.set(fi, wanted);
      }
    }
  findings.sort((a, b) => files[a[0]]!.localeCompare(files[b[0]]!) || a[1] - b[1] || a[2] - b[2]);
  const snippets: PageData["snippets"] = {};
  let budget = MAX_SNIPPET_BYTES;
  for (const [fi, wanted] of linesByFile) {
    if (budget <= 0) break;
    const text = files[fi] ? source(files[fi] as string) : undefined;
    if (text === undefined) continue;
    const lines = text.split(/\r?\n/);
    const windows: [number, string[]][] = [];
    let last = 0;
    for (const line of [...wanted].sort((a, b) => a - b)) {
      const from = Math.max(1, line - CONTEXT_LINES, last + 1);
      const to = Math.min(lines.length, line + CONTEXT_LINES);
      if (from > to) continue;
      const shown = lines
        .slice(from - 1, to)
        .map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l));
      const prev = windows.at(-1);
      if (prev && prev[0] + prev[1].length === from) prev[1].push(...shown);
      else windows.push([from, shown]);
      for (const l of shown) budget -= l.length + 1;
      last = to;
    }
    snippets[fi] = windows;
  }
  return { files, rules, findings, snippets };
}

/**
 * The trends: one per tool, from the retained traces' SARIF runs (oldest first), then this check's own point
 * unless its traces are among them (check --retain-traces true writes them as it runs).
 */
export function trendsOf(
  traces: readonly { created: string; runs: { tool: string; levels: Level[] }[] }[],
  outcomes: readonly CheckOutcome[],
  now: Date,
  startedAt: Date,
): Trend[] {
  const byTool = new Map<string, TrendPoint[]>();
  const add = (tool: string, point: TrendPoint) => byTool.set(tool, [...(byTool.get(tool) ?? []), point]);
  const since = startedAt.toISOString();
  const retainedNow = new Set<string>();
  for (const t of [...traces].sort((a, b) => a.created.localeCompare(b.created)))
    for (const run of t.runs) {
      const counts = { error: 0, warning: 0, note: 0 };
      for (const l of run.levels) counts[l]++;
      add(run.tool, { at: t.created, counts, ...(t.created >= since ? { current: true } : {}) });
      if (t.created >= since) retainedNow.add(run.tool);
    }
  const current = new Map<string, Record<Level, number>>();
  for (const o of outcomes) {
    if (o.status !== "passed" && o.status !== "findings") continue;
    for (const run of o.sarif?.runs ?? [])
      if (!current.has(run.tool.driver.name))
        current.set(run.tool.driver.name, { error: 0, warning: 0, note: 0 });
    for (const f of o.findings) {
      const counts = current.get(f.tool) ?? { error: 0, warning: 0, note: 0 };
      counts[f.level]++;
      current.set(f.tool, counts);
    }
  }
  for (const [tool, counts] of current)
    if (!retainedNow.has(tool)) add(tool, { at: now.toISOString(), counts, current: true });
  return [...byTool]
    .map(([tool, points]) => ({ tool, points: points.slice(-MAX_POINTS) }))
    .sort((a, b) => a.tool.localeCompare(b.tool));
}

/** A small line chart of a trend's findings (total, and errors), inline SVG. */
export function trendSvg(trend: Trend): string {
  const w = 320;
  const h = 96;
  const pad = { l: 34, r: 8, t: 8, b: 18 };
  const totals = trend.points.map((p) => p.counts.error + p.counts.warning + p.counts.note);
  const max = Math.max(1, ...totals);
  const x = (i: number) =>
    pad.l +
    (trend.points.length === 1
      ? (w - pad.l - pad.r) / 2
      : (i * (w - pad.l - pad.r)) / (trend.points.length - 1));
  const y = (v: number) => pad.t + (h - pad.t - pad.b) * (1 - v / max);
  const line = (values: number[], cls: string) =>
    `<polyline class="${cls}" fill="none" points="${values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>` +
    values
      .map(
        (v, i) =>
          `<circle class="${cls}" cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5"><title>${escapeHtml(`${trend.points[i]!.at}${trend.points[i]!.current ? " (this check)" : ""}: ${v}`)}</title></circle>`,
      )
      .join("");
  const first = trend.points[0]!.at.slice(0, 10);
  const last = trend.points.at(-1)!.at.slice(0, 10);
  return [
    `<svg class="trend" role="img" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" aria-label="${escapeHtml(`${trend.tool}: findings over ${trend.points.length} runs`)}">`,
    `<line class="axis" x1="${pad.l}" y1="${h - pad.b}" x2="${w - pad.r}" y2="${h - pad.b}"/>`,
    `<line class="axis" x1="${pad.l}" y1="${pad.t}" x2="${pad.l}" y2="${h - pad.b}"/>`,
    `<text class="tick" x="${pad.l - 4}" y="${pad.t + 8}" text-anchor="end">${max}</text>`,
    `<text class="tick" x="${pad.l - 4}" y="${h - pad.b}" text-anchor="end">0</text>`,
    `<text class="tick" x="${pad.l}" y="${h - 4}">${escapeHtml(first)}</text>`,
    `<text class="tick" x="${w - pad.r}" y="${h - 4}" text-anchor="end">${escapeHtml(last)}</text>`,
    line(totals, "total"),
    line(
      trend.points.map((p) => p.counts.error),
      "errors",
    ),
    "</svg>",
  ].join("");
}

const STATUS_LABEL: Record<CheckOutcome["status"], string> = {
  passed: "passed",
  findings: "findings",
  failed: "failed",
  skipped: "skipped",
  nothing: "nothing to check",
};

const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--panel:#f6f8fa;--err:#cf222e;--warn:#9a6700;--note:#0969da;--ok:#1a7f37}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header,main{max-width:1200px;margin:0 auto;padding:16px 24px}header{border-bottom:1px solid var(--line)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}.muted{color:var(--muted)}
.totals{display:flex;gap:12px;flex-wrap:wrap;margin-top:12px}.total{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px}
.total b{display:block;font-size:22px}.error{color:var(--err)}.warning{color:var(--warn)}.note{color:var(--note)}.passed{color:var(--ok)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}th{background:var(--panel);font-weight:600}
.status-findings,.status-failed{color:var(--err);font-weight:600}.status-skipped{color:var(--warn)}.status-passed{color:var(--ok)}
.charts{display:flex;flex-wrap:wrap;gap:16px}.chart{border:1px solid var(--line);border-radius:8px;padding:8px}.chart h3{margin:0 0 4px;font-size:14px}
svg.trend .axis{stroke:var(--line)}svg.trend .tick{font-size:10px;fill:var(--muted)}svg.trend polyline.total{stroke:var(--note);stroke-width:2}svg.trend circle.total{fill:var(--note)}
svg.trend polyline.errors{stroke:var(--err);stroke-width:1.5;stroke-dasharray:4 3}svg.trend circle.errors{fill:var(--err)}
.controls{display:flex;gap:12px;align-items:center;flex-wrap:wrap;margin:8px 0}.controls input[type=search]{padding:5px 8px;min-width:260px;border:1px solid var(--line);border-radius:6px}
button{padding:4px 10px;border:1px solid var(--line);border-radius:6px;background:var(--panel);cursor:pointer}button[aria-pressed=true]{background:var(--fg);color:#fff}
.group{margin:14px 0 4px;font-weight:600}.finding{border:1px solid var(--line);border-radius:8px;margin:6px 0;overflow:hidden}
.finding .head{padding:6px 10px;background:var(--panel);display:flex;gap:10px;flex-wrap:wrap}.finding .pos{font-family:ui-monospace,monospace;color:var(--muted)}
.finding .rule{font-family:ui-monospace,monospace;font-weight:600}pre.code{margin:0;padding:6px 0;font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;overflow-x:auto}
pre.code span{display:block;padding:0 10px;white-space:pre}pre.code span.hit{background:#fff8c5}pre.code i{display:inline-block;width:4.5em;color:var(--muted);font-style:normal;user-select:none}
.pager{display:flex;gap:8px;align-items:center;margin:12px 0}
`;

/** The page's script: renders the findings a page at a time (textContent only), by file or by rule, filtered. */
const SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById("mcq-data").textContent);
  const LEVELS = ["error", "warning", "note"];
  const PAGE = 100;
  const list = document.getElementById("findings");
  const info = document.getElementById("page-info");
  const filter = document.getElementById("filter");
  const levelBoxes = [...document.querySelectorAll("input[name=level]")];
  let view = "file";
  let page = 0;
  let shown = data.findings;
  const ruleName = (f) => data.rules[f[4]].rule;
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  function snippet(f) {
    const windows = data.snippets[f[0]];
    if (!windows || !f[1]) return null;
    for (const [first, lines] of windows) {
      if (f[1] < first || f[1] >= first + lines.length) continue;
      const pre = el("pre", "code");
      const from = Math.max(first, f[1] - 2);
      const to = Math.min(first + lines.length - 1, f[1] + 2);
      for (let n = from; n <= to; n++) {
        const row = el("span", n === f[1] ? "hit" : "");
        row.append(el("i", "", String(n)), document.createTextNode(lines[n - first]));
        pre.append(row);
      }
      return pre;
    }
    return null;
  }
  function card(f) {
    const box = el("div", "finding");
    const head = el("div", "head");
    const level = LEVELS[f[3]];
    head.append(
      el("span", "pos", (view === "rule" ? data.files[f[0]] + ":" : "") + (f[1] ? f[1] + ":" + (f[2] || 1) : "-")),
      el("span", level, level),
      el("span", "rule", ruleName(f) + " (" + data.rules[f[4]].tool + ")"),
      el("span", "msg", f[5]),
    );
    box.append(head);
    const code = snippet(f);
    if (code) box.append(code);
    return box;
  }
  function apply() {
    const text = filter.value.trim().toLowerCase();
    const levels = new Set(levelBoxes.filter((b) => b.checked).map((b) => Number(b.value)));
    shown = data.findings.filter(
      (f) =>
        levels.has(f[3]) &&
        (!text ||
          data.files[f[0]].toLowerCase().includes(text) ||
          ruleName(f).toLowerCase().includes(text) ||
          f[5].toLowerCase().includes(text)),
    );
    if (view === "rule")
      shown = [...shown].sort((a, b) => ruleName(a).localeCompare(ruleName(b)) || data.files[a[0]].localeCompare(data.files[b[0]]) || a[1] - b[1]);
    page = 0;
    render();
  }
  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    const rows = shown.slice(page * PAGE, page * PAGE + PAGE);
    const frag = document.createDocumentFragment();
    let group;
    for (const f of rows) {
      const key = view === "file" ? data.files[f[0]] || "(no file)" : ruleName(f) + " (" + data.rules[f[4]].tool + ")";
      if (key !== group) {
        group = key;
        frag.append(el("div", "group", key));
      }
      frag.append(card(f));
    }
    list.replaceChildren(frag);
    info.textContent = shown.length
      ? "findings " + (page * PAGE + 1) + "–" + (page * PAGE + rows.length) + " of " + shown.length + " · page " + (page + 1) + " of " + pages
      : "no findings match";
    document.getElementById("prev").disabled = page === 0;
    document.getElementById("next").disabled = page >= pages - 1;
  }
  document.getElementById("prev").onclick = () => { page--; render(); window.scrollTo(0, list.offsetTop - 80); };
  document.getElementById("next").onclick = () => { page++; render(); window.scrollTo(0, list.offsetTop - 80); };
  for (const b of document.querySelectorAll("button[data-view]"))
    b.onclick = () => {
      view = b.dataset.view;
      for (const o of document.querySelectorAll("button[data-view]")) o.setAttribute("aria-pressed", String(o === b));
      apply();
    };
  let timer;
  filter.oninput = () => { clearTimeout(timer); timer = setTimeout(apply, 150); };
  for (const b of levelBoxes) b.onchange = apply;
  apply();
  document.documentElement.dataset.rendered = String(performance.now());
})();
`;

/** The whole page. Pure. */
export function renderHtml(input: HtmlInput, data: PageData, trends: readonly Trend[]): string {
  const rows: FindingRow[] = input.outcomes.flatMap((o) => o.findings);
  const counts: Record<Level, number> = { error: 0, warning: 0, note: 0 };
  for (const r of rows) counts[r.level]++;
  const fileCount = new Set(rows.map((r) => r.file)).size;
  const ran = input.outcomes.filter((o) => o.status !== "skipped").length;
  const skipped = input.outcomes.filter((o) => o.status === "skipped" || o.status === "failed");
  const title = rows.length
    ? `${rows.length} finding${rows.length === 1 ? "" : "s"} (${levelCounts(counts)}) in ${fileCount} file${fileCount === 1 ? "" : "s"}`
    : input.outcomes.some((o) => o.status === "failed")
      ? "a check failed"
      : "no findings";
  const ruleCounts = new Array<number>(data.rules.length).fill(0);
  const fileCounts = new Array<number>(data.files.length).fill(0);
  for (const f of data.findings) {
    ruleCounts[f[4]]!++;
    fileCounts[f[0]]!++;
  }
  const byRule = data.rules
    .map((r, i) => ({ ...r, count: ruleCounts[i] ?? 0 }))
    .sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule));
  const byFile = data.files
    .map((file, i) => ({ file, count: fileCounts[i] ?? 0 }))
    .sort((a, b) => b.count - a.count || a.file.localeCompare(b.file));
  const e = escapeHtml;
  const checksTable = input.outcomes
    .map(
      (o) =>
        `<tr><td>${e(o.id)}</td><td>${e(o.kind)}</td><td>${e(o.language)}</td><td>${e(path.relative(input.cwd, o.target) || ".")}</td>` +
        `<td class="status-${o.status}">${e(STATUS_LABEL[o.status])}${o.reason && o.status !== "nothing" ? `: ${e(o.reason.split("\n")[0] ?? "")}` : ""}</td>` +
        `<td>${o.findings.length ? e(levelCounts(o.counts)) : "0"}</td><td>${o.status === "skipped" || o.status === "nothing" ? "" : e(seconds(o.duration_ms))}</td></tr>`,
    )
    .join("\n");
  const fixes = (input.fixes ?? [])
    .map(
      (f) =>
        `<tr><td>${e(f.id)}</td><td>${e(f.tool)}</td><td>${f.success ? `${f.changed_files} file(s) changed` : `failed: ${e(f.error ?? "")}`}</td><td>${e(seconds(f.duration_ms))}</td></tr>`,
    )
    .join("\n");
  const retained = trends.some((t) => t.points.some((p) => !p.current));
  const total = (level: Level) =>
    `<div class="total"><span class="${level}">${level}s</span><b>${counts[level]}</b></div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>mcp-code-quality check: ${e(title)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>mcp-code-quality check: <span class="${rows.length || input.exitCode ? "error" : "passed"}">${e(title)}</span></h1>
<div class="muted">${e(input.paths.map((p) => path.relative(input.cwd, p) || ".").join(", "))} in ${e(input.cwd)} · ${e(input.now.toISOString())} · exit code ${input.exitCode} · ${e(seconds(input.elapsedMs))} · mcp-code-quality ${e(input.version)}</div>
<div class="totals">
<div class="total">findings<b>${rows.length}</b></div>${total("error")}${total("warning")}${total("note")}
<div class="total">files<b>${fileCount}</b></div><div class="total">checks ran<b>${ran}</b></div><div class="total">skipped or failed<b>${skipped.length}</b></div>
</div>
</header>
<main>
<h2>What ran</h2>
<table id="checks"><thead><tr><th>check</th><th>kind</th><th>language</th><th>path</th><th>status</th><th>findings</th><th>time</th></tr></thead>
<tbody>
${checksTable}
</tbody></table>
${skipped.length ? `<h2>Skipped or failed, and why</h2>\n<ul id="skipped">${skipped.map((o) => `<li><b>${e(o.id)}</b> (${e(o.kind)}, ${e(o.language)}): ${e(o.reason ?? o.status)}</li>`).join("")}</ul>` : ""}
${fixes ? `<h2>Fixes</h2>\n<table><thead><tr><th>check</th><th>tool</th><th>result</th><th>time</th></tr></thead><tbody>${fixes}</tbody></table>` : ""}
<h2>Trends</h2>
${
  trends.length
    ? `<p class="muted">Findings of each tool over the retained runs (blue: all, red dashed: errors)${retained ? "" : "; no run is retained yet, so each chart has this check alone: run check with --retain-traces true to keep them (.mcp-cache/lint-runs/)"}.</p>\n<div class="charts">${trends.map((t) => `<div class="chart"><h3>${e(t.tool)}</h3>${trendSvg(t)}</div>`).join("")}</div>`
    : `<p class="muted">No tool ran.</p>`
}
${
  rows.length
    ? `<h2>Findings by rule</h2>
<table id="by-rule"><thead><tr><th>rule</th><th>tool</th><th>findings</th></tr></thead><tbody>
${byRule
  .slice(0, 1000)
  .map(
    (r) =>
      `<tr><td>${r.docs ? `<a href="${e(r.docs)}" rel="noreferrer">${e(r.rule)}</a>` : e(r.rule)}</td><td>${e(r.tool)}</td><td>${r.count}</td></tr>`,
  )
  .join("\n")}
</tbody></table>${byRule.length > 1000 ? `<p class="muted">…and ${byRule.length - 1000} more rules.</p>` : ""}
<h2>Findings by file</h2>
<table id="by-file"><thead><tr><th>file</th><th>findings</th></tr></thead><tbody>
${byFile
  .slice(0, 1000)
  .map((f) => `<tr><td>${e(f.file || "(no file)")}</td><td>${f.count}</td></tr>`)
  .join("\n")}
</tbody></table>${byFile.length > 1000 ? `<p class="muted">…and ${byFile.length - 1000} more files.</p>` : ""}
<h2>Findings</h2>
<div class="controls">
<span>Group by</span><button type="button" data-view="file" aria-pressed="true">file</button><button type="button" data-view="rule" aria-pressed="false">rule</button>
<input id="filter" type="search" placeholder="Filter: file, rule or message" aria-label="Filter findings">
${LEVELS.map((l, i) => `<label><input type="checkbox" name="level" value="${i}" checked> ${l}s</label>`).join(" ")}
</div>
<div class="pager"><button type="button" id="prev">previous</button><span id="page-info"></span><button type="button" id="next">next</button></div>
<noscript><p>The list of findings needs JavaScript; the tables above hold the counts.</p></noscript>
<div id="findings"></div>`
    : `<h2>Findings</h2><p class="passed">None.</p>`
}
</main>
<script id="mcq-data" type="application/json">${scriptJson(data)}</script>
${rows.length ? `<script>${SCRIPT}</script>` : ""}
</body>
</html>
`;
}

/** The text of a finding's file, read inside one of the roots without following a link (else undefined). */
function sourceReader(roots: readonly string[], cwd: string): (file: string) => string | undefined {
  return (file) => {
    const absolute = path.resolve(cwd, file);
    const root = roots.find((r) => isWithin(r, absolute) && r !== absolute);
    if (!root) return undefined;
    try {
      const read = readFileIn(root, absolute, "refuse");
      if (!read || read.content.length > MAX_SOURCE_BYTES || read.content.subarray(0, 8000).includes(0))
        return undefined;
      return read.content.toString("utf8");
    } catch {
      return undefined;
    }
  };
}

/** The retained traces of the roots (the newest MAX_TRACES), as created time and each run's levels. */
export function readTraces(
  roots: readonly string[],
): { created: string; runs: { tool: string; levels: Level[] }[] }[] {
  const found: { root: string; file: string; name: string }[] = [];
  for (const root of roots) {
    const dir = path.join(root, ".mcp-cache", LINT_RUNS_DIR);
    let entries;
    try {
      entries = listDirIn(root, dir);
    } catch {
      continue;
    }
    for (const entry of entries)
      if (entry.isFile() && entry.name.endsWith(".json"))
        found.push({ root, file: path.join(dir, entry.name), name: entry.name });
  }
  // Trace ids start with their time: the newest last.
  found.sort((a, b) => a.name.localeCompare(b.name));
  const out: { created: string; runs: { tool: string; levels: Level[] }[] }[] = [];
  for (const t of found.slice(-MAX_TRACES)) {
    try {
      const read = readFileIn(t.root, t.file, "refuse");
      if (!read || read.content.length > MAX_TRACE_BYTES) continue;
      const log = JSON.parse(read.content.toString("utf8")) as {
        properties?: Record<string, { created?: string }>;
        runs?: { tool?: { driver?: { name?: string } }; results?: { level?: string }[] }[];
      };
      const created = log.properties?.[TRACE_PROPERTY]?.created;
      if (typeof created !== "string" || !Array.isArray(log.runs)) continue;
      out.push({
        created,
        runs: log.runs.map((r) => ({
          tool: String(r.tool?.driver?.name ?? "tool"),
          levels: (r.results ?? []).map((x) =>
            x.level === "error" || x.level === "note" ? x.level : "warning",
          ),
        })),
      });
    } catch {
      // A damaged or unreadable trace is left out of the charts.
    }
  }
  return out;
}

/** Builds and writes the page (race-safe, never through a link). */
export async function writeHtmlReport(file: string, input: HtmlInput): Promise<void> {
  const folder = (p: string) =>
    fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ? p : path.dirname(p);
  const roots = [...new Set([input.cwd, ...input.paths.map(folder)])];
  const data = pageData(input.outcomes, sourceReader(roots, input.cwd));
  const startedAt = new Date(input.now.getTime() - input.elapsedMs);
  const trends = trendsOf(readTraces(roots), input.outcomes, input.now, startedAt);
  writeOutputFile(file, input.cwd, renderHtml(input, data, trends));
}
