/**
 * Test runners other than pytest behind `run_tests` (go test, cargo test, the JS runners): each claims the
 * projects it runs and reports the same shape as pytest does (summary, failures, coverage).
 */
import type { ToolContext } from "../engine/tool.js";
import type { ProjectLanguage } from "./project-languages.js";
import type { TestRunOutcome } from "./test-outcome.js";

export type { TestFailureRecord, TestRunOutcome } from "./test-outcome.js";

export interface TestRunRequest {
  /** Canonical target (file or directory) inside the allowlist. */
  target: string;
  /** Canonical working directory, when given. */
  workingDir?: string;
  pattern?: string;
  markers?: string;
  verbose: boolean;
  coverage: boolean;
  failFast: boolean;
}

export interface TestRunnerAdapter {
  name: string;
  /** The languages whose tests it runs (weighed against the project's in tool-choice.ts). */
  languages: readonly ProjectLanguage[];
  /** The project directory this runner runs for the target, or undefined when the target is not its kind. */
  claims(target: string, root: string): string | undefined;
  run(ctx: ToolContext, request: TestRunRequest, projectDir: string): Promise<TestRunOutcome>;
}

const runners: TestRunnerAdapter[] = [];

export function registerTestRunner(adapter: TestRunnerAdapter): void {
  runners.push(adapter);
}

/** Every registered runner claiming the target, with the project directory it runs in, in registration order. */
export function claimingTestRunners(
  target: string,
  root: string,
): { runner: TestRunnerAdapter; projectDir: string }[] {
  const out: { runner: TestRunnerAdapter; projectDir: string }[] = [];
  for (const runner of runners) {
    const projectDir = runner.claims(target, root);
    if (projectDir) out.push({ runner, projectDir });
  }
  return out;
}

/** The registered runners' names (pytest is run_tests' own). */
export function testRunnerNames(): string[] {
  return runners.map((r) => r.name);
}
