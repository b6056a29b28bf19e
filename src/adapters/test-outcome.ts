/**
 * What a test run reports, whichever runner ran it (pytest's shape): the verdict, the counts, each failure
 * at its place, the output. The runners (test-runners.ts) build it with testRunOutcome.
 */

export interface TestFailureRecord {
  node_id: string;
  kind: "failed" | "error";
  file?: string;
  line?: number;
  message: string;
}

export interface TestRunOutcome {
  runner: string;
  command: string;
  returncode: number | null;
  passed: boolean;
  summary: Record<string, number>;
  failures: TestFailureRecord[];
  coverage_percent?: number;
  output: string;
  truncated: boolean;
  notes: string[];
}

/**
 * A finished run as run_tests reports it. It passed only when the runner exited 0 and some test ran (`ran`:
 * the tests run, skipped ones not counted): a run that found no tests is no pass, whatever its exit code.
 */
export function testRunOutcome(
  runner: string,
  command: string,
  result: { returncode: number | null; truncated: boolean },
  report: Pick<TestRunOutcome, "summary" | "failures" | "coverage_percent"> & { ran: number },
  output: string,
  notes: string[],
): TestRunOutcome {
  const { coverage_percent } = report;
  return {
    runner,
    command,
    returncode: result.returncode,
    passed: result.returncode === 0 && report.ran > 0,
    summary: report.summary,
    failures: report.failures,
    ...(coverage_percent !== undefined ? { coverage_percent } : {}),
    output,
    truncated: result.truncated,
    notes,
  };
}
