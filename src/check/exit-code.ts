/** check's exit code from its outcomes. Pure. */
import type { CheckOutcome } from "./outcome.js";

export const EXIT = { clean: 0, findings: 1, usage: 2, failed: 3 } as const;

/** A tool check was asked for by name (--only ruff) that could not run because it is not installed. */
export function missingButNamed(outcomes: readonly CheckOutcome[], only: readonly string[]): CheckOutcome[] {
  return outcomes.filter(
    (o) =>
      o.status === "skipped" &&
      o.error_type === "tool_not_found" &&
      only.some((n) => o.id === n || o.id === `${n}-format`),
  );
}

/**
 * 2 when a tool named with --only is not installed (a configuration error), else 3 when a tool that ran
 * (or a --fix transaction) failed (crash, timeout, bad config: its results are missing), else 1 on findings, else 0.
 * Other skipped tools change nothing.
 */
export function exitCode(
  outcomes: readonly CheckOutcome[],
  only: readonly string[],
  fixFailed = false,
): number {
  if (missingButNamed(outcomes, only).length) return EXIT.usage;
  if (fixFailed || outcomes.some((o) => o.status === "failed")) return EXIT.failed;
  if (outcomes.some((o) => o.status === "findings")) return EXIT.findings;
  return EXIT.clean;
}
