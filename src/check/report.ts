/**
 * The readable report: a line per tool (status, counts, time), the findings grouped by file with their
 * rule ids, the docs of every rule seen, and a summary line. Pure: colours only when asked for.
 */
import path from "node:path";
import { styleText } from "node:util";
import { linePosition } from "../findings/model.js";
import type { CheckOutcome, FindingRow, Level } from "./outcome.js";
import { uncheckedProjects } from "./exit-code.js";
import { warningNotes, warningShown } from "./tool-warnings.js";

/** The largest width of the items (0 for none): a loop, since a report can have more rows than a call has room for arguments. */
function widest<T>(items: readonly T[], width: (item: T) => number): number {
  let most = 0;
  for (const item of items) most = Math.max(most, width(item));
  return most;
}

export interface ReportInput {
  outcomes: readonly CheckOutcome[];
  /** Results of --fix's transactional calls, in the order they ran. */
  fixes?: readonly FixLine[];
  elapsedMs: number;
  cwd: string;
  /** Projects no check covered, and what the paths hold that no check could (one line each). */
  notChecked?: readonly string[];
}

export interface FixLine {
  id: string;
  tool: string;
  target: string;
  success: boolean;
  changed_files: number;
  duration_ms: number;
  error?: string;
}

type Format = Parameters<typeof styleText>[0];

export interface Painter {
  (format: Format, text: string): string;
}

export const plain: Painter = (_f, text) => text;
// check has already decided to paint (wantsColor); styleText's own stream check would also read
// CI=true and FORCE_COLOR as "2 colours" and drop every code.
export const ansi: Painter = (format, text) => styleText(format, text, { validateStream: false });

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** "2 errors, 1 warning" (levels with a count only). */
export function levelCounts(counts: Record<Level, number>): string {
  const parts: string[] = [];
  if (counts.error) parts.push(plural(counts.error, "error"));
  if (counts.warning) parts.push(plural(counts.warning, "warning"));
  if (counts.note) parts.push(plural(counts.note, "note"));
  return parts.join(", ");
}

const firstLine = (s: string) => s.split("\n")[0]?.trim() ?? "";

function statusText(o: CheckOutcome, paint: Painter): string {
  switch (o.status) {
    case "passed":
      return paint("green", "passed");
    case "nothing":
      return paint("dim", "nothing to check");
    case "skipped":
      return paint("yellow", `skipped: ${o.reason ?? ""}`);
    case "failed":
      return paint(["red", "bold"], `failed (${o.error_type ?? "error"}): ${firstLine(o.reason ?? "")}`);
    case "findings": {
      const n = o.findings.length;
      if (n === 0) return paint("red", "did not pass");
      return paint(o.counts.error ? "red" : "yellow", `${plural(n, "finding")} (${levelCounts(o.counts)})`);
    }
  }
}

const shownTarget = (target: string, cwd: string) => path.relative(cwd, target) || ".";

/** A check's name in the report: its id, and its project when the report has several. */
function checkNamer(input: ReportInput): (o: CheckOutcome) => string {
  const several = new Set(input.outcomes.map((o) => o.target)).size > 1;
  return (o) => (several ? `${o.id} (${shownTarget(o.target, input.cwd)})` : o.id);
}

/** One line per check: `  ruff   lint   python   2 findings (2 errors)   0.1 s`. */
function toolLines(input: ReportInput, paint: Painter): string[] {
  const name = checkNamer(input);
  const nameWidth = widest(input.outcomes, (o) => name(o).length);
  const kindWidth = widest(input.outcomes, (o) => o.kind.length);
  return input.outcomes.map((o) => {
    const time =
      o.status === "skipped" || o.status === "nothing" ? "" : `  ${paint("dim", seconds(o.duration_ms))}`;
    return `  ${paint("bold", name(o).padEnd(nameWidth))}  ${o.kind.padEnd(kindWidth)}  ${statusText(o, paint)}${time}`;
  });
}

/** The last lines of a failed check's output the report shows (--json has all of it). */
export const FAILED_OUTPUT_LINES = 20;
/** A longer line of it (or command) is cut here. */
const FAILED_OUTPUT_LINE_CHARS = 400;

