/** run_tests' result: counts, the failures listed under the budget, their findings and SARIF, the one-line summary. */
import { type ToolContext } from "../../engine/tool.js";
import { displayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { estimateTokens, RESULT_OVERHEAD_TOKENS, tailWithinTokens } from "../../findings/budget.js";
import { listEntries, listingOf, pageFields, type ListingArgs } from "./listing.js";
import { sarifField } from "./sarif-output.js";
import type { TestFailureRecord } from "../../adapters/test-runners.js";
import { LIST_PLUGINS_SCRIPT, parsePluginList } from "../../adapters/python/pytest.js";

/** What every runner's run gives run_tests' one result shape. */
export interface TestRunShape {
  /** Absent for pytest (its results never had a `runner` field). */
  runner?: string;
  /** The runner's own verdict (its exit code); counts that contradict it win (see testRunResult). */
  passed: boolean;
  command: string;
  returncode: number | null;
  summary: Record<string, number>;
  failures: readonly TestFailureRecord[];
  coverage_percent?: number;
  output: string;
  truncated: boolean;
  notes: string[];
}

/** Failing or erroring tests the counts or the failure list name. */
export function failedCount(summary: Record<string, number>, failures: readonly TestFailureRecord[]): number {
  return Math.max((summary.failed ?? 0) + (summary.errors ?? 0), failures.length);
}

/**
 * The one place a run_tests result is shaped, for every runner. Its invariant: never `passed: true` beside a
 * failure count or a listed failure, whatever the runner's exit code said (rake's `rake test` exited 0 with a
 * count read from a fixture's failing run; the count was wrong, the contradiction is never shown).
 */
export async function testRunResult(
  ctx: ToolContext,
  args: RunArgs,
  target: string,
  run: TestRunShape,
  choiceNotes: string[] = [],
) {
  const tool = run.runner ?? "pytest";
  const failed = failedCount(run.summary, run.failures);
  const passed = run.passed && failed === 0;
  const notes = [...choiceNotes, ...run.notes];
  if (run.passed && !passed)
    notes.push(
      `${tool} exited ${run.returncode} but reported ${failed} failing test${failed === 1 ? "" : "s"}: not a pass`,
    );
  const shown = listFailures(ctx, args, target, tool, run.failures, run.output);
  return {
    success: true,
    passed,
    ...(run.runner !== undefined ? { runner: run.runner } : {}),
    command: run.command,
    returncode: run.returncode,
    summary: run.summary,
    // Each failure's file by display path (relative to the project root), as every result shows files.
    failures: shown.items.map((f) => (f.file ? { ...f, file: shown.display.show(f.file) } : f)),
    failure_count: run.failures.length,
    summary_text: testsSummary(tool, passed, run.failures.length),
    coverage_percent: run.coverage_percent,
    output: shown.output.text || undefined,
    truncated: run.truncated || shown.view.capped || shown.output.cut,
    ...pageFields(shown.view, { lists: ["failures"] }),
    notes,
    ...(await testsSarif(ctx, args.output, shown, tool, run.notes, run.command)),
  };
}

/** The pytest plugins the project's interpreter sees (empty when it cannot say). */
export async function listPlugins(
  ctx: ToolContext,
  python: string,
  cwd: string,
): Promise<[string, boolean][]> {
  const run = await ctx.run({
    program: python,
    args: ["-c", LIST_PLUGINS_SCRIPT],
    cwd,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
  });
  return (run.returncode === 0 && parsePluginList(run.stdout)) || [];
}

/**
 * A failing test (or an error) as a finding at its file and line: rule `failed` or `error`. A runner
 * that names no file gives a finding about no file ("", line 0).
 */
export function failureFinding(f: TestFailureRecord, tool = "pytest"): Finding {
  return {
    tool,
    file: f.file ?? "",
    line: f.line ?? 0,
    column: 0,
    rule_id: f.kind,
    severity: "error",
    message: `${f.node_id}: ${f.message}`,
  };
}

export type RunArgs = ListingArgs & { output: "json" | "sarif" };

/** The runner's output gets at most this share of the result's budget; the failures list the rest. */
const OUTPUT_SHARE = 0.25;

/**
 * The failures listed within the call's budget or page, through their findings (SARIF gets them all), and
 * the runner's output cut to its end when it would take more than its share of the budget.
 */
export function listFailures(
  ctx: ToolContext,
  args: RunArgs,
  target: string,
  tool: string,
  failures: readonly TestFailureRecord[],
  output: string,
) {
  const display = displayPaths(target, ctx.allowlist.roots.effective);
  const findings = failures.map((f) => failureFinding(f, tool));
  const listing = listingOf(ctx, args);
  const shown = tailWithinTokens(output, Math.floor(listing.maxTokens * OUTPUT_SHARE));
  const reserve = Math.min(RESULT_OVERHEAD_TOKENS, Math.floor(listing.maxTokens * 0.4));
  const listed = listEntries(
    ctx,
    args,
    failures,
    findings,
    { display, fingerprints: args.output === "sarif" },
    reserve + estimateTokens(shown.text),
  );
  return { display, output: shown, ...listed };
}

export async function testsSarif(
  ctx: ToolContext,
  output: "json" | "sarif",
  listed: ReturnType<typeof listFailures>,
  tool: string,
  notes: readonly string[],
  command: string,
) {
  if (output !== "sarif") return {};
  return sarifField(ctx, output, listed.display, [{ tool, findings: listed.view.all, notes, command }]);
}

/** One line to quote: "pytest: 3 failures" or "pytest: passed". */
export function testsSummary(runner: string, passed: boolean, failures: number): string {
  if (failures) return `${runner}: ${failures} failure${failures === 1 ? "" : "s"}`;
  return `${runner}: ${passed ? "passed" : "failed"}`;
}
