/** Seed 003's result shape: `files[{path, offenses, errors, warnings}]` and `summary`, offenses as --format json has them. */
import type { RubocopFileReport, RubocopOffense } from "../../../adapters/ruby/rubocop-types.js";
import { capPerCop } from "../../../adapters/ruby/rubocop-run.js";
import type { ToolContext } from "../../../engine/tool.js";
import { effectiveTokens, estimateTokens, fairTrimEntries } from "../../../findings/budget.js";
import type { DisplayPaths } from "../../../findings/display-path.js";
import type { Severity } from "../../../findings/model.js";
import { withinBudget } from "../listing.js";

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

/** RuboCop's severities in the findings model's three, for a fair trim (most severe listed first). */
const SEVERITY: Record<string, Severity> = { fatal: "error", error: "error", warning: "warning" };

/**
 * Files with offenses, errors or warnings (or fields from `extra`), each cop capped at `max` across them, and
 * the listed offenses within `listingTokens` (a fair trim: every file and cop keep some, most severe first);
 * the summary counts everything, and `unreported_offenses` what each cop left out, by either cap (seed 003:
 * "a file missing from files under a cap can still have offenses; they were just counted rather than listed").
 */
export function seedView(
  reports: RubocopFileReport[],
  display: DisplayPaths,
  max: number | undefined,
  extra: (r: RubocopFileReport) => Record<string, unknown> | undefined = () => undefined,
  listingTokens = Infinity,
): { files: SeedFile[]; summary: SeedSummary; overBudget: number } {
  const all = reports.flatMap((r) =>
    r.offenses.map((offense) => ({ r, offense, shown: upstreamOf(offense, r.corrected ?? r.source) })),
  );
  const { listed: capped, unreported } = capPerCop(all, (x) => x.offense.cop_name, max);
  const listed = Number.isFinite(listingTokens)
    ? fairTrimEntries(
        capped,
        (x) => ({
          file: x.r.file,
          rule: x.offense.cop_name,
          severity: SEVERITY[x.offense.severity] ?? "info",
        }),
        (x) => estimateTokens(x.shown) + 1,
        listingTokens,
      )
    : capped;
  const kept = new Set(listed);
  for (const x of capped)
    if (!kept.has(x)) unreported[x.offense.cop_name] = (unreported[x.offense.cop_name] ?? 0) + 1;
  const shown = new Map(listed.map((x) => [x.offense, x.shown]));
  const files: SeedFile[] = [];
  for (const r of reports) {
    // Offenses of a correction are located in the corrected text: its edits' offsets are too.
    const offenses = r.offenses.flatMap((o) => shown.get(o) ?? []);
    const more = extra(r);
    if (offenses.length || r.errors.length || r.warnings.length || more)
      files.push({ path: display.show(r.file), offenses, errors: r.errors, warnings: r.warnings, ...more });
  }
  return {
    overBudget: capped.length - listed.length,
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

/** Each offense with its upstream fields, made once (a budgeted view is shaped a few times). */
const upstream = new WeakMap<RubocopOffense, RubocopOffense>();
function upstreamOf(o: RubocopOffense, text: string): RubocopOffense {
  let shown = upstream.get(o);
  if (!shown) upstream.set(o, (shown = withUpstreamFields(o, text)));
  return shown;
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

/**
 * seedView within the call's result budget (--max-result-tokens, and never past --max-result-bytes): the
 * listed offenses are trimmed until the whole view fits, and when some were left out the view says so,
 * `truncated: true` and a note, beside the counts in `unreported_offenses`.
 */
export function budgetedSeedView(
  ctx: Pick<ToolContext, "config" | "maxResultBytes">,
  reports: RubocopFileReport[],
  display: DisplayPaths,
  max: number | undefined,
  extra?: (r: RubocopFileReport) => Record<string, unknown> | undefined,
) {
  const tokens = effectiveTokens(ctx.config.maxResultTokens, ctx.maxResultBytes ?? ctx.config.maxResultBytes);
  // Room for `success`, `truncated` and the note beside the view.
  const view = withinBudget(tokens - 128, (listingTokens) =>
    seedView(reports, display, max, extra, listingTokens),
  );
  const { overBudget, ...rest } = view;
  if (overBudget === 0) return rest;
  return {
    ...rest,
    truncated: true,
    notes: [
      `${overBudget} offense(s) left out to keep the result within its budget of ${tokens} tokens ` +
        "(--max-result-tokens, at most a quarter of --max-result-bytes): " +
        "summary.unreported_offenses counts them per cop; narrow path, only or changed, or lower max_offenses_per_cop, to list them",
    ],
  };
}
