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
    const offenses = r.offenses.filter((o) => shown.has(o));
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
