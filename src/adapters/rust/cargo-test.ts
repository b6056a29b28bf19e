/** run_tests for a crate: `cargo test [--no-fail-fast] [FILTER]`, summary and failures read from libtest's output. */
import fs from "node:fs";
import path from "node:path";
import { combinedOutput, displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { registerTestRunner, type TestRunRequest } from "../test-runners.js";
import { testRunOutcome, type TestFailureRecord, type TestRunOutcome } from "../test-outcome.js";
import { findCrate, isWorkspaceRoot } from "./cargo-env.js";
import { cargoComplaint, runCargo } from "./cargo-run.js";

export function cargoTestArgs(opts: {
  filter?: string;
  failFast: boolean;
  verbose: boolean;
  workspace?: boolean;
}): string[] {
  const args = ["test"];
  if (opts.workspace) args.push("--workspace");
  if (!opts.failFast) args.push("--no-fail-fast");
  if (opts.filter) args.push(opts.filter);
  if (opts.verbose) args.push("--", "--nocapture");
  return args;
}

export interface CargoTestReport {
  summary: { passed: number; failed: number; ignored: number; measured: number; filtered_out: number };
  failures: TestFailureRecord[];
  /** How many `test result:` lines (test binaries, doc tests) were read. */
  binaries: number;
}

const RESULT_LINE =
  /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; (\d+) filtered out/;
const PANIC = /^thread '([^']+)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$/;

/**
 * Sums libtest's `test result:` lines and reads each `---- name stdout ----` block: the panic location is the
 * failure's file and line (relative to the crate), the lines after it (without a backtrace) its message.
 */
export function parseCargoTestOutput(stdout: string, crateDir: string): CargoTestReport {
  const summary = { passed: 0, failed: 0, ignored: 0, measured: 0, filtered_out: 0 };
  const failures: TestFailureRecord[] = [];
  let binaries = 0;
  const lines = stdout.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const r = RESULT_LINE.exec(line);
    if (r) {
      binaries++;
      summary.passed += Number(r[1]);
      summary.failed += Number(r[2]);
      summary.ignored += Number(r[3]);
      summary.measured += Number(r[4]);
      summary.filtered_out += Number(r[5]);
      continue;
    }
    const block = /^---- (.+) stdout ----$/.exec(line);
    if (!block) continue;
    const name = block[1] as string;
    const body: string[] = [];
    let file: string | undefined;
    let lineNo: number | undefined;
    for (i++; i < lines.length; i++) {
      const l = lines[i] as string;
      if (/^---- .+ stdout ----$/.test(l) || l === "failures:") {
        i--;
        break;
      }
      if (/^stack backtrace:|^note: (Some details|run with `RUST_BACKTRACE)/.test(l)) break;
      const p = PANIC.exec(l);
      if (p && !file) {
        file = path.resolve(crateDir, p[2] as string);
        lineNo = Number(p[3]);
        continue;
      }
      if (l.trim()) body.push(l);
    }
    failures.push({
      node_id: name,
      kind: "failed",
      ...(file ? { file, line: lineNo } : {}),
      message: body.join("\n").trim() || "test failed",
    });
  }
  return { summary, failures, binaries };
}

async function run(ctx: ToolContext, req: TestRunRequest, crateDir: string): Promise<TestRunOutcome> {
  if (req.markers)
    throw new ToolError("invalid_input", "markers is a pytest option; cargo test has none (use pattern)");
  const args = cargoTestArgs({
    filter: req.pattern,
    failFast: req.failFast,
    verbose: req.verbose,
    workspace: isWorkspaceRoot(crateDir),
  });
  const {
    run: result,
    args: ran,
    notes,
  } = await runCargo(ctx, crateDir, args, displayCommand("cargo", args), {
    RUST_BACKTRACE: "0",
  });
  const command = displayCommand("cargo", ran);
  const report = parseCargoTestOutput(result.stdout, crateDir);
  // A crate whose targets all say `test = false` (a cargo-fuzz crate) builds nothing to run: exit 0 and no
  // test binary is "no tests ran", not a failure.
  if (report.binaries === 0 && result.returncode !== 0) {
    const firstError = cargoComplaint(result.stderr);
    throw runFailed(
      firstError
        ? `cargo test could not build the tests: ${firstError}`
        : `cargo test failed (exit ${result.returncode}) without a test result; see output`,
      command,
      result,
    );
  }
  if (req.coverage) notes.push("coverage is not measured for Rust (it needs cargo-llvm-cov or tarpaulin)");
  if (req.failFast)
    notes.push("fail_fast stops cargo at the first failing test binary; libtest runs each binary whole");
  const total = report.summary.passed + report.summary.failed;
  if (total === 0) notes.push("no tests ran");
  const output = combinedOutput(result.stdout, result.stderr);
  return testRunOutcome("cargo test", command, result, { ...report, ran: total }, output, notes);
}

registerTestRunner({
  name: "cargo test",
  languages: ["rust"],
  claims: (target, root) => {
    const isRust = target.endsWith(".rs") || fs.existsSync(path.join(target, "Cargo.toml"));
    return isRust ? findCrate(target, root) : undefined;
  },
  run,
});
