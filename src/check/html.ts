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
 *
 * This module lays out the page and writes it; its data (html-data.ts), trends and charts (html-trends.ts),
 * style and script (html-assets.ts) and escaping (html-escape.ts) are beside it.
 */
import fs from "node:fs";
import path from "node:path";
import { CSS, SCRIPT } from "./html-assets.js";
import { LEVELS, pageData, sourceReader, type PageData } from "./html-data.js";
import { escapeHtml, scriptJson } from "./html-escape.js";
import { readTraces, trendSvg, trendsOf, type Trend } from "./html-trends.js";
import type { CheckOutcome, FindingRow, Level } from "./outcome.js";
import { writeOutputFile } from "./output.js";
import type { FixLine } from "./report.js";
import { failedRunShown, hasFailedRun, levelCounts, seconds } from "./report.js";

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

/** A failed check's run (failedRunShown): its command and the last lines of its output, folded. */
function failedRunHtml(o: CheckOutcome): string {
  if (!hasFailedRun(o)) return "";
  const shown = failedRunShown(o);
  const left = shown.left.length ? `\n… ${shown.left.join("; ")}` : "";
  return `<details><summary>${escapeHtml(shown.head)}</summary><pre>${escapeHtml(shown.lines.join("\n") + left)}</pre></details>`;
}

const STATUS_LABEL: Record<CheckOutcome["status"], string> = {
  passed: "passed",
  findings: "findings",
  failed: "failed",
  skipped: "skipped",
  nothing: "nothing to check",
};

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
${skipped.length ? `<h2>Skipped or failed, and why</h2>\n<ul id="skipped">${skipped.map((o) => `<li><b>${e(o.id)}</b> (${e(o.kind)}, ${e(o.language)}): ${e(o.reason ?? o.status)}${failedRunHtml(o)}</li>`).join("")}</ul>` : ""}
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
