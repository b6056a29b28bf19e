/**
 * TSTyche, the type test runner a JS project's test script may run beside its tests (fastify-plugin:
 * `npm run test:unit && npm run test:typescript`, then `tstyche`): where a script runs it, its argv, and its
 * report (the server's reporter, workers/tstyche-reporter.ts: one JSON line per error diagnostic, then
 * TSTyche's own counts) as run_tests' summary and failures. Pure.
 */
import path from "node:path";
import { parseJsonLines } from "../json-lines.js";
import type { TestFailureRecord } from "../test-outcome.js";
import { codePath } from "../../package-root.js";

/** The server's TSTyche reporter; it writes to the file named in `TSTYCHE_REPORT_ENV`. */
export const TSTYCHE_REPORTER = codePath("adapters", "js", "workers", "tstyche-reporter.js");
export const TSTYCHE_REPORT_ENV = "MCQ_TSTYCHE_REPORT";

/** Whether one command's words (launchers and wrappers before it allowed) start tstyche. */
export function runsTstyche(words: readonly string[]): boolean {
  return words.some((w) => /(^|\/)tstyche$/.test(w));
}

/** TSTyche's options that take a value as the next word. */
const VALUE_OPTIONS = new Set([
  "--config",
  "--only",
  "--plugins",
  "--reporters",
  "--root",
  "--skip",
  "--target",
  "--tsconfig",
]);

/**
 * The plain path fragments a script gives tstyche (`tstyche types/`): what it selects test files by. Options
 * are left out (`--target` would fetch other TypeScript versions); `dropped` says which.
 */
export function tstycheScriptArgs(words: readonly string[]): { fragments: string[]; dropped: string[] } {
  const at = words.findIndex((w) => /(^|\/)tstyche$/.test(w));
  const after = at < 0 ? [] : words.slice(at + 1);
  const fragments: string[] = [];
  const dropped: string[] = [];
  for (const [i, w] of after.entries()) {
    if (w.startsWith("-")) dropped.push(w);
    else if (i > 0 && VALUE_OPTIONS.has(after[i - 1] as string))
      dropped.push(w); // an option's value
    else if (/^[\w@./+-]+$/.test(w)) fragments.push(w);
    else dropped.push(w);
  }
  return { fragments, dropped };
}

/**
 * TSTyche's `--only` for a run_tests `pattern`: tstyche matches test names by case-insensitive substring, so a
 * plain name passes as it is; a regular expression (node's --test-name-pattern, vitest's -t) has no equivalent.
 */
export function tstycheOnly(pattern: string): string | undefined {
  return /[\\^$.*+?()[\]{}|]/.test(pattern) ? undefined : pattern;
}

/** argv after the tstyche program: its own list and summary (the output shown), and the server's reporter. */
export function tstycheArgs(opts: {
  reporter?: string;
  only?: string;
  failFast: boolean;
  fragments?: readonly string[];
}): string[] {
  return [
    "--reporters",
    `list,summary,${opts.reporter ?? TSTYCHE_REPORTER}`,
    ...(opts.only !== undefined ? ["--only", opts.only] : []),
    ...(opts.failFast ? ["--failFast"] : []),
    ...(opts.fragments ?? []),
  ];
}

interface ReportLine {
  event: string;
  file?: string;
  line?: number;
  names?: string[];
  code?: string;
  message?: string;
  files?: Record<string, number>;
  tests?: Record<string, number>;
  assertions?: Record<string, number>;
}

export interface TstycheReport {
  /** TSTyche's counts, as its summary prints them, prefixed `tstyche_`; `errors`: diagnostics outside assertions. */
  summary: Record<string, number>;
  failures: TestFailureRecord[];
  /** Whether the run reached its end (the counts line): no end, no verdict. */
  finished: boolean;
}

/**
 * The reporter's lines as run_tests' summary and failures: each failed assertion as `failed` at its file and
 * line (`<file> > <describe> > <test>`), each other error (a type error in a test file, a configuration or
 * TypeScript error) as `error`; the counts of test files, tests and assertions TSTyche printed.
 */
export function parseTstycheReport(text: string, projectDir: string): TstycheReport {
  const failures: TestFailureRecord[] = [];
  let end: ReportLine | undefined;
  let errors = 0;
  for (const l of parseJsonLines<ReportLine>(text)) {
    if (l.event === "run:end") {
      end = l;
      continue;
    }
    const failed = l.event === "expect:fail";
    if (!failed) errors++;
    const rel = l.file ? path.relative(projectDir, l.file) : "";
    failures.push({
      node_id: [...(rel ? [rel] : ["tstyche"]), ...(l.names ?? [])].join(" > "),
      kind: failed ? "failed" : "error",
      ...(l.file ? { file: l.file } : {}),
      ...(l.line !== undefined ? { line: l.line } : {}),
      message: `${l.message ?? ""}${l.code ? ` ${l.code}` : ""}`.trim(),
    });
  }
  const count = (group: Record<string, number> | undefined, key: string) => group?.[key] ?? 0;
  const summary: Record<string, number> = {
    tstyche_files_passed: count(end?.files, "passed"),
    tstyche_files_failed: count(end?.files, "failed"),
    tstyche_tests_passed: count(end?.tests, "passed"),
    tstyche_tests_failed: count(end?.tests, "failed"),
    tstyche_assertions_passed: count(end?.assertions, "passed"),
    tstyche_assertions_failed: count(end?.assertions, "failed"),
    tstyche_skipped:
      count(end?.tests, "skipped") +
      count(end?.tests, "todo") +
      count(end?.tests, "fixme") +
      count(end?.assertions, "skipped") +
      count(end?.assertions, "fixme"),
    errors,
  };
  return { summary, failures, finished: end !== undefined };
}

/** How the summary reads in a note: `39 assertions passed in 3 files` (as TSTyche's summary counts them). */
export function tstycheCounts(summary: Record<string, number>): string {
  const n = (k: string) => summary[k] ?? 0;
  const part = (what: string, passed: number, failed: number) =>
    `${what}: ${passed} passed${failed ? `, ${failed} failed` : ""}`;
  return [
    part("test files", n("tstyche_files_passed"), n("tstyche_files_failed")),
    ...(n("tstyche_tests_passed") + n("tstyche_tests_failed")
      ? [part("tests", n("tstyche_tests_passed"), n("tstyche_tests_failed"))]
      : []),
    part("assertions", n("tstyche_assertions_passed"), n("tstyche_assertions_failed")),
  ].join("; ");
}