/** Control characters of a tool's output (escape sequences, carriage returns), kept off the reader's terminal. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const shortLine = (line: string) => {
  const clean = line.replace(CONTROL, "").trimEnd();
  return clean.length > FAILED_OUTPUT_LINE_CHARS ? `${clean.slice(0, FAILED_OUTPUT_LINE_CHARS)}…` : clean;
};

/**
 * What the report shows of a failed check's run: its command and exit code in one line, the last lines of
 * its output (control characters out, long lines cut), and a note of what is left to --json. Pure.
 */
export function failedRunShown(o: CheckOutcome): { head: string; lines: string[]; left: string[] } {
  const exit = o.returncode === undefined ? "" : ` (exit ${o.returncode ?? "none: stopped"})`;
  // No output (a run that failed before printing): no line of it, where an empty one was shown.
  const all = o.output ? o.output.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n") : [];
  const lines = all.slice(-FAILED_OUTPUT_LINES);
  const earlier = all.length - lines.length;
  return {
    head: `${o.command === undefined ? "its output" : shortLine(o.command)}${exit}`,
    lines: lines.map(shortLine),
    left: [
      ...(earlier > 0 ? [`${plural(earlier, "earlier line")} in --json`] : []),
      ...(o.truncated ? ["the output was capped (--max-output-bytes)"] : []),
    ],
  };
}

/** A failed check whose run the report can show (its tool said `see output`). */
export const hasFailedRun = (o: CheckOutcome) => o.status === "failed" && Boolean(o.output || o.command);

/** What each failed check's run printed: the command, its exit code and the last lines of its output. */
export function failedRunLines(input: ReportInput, paint: Painter): string[] {
  const failed = input.outcomes.filter(hasFailedRun);
  if (failed.length === 0) return [];
  const name = checkNamer(input);
  const out = ["", paint(["bold", "red"], "Failed runs:")];
  for (const o of failed) {
    const shown = failedRunShown(o);
    out.push(`  ${paint("bold", name(o))}: ${shown.head}`);
    if (shown.left.length) out.push(paint("dim", `    … ${shown.left.join("; ")}`));
    out.push(...shown.lines.map((l) => `    ${l}`));
  }
  return out;
}

/** What the tools warned of beside their results (an invalid `# noqa`, a deprecated setting), under each check. */
export function warningLines(input: ReportInput, paint: Painter): string[] {
  const name = checkNamer(input);
  const out: string[] = [];
  for (const o of input.outcomes)
    for (const note of warningNotes(o.notes))
      out.push(`  ${paint("bold", name(o))}: ${paint("yellow", shortLine(warningShown(note)))}`);
  return out.length ? ["", paint(["bold", "yellow"], "Tool warnings:"), ...out] : [];
}

/** One line per fix call: `  ruff  lint_fix  1 file changed  0.3 s` (the path too when several). */
function fixLines(fixes: readonly FixLine[], cwd: string, paint: Painter): string[] {
  const several = new Set(fixes.map((f) => f.target)).size > 1;
  const name = (f: FixLine) => (several ? `${f.id} (${shownTarget(f.target, cwd)})` : f.id);
  const nameWidth = widest(fixes, (f) => name(f).length);
  const toolWidth = widest(fixes, (f) => f.tool.length);
  return fixes.map((f) => {
    const what = f.success
      ? paint("green", `${plural(f.changed_files, "file")} changed`)
      : paint(["red", "bold"], `failed: ${firstLine(f.error ?? "")}`);
    return `  ${paint("bold", name(f).padEnd(nameWidth))}  ${f.tool.padEnd(toolWidth)}  ${what}  ${paint("dim", seconds(f.duration_ms))}`;
  });
}

const LEVEL_STYLE: Record<Level, Format> = { error: "red", warning: "yellow", note: "cyan" };

