/**
 * What Minitest and test-unit print for a run, read line by line: each process's final summary
 * (`4 runs, 2 assertions, 1 failures, 1 errors, 1 skips`; test-unit's `606 tests, 1471 assertions, 0 failures,
 * 0 errors, 0 pendings, 1 omissions, 0 notifications`) and each failure block. The summaries are the counts a
 * run reports (several when the project's `rake test` starts several test processes: they add up); the
 * blocks itemize the failures when the server's Minitest report is not there (test-unit has none).
 */
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";
import type { TestFailureRecord } from "../test-outcome.js";

export type RubyTestFramework = "minitest" | "test-unit";

export interface RubyTestSummary {
  framework: RubyTestFramework;
  summary: { passed: number; failed: number; skipped: number; errors: number };
  /** How many summary lines were added up (one per test process). */
  processes: number;
}

const MINITEST_SUMMARY = /^(\d+) runs, (\d+) assertions, (\d+) failures, (\d+) errors, (\d+) skips\s*$/;
const TEST_UNIT_SUMMARY =
  /^(\d+) tests, (\d+) assertions, (\d+) failures, (\d+) errors, (\d+) pendings, (\d+) omissions, (\d+) notifications\s*$/;

/** The counts of one summary line, or undefined when the line is not one. */
export function parseSummaryLine(line: string): Omit<RubyTestSummary, "processes"> | undefined {
  const m = MINITEST_SUMMARY.exec(line);
  if (m) {
    const [runs, , failed, errors, skipped] = m.slice(1).map(Number) as number[];
    return {
      framework: "minitest",
      summary: {
        passed: Math.max(0, runs! - failed! - errors! - skipped!),
        failed: failed!,
        skipped: skipped!,
        errors: errors!,
      },
    };
  }
  const t = TEST_UNIT_SUMMARY.exec(line);
  if (t) {
    const [tests, , failed, errors, pendings, omissions] = t.slice(1).map(Number) as number[];
    const skipped = pendings! + omissions!;
    return {
      framework: "test-unit",
      summary: {
        passed: Math.max(0, tests! - failed! - errors! - skipped),
        failed: failed!,
        skipped,
        errors: errors!,
      },
    };
  }
  return undefined;
}

const BACKTRACE = /^\s*(.+?\.rb):(\d+):in /;
const MINITEST_FAULT = /^\s+\d+\) (Failure|Error):$/;
const MINITEST_TEST = /^(.+?)#(.+?)(?: \[(.+):(\d+)\])?:$/;
const TEST_UNIT_FAULT = /^(Failure|Error): (\S+)\((.+?)\)(?: \[(.+):(\d+)\])?:?(?: (.*))?$/;
const TEST_UNIT_RULE = /^={20,}$/;
const SNIPPET = /^\s*(?:=>)?\s*\d+: /;
const MAX_FAILURES = 2000;
const MAX_MESSAGE_LINES = 40;

interface OpenBlock {
  framework: RubyTestFramework;
  kind: "failed" | "error";
  name?: string;
  location?: { file: string; line: number };
  lines: string[];
}

/**
 * Reads a Ruby test run's stdout line by line (so nothing but the summaries and failure blocks is kept):
 * `push` each line, then `summary()` and `failures()`.
 */
export class RubyTestOutput {
  private readonly counts: RubyTestSummary[] = [];
  private readonly found: TestFailureRecord[] = [];
  private block: OpenBlock | undefined;

  /** `dir` is where the run started: relative locations resolve against it. */
  constructor(private readonly dir: string) {}

  push(raw: string): void {
    const line = raw.replace(/\r$/, "");
    const counted = parseSummaryLine(line);
    if (counted) {
      this.close();
      this.counts.push({ ...counted, processes: 1 });
      return;
    }
    const b = this.block;
    if (b?.framework === "minitest") {
      if (line.trim() === "" || MINITEST_FAULT.test(line)) this.close();
      else if (b.name === undefined) {
        const m = MINITEST_TEST.exec(line);
        b.name = m ? `${m[1]}#${m[2]}` : line;
        if (m?.[3]) b.location = { file: path.resolve(this.dir, m[3]), line: Number(m[4]) };
        return;
      } else {
        this.addLine(b, line);
        return;
      }
    } else if (b?.framework === "test-unit") {
      if (TEST_UNIT_RULE.test(line)) this.close();
      else this.addLine(b, line);
      return;
    }
    const mt = MINITEST_FAULT.exec(line);
    if (mt) {
      this.block = { framework: "minitest", kind: mt[1] === "Error" ? "error" : "failed", lines: [] };
      return;
    }
    const tu = TEST_UNIT_FAULT.exec(line);
    if (tu) {
      this.block = {
        framework: "test-unit",
        kind: tu[1] === "Error" ? "error" : "failed",
        name: `${tu[3]}#${tu[2]}`,
        ...(tu[4] ? { location: { file: path.resolve(this.dir, tu[4]), line: Number(tu[5]) } } : {}),
        lines: tu[6] ? [tu[6]] : [],
      };
    }
  }

  /** The summaries added up; undefined when the run printed none. */
  summary(): RubyTestSummary | undefined {
    this.close();
    const first = this.counts[0];
    if (!first) return undefined;
    const total = { passed: 0, failed: 0, skipped: 0, errors: 0 };
    for (const c of this.counts)
      for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += c.summary[k];
    return { framework: first.framework, summary: total, processes: this.counts.length };
  }

  /** Each failure block, at the first location in the project (the assertion, or the line that raised). */
  failures(): TestFailureRecord[] {
    this.close();
    return [...this.found].sort(
      (a, b) => (a.file ?? "").localeCompare(b.file ?? "") || (a.line ?? 0) - (b.line ?? 0),
    );
  }

  private addLine(b: OpenBlock, line: string): void {
    // A backtrace line: the first one in the project locates the failure; none is part of the message.
    const at = BACKTRACE.exec(line);
    if (at) {
      const file = path.resolve(this.dir, at[1] as string);
      if (!b.location && isWithin(this.dir, file)) b.location = { file, line: Number(at[2]) };
      return;
    }
    if (SNIPPET.test(line)) return;
    if (b.lines.length < MAX_MESSAGE_LINES) b.lines.push(line);
  }

  private close(): void {
    const b = this.block;
    this.block = undefined;
    if (!b || this.found.length >= MAX_FAILURES) return;
    this.found.push({
      node_id: b.name ?? "(unknown test)",
      kind: b.kind,
      ...(b.location ? { file: b.location.file, line: b.location.line } : {}),
      message: b.lines.join("\n").trim(),
    });
  }
}
