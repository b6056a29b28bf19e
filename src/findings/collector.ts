/**
 * Findings read from a stream, with memory bounded whatever the tool prints: the first `keep` are kept (what a
 * result can list, plus what the call's page needs), every one is counted. What is not kept is tallied (by
 * severity, rule and file, and how many are fixable), so counts, `summary_text` and pages stay exact.
 */
import { fixesSafely, type Finding, type Severity } from "./model.js";

/** Findings kept in memory when a call asks for no deeper page: far more than any result lists. */
export const DEFAULT_KEPT_FINDINGS = 20_000;

/** The counts of findings that were read but not kept. */
export interface FindingTally {
  count: number;
  bySeverity: Record<Severity, number>;
  byRule: Map<string, number>;
  files: Set<string>;
  /** Fixable by a safe fix (summary-text.ts fixesSafely). */
  fixable: number;
  /** Fixable only by an unsafe fix. */
  unsafeFixable: number;
}

export function emptyTally(): FindingTally {
  return {
    count: 0,
    bySeverity: { error: 0, warning: 0, info: 0 },
    byRule: new Map(),
    files: new Set(),
    fixable: 0,
    unsafeFixable: 0,
  };
}

/** Two tallies as one (findings of several tools). */
export function addTallies(a: FindingTally | undefined, b: FindingTally): FindingTally {
  if (!a) return b;
  const out = emptyTally();
  for (const t of [a, b]) {
    out.count += t.count;
    out.fixable += t.fixable;
    out.unsafeFixable += t.unsafeFixable;
    for (const s of ["error", "warning", "info"] as const) out.bySeverity[s] += t.bySeverity[s];
    for (const [rule, n] of t.byRule) out.byRule.set(rule, (out.byRule.get(rule) ?? 0) + n);
    for (const f of t.files) out.files.add(f);
  }
  return out;
}

/**
 * Findings a SARIF report (`output: "sarif"`, what `check` asks for) holds: every result a real project
 * has (tested at 100,000; GitHub takes 25,000 per run), while a tool that floods its output still cannot
 * take the server's memory without bound (a finding costs about 4 KiB of memory on the way: some 1 GB at this count). Beyond it the
 * counts stay exact and the overflow note says how many were left out.
 */
export const SARIF_KEPT_FINDINGS = 250_000;

/** How many findings a call's listing may need: its page's end, at least the default; a SARIF report more. */
export function keptFor(args: { offset?: unknown; limit?: unknown; output?: unknown } | undefined): number {
  if (args?.output === "sarif") return SARIF_KEPT_FINDINGS;
  const offset = typeof args?.offset === "number" ? args.offset : 0;
  const limit = typeof args?.limit === "number" ? args.limit : 500;
  return Math.max(DEFAULT_KEPT_FINDINGS, offset + limit);
}

export class FindingCollector {
  readonly kept: Finding[] = [];
  readonly beyond: FindingTally = emptyTally();
  /** Every finding pushed, in scope or not. */
  seen = 0;
  /** The errors among them. */
  seenErrors = 0;
  /** Findings ignored (not the run's). */
  ignored = 0;

  /**
   * `accept`: only findings in the call's scope (rules, changed files) are kept or counted. `ignore`: findings
   * that are not the run's at all (a nested project's, checked at its own root), not even seen.
   */
  constructor(
    private readonly keep = DEFAULT_KEPT_FINDINGS,
    private readonly accept?: (f: Finding) => boolean,
    private readonly ignore?: (f: Finding) => boolean,
  ) {}

  push(f: Finding): void {
    if (this.ignore?.(f)) {
      this.ignored++;
      return;
    }
    this.seen++;
    if (f.severity === "error") this.seenErrors++;
    if (this.accept && !this.accept(f)) return;
    if (this.kept.length < this.keep) {
      this.kept.push(f);
      return;
    }
    const t = this.beyond;
    t.count++;
    t.bySeverity[f.severity]++;
    const rule = f.rule_id || "(no rule)";
    t.byRule.set(rule, (t.byRule.get(rule) ?? 0) + 1);
    t.files.add(f.file);
    if (fixesSafely(f)) t.fixable++;
    else if (f.correctable) t.unsafeFixable++;
  }

  /** Every finding in scope (kept or not). */
  get total(): number {
    return this.kept.length + this.beyond.count;
  }

  /** The tally, or undefined when every finding was kept. */
  overflow(): FindingTally | undefined {
    return this.beyond.count ? this.beyond : undefined;
  }
}

/** A note for a result whose tool printed more findings than were kept. */
export function overflowNote(tool: string, kept: number, beyond: FindingTally | undefined): string[] {
  if (!beyond) return [];
  return [
    `${tool} reported ${kept + beyond.count} findings: the first ${kept} were kept and the other ${beyond.count} counted ` +
      "(counts are exact; ask for a page with offset and limit to list findings further on)",
  ];
}