/** Findings grouped by file (sorted), each as `line:col  level  rule  message  [tool]`. */
export function findingLines(rows: readonly FindingRow[], paint: Painter): string[] {
  const byFile = new Map<string, FindingRow[]>();
  for (const r of rows) {
    const list = byFile.get(r.file);
    if (list) list.push(r);
    else byFile.set(r.file, [r]);
  }
  const files = [...byFile.keys()].sort((a, b) => (a === "" ? 1 : b === "" ? -1 : a.localeCompare(b)));
  const pos = (r: FindingRow) => (r.line ? linePosition(r) : "-");
  const posWidth = widest(rows, (r) => pos(r).length);
  const ruleWidth = Math.min(
    40,
    widest(rows, (r) => r.rule_id.length),
  );
  const out: string[] = [];
  for (const file of files) {
    const list = (byFile.get(file) ?? []).sort((a, b) => a.line - b.line || a.column - b.column);
    out.push("", paint(["bold", "underline"], file || "(no file)"));
    for (const r of list)
      out.push(
        `  ${pos(r).padEnd(posWidth)}  ${paint(LEVEL_STYLE[r.level], r.level.padEnd(7))}  ` +
          `${paint("bold", r.rule_id.padEnd(ruleWidth))}  ${firstLine(r.message)}  ${paint("dim", `[${r.tool}]`)}`,
      );
  }
  return out;
}

/** Each rule seen once, with its docs link (rules without one are left out). */
export function ruleDocLines(rows: readonly FindingRow[], paint: Painter): string[] {
  const docs = new Map<string, string>();
  for (const r of rows) if (r.docs_url) docs.set(`${r.rule_id} (${r.tool})`, r.docs_url);
  if (docs.size === 0) return [];
  const width = widest([...docs.keys()], (k) => k.length);
  return [
    "",
    paint("bold", "Rule docs:"),
    ...[...docs.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([rule, url]) => `  ${rule.padEnd(width)}  ${paint("cyan", url)}`),
  ];
}

/** The last line: findings, files, tools ran/skipped/failed, time. */
export function summaryLine(input: ReportInput, paint: Painter): string {
  const rows = input.outcomes.flatMap((o) => o.findings);
  const counts: Record<Level, number> = { error: 0, warning: 0, note: 0 };
  for (const r of rows) counts[r.level]++;
  const ran = input.outcomes.filter((o) => o.status !== "skipped").length;
  const skipped = input.outcomes.filter((o) => o.status === "skipped").length;
  const failed =
    input.outcomes.filter((o) => o.status === "failed").length +
    (input.fixes ?? []).filter((f) => !f.success).length;
  const notPassing = input.outcomes.filter((o) => o.status === "findings").length;
  const files = new Set(rows.map((r) => r.file)).size;
  const unchecked = uncheckedProjects(input.outcomes).length;
  const tools =
    `${plural(ran, "check")} ran, ${skipped} skipped, ${failed} failed` +
    (unchecked ? `, ${plural(unchecked, "project")} not checked` : "");
  const time = seconds(input.elapsedMs);
  if (failed || unchecked)
    return paint(["red", "bold"], `✗ ${plural(rows.length, "finding")}; ${tools} · ${time}`);
  if (rows.length || notPassing) {
    const detail = rows.length ? ` (${levelCounts(counts)}) in ${plural(files, "file")}` : "";
    return paint(
      counts.error || !rows.length ? "red" : "yellow",
      `✗ ${plural(rows.length, "finding")}${detail}; ${tools} · ${time}`,
    );
  }
  return paint("green", `✓ no findings; ${tools} · ${time}`);
}

/** The whole report, ending with a newline. */
export function renderReport(input: ReportInput, paint: Painter = plain): string {
  const rows = input.outcomes.flatMap((o) => o.findings);
  const lines = [
    ...(input.fixes?.length ? [paint("bold", "Fixes:"), ...fixLines(input.fixes, input.cwd, paint), ""] : []),
    paint("bold", "Checks:"),
    ...toolLines(input, paint),
    ...(input.notChecked?.length
      ? ["", paint(["bold", "red"], "Not checked:"), ...input.notChecked.map((l) => `  ${l}`)]
      : []),
    ...failedRunLines(input, paint),
    ...warningLines(input, paint),
    ...findingLines(rows, paint),
    ...ruleDocLines(rows, paint),
    "",
    summaryLine(input, paint),
  ];
  return lines.join("\n") + "\n";
}
