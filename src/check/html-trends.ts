/**
 * The `check --html` page's trends: the findings of each tool over the retained runs (traces in
 * `.mcp-cache/lint-runs/`, read without following a link) and this check, drawn as small inline SVG charts.
 */
import path from "node:path";
import { listDirIn, readFileIn } from "../paths/safe-fs.js";
import { LINT_RUNS_DIR, TRACE_PROPERTY } from "../traces/lint-runs.js";
import { escapeHtml } from "./html-escape.js";
import type { CheckOutcome, Level } from "./outcome.js";

/** Retained traces read for the charts (the newest), and their size each. */
const MAX_TRACES = 200;
const MAX_TRACE_BYTES = 32 * 1024 * 1024;
/** Points per chart. */
const MAX_POINTS = 60;

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
