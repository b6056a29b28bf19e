/** Seed 003's result shape: `files[{path, offenses, errors, warnings}]` and `summary`, offenses as --format json has them. */
import type { RubocopFileReport, RubocopOffense } from "../../../adapters/ruby/rubocop-run.js";
import { capPerCop } from "../../../adapters/ruby/rubocop-run.js";
import type { DisplayPaths } from "../../../findings/display-path.js";

export interface SeedFile {
  path: string;
  offenses: RubocopOffense[];
  errors: string[];
  warnings: string[];
  [key: string]: unknown;
}

export interface SeedSummary {
  target_file_count: number;
  offense_count: number;
  /** Per cop, the offenses a cap left out. */
  unreported_offenses: Record<string, number>;
  error_count: number;
  warning_count: number;
  [key: string]: unknown;
}

/**
 * Files with offenses, errors or warnings (or fields from `extra`), each cop capped at `max` across them; the
 * summary counts everything.
 */
export function seedView(
  reports: RubocopFileReport[],
  display: DisplayPaths,
  max: number | undefined,
  extra: (r: RubocopFileReport) => Record<string, unknown> | undefined = () => undefined,
): { files: SeedFile[]; summary: SeedSummary } {
  const all = reports.flatMap((r) => r.offenses.map((offense) => ({ r, offense })));
  const { listed, unreported } = capPerCop(all, (x) => x.offense.cop_name, max);
  const shown = new Set(listed.map((x) => x.offense));
  const files: SeedFile[] = [];
  for (const r of reports) {
    // Offenses of a correction are located in the corrected text: its edits' offsets are too.
    const text = r.corrected ?? r.source;
    const offenses = r.offenses.filter((o) => shown.has(o)).map((o) => withUpstreamFields(o, text));
    const more = extra(r);
    if (offenses.length || r.errors.length || r.warnings.length || more)
      files.push({ path: display.show(r.file), offenses, errors: r.errors, warnings: r.warnings, ...more });
  }
  return {
    files,
    summary: {
      target_file_count: reports.length,
      offense_count: all.length,
      unreported_offenses: unreported,
      error_count: reports.reduce((n, r) => n + r.errors.length, 0),
      warning_count: reports.reduce((n, r) => n + r.warnings.length, 0),
    },
  };
}

/** Where each line of `text` starts, counted in characters (code points), as RuboCop counts positions. */
function lineStarts(text: string): number[] {
  const starts = [0];
  let i = 0;
  for (const ch of text) {
    i++;
    if (ch === "\n") starts.push(i);
  }
  return starts;
}

/**
 * An offense whose correction edits also carry the field names RuboCop's own MCP server uses (`start_line`,
 * `begin_pos`, `end_pos` as 0-based character offsets in the source, `replacement`), beside ours (`line`,
 * `column`, `end_line`, `end_column`, `text`), so a client written for upstream reads them as they are.
 */
export function withUpstreamFields(o: RubocopOffense, text: string): RubocopOffense {
  if (!o.correction) return o;
  const starts = lineStarts(text);
  const pos = (line: number, column: number) => (starts[line - 1] ?? 0) + column - 1;
  return {
    ...o,
    correction: {
      ...o.correction,
      edits: o.correction.edits.map((e) => ({
        ...e,
        start_line: e.line,
        begin_pos: pos(e.line, e.column),
        end_pos: pos(e.end_line, e.end_column),
        replacement: e.text,
      })),
    },
  };
}
