/** run_tests for a Go module: `go test -json [-run P] [-failfast] [-cover] <pattern>`, read from test2json events. */
import fs from "node:fs";
import path from "node:path";
import { displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { registerTestRunner, type TestRunRequest } from "../test-runners.js";
import { testRunOutcome, type TestFailureRecord, type TestRunOutcome } from "../test-outcome.js";
import { findGoModule, modulePath, packageDir, packagePattern } from "./go-env.js";
import { parseJsonLines } from "../json-lines.js";
import { goComplaint, runGoTool } from "./go-run.js";

export function goTestArgs(
  pattern: string,
  opts: { run?: string; failFast: boolean; cover: boolean; verbose: boolean },
): string[] {
  const args = ["test", "-json"];
  if (opts.run) args.push("-run", opts.run);
  if (opts.failFast) args.push("-failfast");
  if (opts.cover) args.push("-cover");
  if (opts.verbose) args.push("-v");
  args.push(pattern);
  return args;
}

export interface GoTestReport {
  summary: { passed: number; failed: number; skipped: number; packages_failed: number; build_failed: number };
  failures: TestFailureRecord[];
  coveragePercent?: number;
}

interface TestEvent {
  Action?: string;
  Package?: string;
  Test?: string;
  Output?: string;
  ImportPath?: string;
  FailedBuild?: string;
}

/** `    add_test.go:14: message` lines a failing test printed (t.Errorf, t.Fatal): its file, line and message. */
const TEST_LOG_LINE = /^\s+([\w./-]+\.go):(\d+): (.*)$/;

/**
 * Folds go test -json events into counts and failures. A failure's location is the first `file.go:line:` log
 * line it printed (resolved in its package's directory); build failures are errors carrying the compiler output.
 */
export function parseGoTestJson(stdout: string, packageDir: (pkg: string) => string): GoTestReport {
  const fold = new GoTestFold(packageDir);
  for (const ev of parseJsonLines<TestEvent>(stdout)) fold.push(ev);
  return fold.report();
}

/** Lines of one test's (or package's) output kept for its failure message. */
const MAX_OUTPUT_LINES = 400;

/**
 * parseGoTestJson one event at a time, as go test's stream arrives: counts are exact however long the output,
 * and a test's output is held only until it ends (at most MAX_OUTPUT_LINES of it).
 */
export class GoTestFold {
  private readonly summary = { passed: 0, failed: 0, skipped: 0, packages_failed: 0, build_failed: 0 };
  private readonly failures: TestFailureRecord[] = [];
  private readonly outputs = new Map<string, string[]>();
  private readonly buildOutput = new Map<string, string[]>();
  private readonly coverages: number[] = [];

  constructor(private readonly packageDir: (pkg: string) => string) {}

  /** One line of go test -json (anything else is skipped). */
  pushLine(line: string): void {
    const t = line.trim();
    if (!t.startsWith("{")) return;
    try {
      this.push(JSON.parse(t) as TestEvent);
    } catch {
      // A foreign line.
    }
  }

  private append(map: Map<string, string[]>, key: string, text: string): void {
    const list = map.get(key) ?? [];
    if (list.length < MAX_OUTPUT_LINES) list.push(text);
    map.set(key, list);
  }

  push(ev: TestEvent): void {
    const { summary, failures, outputs } = this;
    if (ev.Action === "build-output" && ev.ImportPath) {
      this.append(this.buildOutput, ev.ImportPath, ev.Output ?? "");
      return;
    }
    const pkg = ev.Package ?? "";
    const key = `${pkg}\u0000${ev.Test ?? ""}`;
    if (ev.Action === "output") {
      this.append(outputs, key, ev.Output ?? "");
      const cov = /^coverage: ([\d.]+)% of statements/.exec(ev.Output ?? "");
      if (cov && !ev.Test) this.coverages.push(Number(cov[1]));
      return;
    }
    if (!ev.Test) {
      if (ev.Action === "fail") {
        summary.packages_failed++;
        if (ev.FailedBuild) {
          summary.build_failed++;
          const text = (this.buildOutput.get(ev.FailedBuild) ?? []).join("").trim();
          failures.push({ node_id: pkg, kind: "error", message: text || "build failed" });
        }
      }
      if (ev.Action === "pass" || ev.Action === "fail" || ev.Action === "skip") outputs.delete(key);
      return;
    }
    if (ev.Action === "pass") summary.passed++;
    else if (ev.Action === "skip") summary.skipped++;
    else if (ev.Action === "fail") {
      summary.failed++;
      const lines = (outputs.get(key) ?? []).join("").split("\n");
      const logged = lines.map((l) => TEST_LOG_LINE.exec(l)).find((m) => m !== null);
      const message = lines
        .filter((l) => !/^(=== RUN|--- FAIL:|=== (PAUSE|CONT))/.test(l) && l.trim())
        .map((l) => l.trim())
        .join("\n");
      failures.push({
        node_id: `${pkg}.${ev.Test}`,
        kind: "failed",
        ...(logged
          ? { file: path.join(this.packageDir(pkg), logged[1] as string), line: Number(logged[2]) }
          : {}),
        message: message || "test failed",
      });
    }
    if (ev.Action === "pass" || ev.Action === "fail" || ev.Action === "skip") outputs.delete(key);
  }

  report(): GoTestReport {
    // A subtest's failure makes its parent fail too; both are counted, as go test prints both.
    const coveragePercent = this.coverages.length ? Math.min(...this.coverages) : undefined;
    return {
      summary: { ...this.summary },
      failures: [...this.failures],
      ...(coveragePercent !== undefined ? { coveragePercent } : {}),
    };
  }
}

async function run(ctx: ToolContext, req: TestRunRequest, mod: string): Promise<TestRunOutcome> {
  if (req.markers)
    throw new ToolError(
      "invalid_input",
      "markers is a pytest option; go test has none (use pattern for -run)",
    );
  // go test runs packages: a file stands for its own package (its directory, not the ones below it).
  const pattern = req.target.endsWith(".go")
    ? packageDir(path.dirname(req.target), mod)
    : packagePattern(req.target, mod);
  const args = goTestArgs(pattern, {
    run: req.pattern,
    failFast: req.failFast,
    cover: req.coverage,
    verbose: req.verbose,
  });
  const command = displayCommand("go", args);
  const prefix = modulePath(mod);
  const dirOf = (pkg: string) =>
    prefix && (pkg === prefix || pkg.startsWith(prefix + "/"))
      ? path.join(mod, pkg.slice(prefix.length))
      : mod;
  // Every event is folded in as it arrives: counts from the whole stream, not the capped stdout.
  const fold = new GoTestFold(dirOf);
  const result = await runGoTool(
    ctx,
    "go",
    args,
    mod,
    command,
    {},
    { onStdoutLine: (l) => fold.pushLine(l) },
  );
  const report = fold.report();
  const total = report.summary.passed + report.summary.failed + report.summary.skipped;
  if (result.returncode !== 0 && report.failures.length === 0 && report.summary.packages_failed === 0) {
    const why = goComplaint(result.stderr);
    throw runFailed(
      `go test failed (exit ${result.returncode}) without a test result${why ? `: ${why}` : "; see output"}`,
      command,
      result,
    );
  }
  const notes: string[] = [];
  if (total === 0 && report.summary.packages_failed === 0)
    notes.push("no tests ran (no Test functions matched)");
  if (req.coverage && report.coveragePercent !== undefined && report.summary.packages_failed === 0)
    notes.push("coverage_percent is the lowest package coverage (go test reports one per package)");
  const { summary, failures, coveragePercent: coverage_percent } = report;
  const output = goTestText(result.stdout) + result.stderr;
  return testRunOutcome(
    "go test",
    command,
    result,
    { summary, failures, coverage_percent, ran: total },
    output,
    notes,
  );
}

/** The human-readable output go test would have printed without -json (the events' Output fields). */
function goTestText(stdout: string): string {
  return parseJsonLines<TestEvent>(stdout)
    .filter((e) => e.Action === "output" || e.Action === "build-output")
    .map((e) => e.Output ?? "")
    .join("");
}

registerTestRunner({
  name: "go test",
  languages: ["go"],
  claims: (target, root) => {
    const isGo = target.endsWith(".go") || fs.existsSync(path.join(target, "go.mod")) || hasGoFiles(target);
    return isGo ? findGoModule(target, root) : undefined;
  },
  run,
});

function hasGoFiles(dir: string): boolean {
  try {
    return fs.readdirSync(dir).some((e) => e.endsWith(".go"));
  } catch {
    return false;
  }
}
