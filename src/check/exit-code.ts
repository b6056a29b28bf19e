/** check's exit code from its outcomes. Pure. */
import path from "node:path";
import { leftToOthers, type CheckOutcome } from "./outcome.js";

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

/** A project (or other unit) check planned checks for, none of which checked it, and why. */
export interface UncheckedProject {
  target: string;
  reasons: string[];
}

/**
 * The units not checked as they mean: every check came to nothing (not installed, failed, or nothing checked:
 * the tool found nothing of its own there), or a check the project's configuration asks for did not run (a
 * `.golangci.yml` with golangci-lint not installed: what ran instead is not the project's verdict); --changed
 * and --shard's own choices apart. The reasons are the checks that did not run (the required ones, when
 * others ran). The link check is the path's, not a project's. Pure.
 */
export function uncheckedProjects(outcomes: readonly CheckOutcome[]): UncheckedProject[] {
  const byTarget = new Map<string, CheckOutcome[]>();
  for (const o of outcomes) {
    if (o.kind === "links" || leftToOthers(o)) continue;
    byTarget.set(o.target, [...(byTarget.get(o.target) ?? []), o]);
  }
  const ran = (o: CheckOutcome) => o.status === "passed" || o.status === "findings";
  const out: UncheckedProject[] = [];
  for (const [target, list] of byTarget) {
    const missed = list.some(ran) ? list.filter((o) => o.required && !ran(o)) : list;
    if (missed.length)
      out.push({
        target,
        reasons: missed.map(
          (o) =>
            `${o.id} ${o.status === "nothing" ? "checked nothing" : o.status}${o.reason ? `: ${o.reason}` : ""}`,
        ),
      });
  }
  return out;
}

/** "py (python): ruff skipped: not installed; ..." */
export const uncheckedLine = (u: UncheckedProject, cwd: string) =>
  `${path.relative(cwd, u.target) || "."}: ${u.reasons.join("; ")}`;

/**
 * 2 when a tool named with --only is not installed (a configuration error), else 3 when a tool that ran
 * (or a --fix transaction) failed (crash, timeout, bad config: its results are missing), or a project was
 * not checked as it means (every check of it skipped, failed or checked nothing, or one its configuration
 * asks for did not run: uncheckedProjects), else 1 on
 * findings, else 0. Other skipped tools change nothing.
 */
export function exitCode(
  outcomes: readonly CheckOutcome[],
  only: readonly string[],
  fixFailed = false,
): number {
  if (missingButNamed(outcomes, only).length) return EXIT.usage;
  if (fixFailed || outcomes.some((o) => o.status === "failed")) return EXIT.failed;
  if (uncheckedProjects(outcomes).length) return EXIT.failed;
  if (outcomes.some((o) => o.status === "findings")) return EXIT.findings;
  return EXIT.clean;
}
