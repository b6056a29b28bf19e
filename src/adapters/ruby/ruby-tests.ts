/**
 * run_tests for Ruby projects: RSpec (`rspec --format json`) or Minitest / test-unit (`rake test` where the
 * Rakefile has a test task, else `ruby -Itest -Ilib` on the test files). RSpec's JSON formatter and, for
 * Minitest, the server's plugin (ruby/minitest/mcq_report_plugin.rb, one JSON line per test) write a report in
 * a temp dir; the final summary each test process prints (`N runs, ...` / test-unit's `N tests, ...`) is read
 * too (ruby-test-output.ts): test-unit has no report, and the plugin's is checked against it. Through
 * `bundle exec` when the project has a Gemfile.lock and Bundler is installed.
 */
import fs from "node:fs";
import path from "node:path";
import { parseJsonLines } from "../json-lines.js";
import { combinedOutput, displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { findExecutable } from "../../exec/which.js";
import { isWithin } from "../../paths/allowlist.js";
import { dirEntries } from "../../paths/dir-entries.js";
import { ProgramNotFoundError } from "../../exec/runner.js";
import { registerExternalTool } from "../registry.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import { RubyTestOutput } from "./ruby-test-output.js";
import { packagePath } from "../../package-root.js";
import { registerTestRunner, type TestRunRequest } from "../test-runners.js";
import { testRunOutcome, type TestFailureRecord, type TestRunOutcome } from "../test-outcome.js";

registerExternalTool({ name: "rspec", program: "rspec", versionArgs: ["--version"] });

/** Where the server's Minitest plugin is (its folder goes on the test process's load path). */
export const MINITEST_PLUGIN_DIR = packagePath("ruby");

export type RubyRunner = "rspec" | "minitest";

const MARKERS = ["Gemfile", ".rspec", "Rakefile", ".rubocop.yml"];
const SPEC_FILE = /_spec\.rb$/;
/** Minitest's and test-unit's file names: `x_test.rb`, `test_x.rb`, Minitest::Spec's `spec_x.rb` (rack). */
const TEST_FILE = /(?:_test|^test_.*|^spec_.*)\.rb$/;

function isDir(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** Files under `dir` whose names match (bounded, vendored folders skipped), sorted. */
export function filesUnder(dir: string, pattern: RegExp, limit = 10_000): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const e of dirEntries(d)) {
      if (out.length >= limit) return;
      const abs = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith(".") && e.name !== "vendor" && e.name !== "node_modules") visit(abs);
      } else if (e.isFile() && pattern.test(e.name)) out.push(abs);
    }
  };
  visit(dir);
  return out.sort();
}

/** The Ruby project of a target (nearest Gemfile/.rspec/Rakefile up to root) and its runner, if it has tests. */
export function rubyTestProject(
  target: string,
  root: string,
): { dir: string; runner: RubyRunner } | undefined {
  const start = isDir(target) ? target : path.dirname(target);
  if (!isDir(target) && !/\.rb$/.test(target)) return undefined;
  let dir: string | undefined;
  for (let d = start; isWithin(root, d); d = path.dirname(d)) {
    if (MARKERS.some((m) => fs.existsSync(path.join(d, m)))) {
      dir = d;
      break;
    }
    if (path.dirname(d) === d) break;
  }
  if (!dir) return undefined;
  if (SPEC_FILE.test(target) && !declaresTestTask(dir)) return { dir, runner: "rspec" };
  if (TEST_FILE.test(path.basename(target))) return { dir, runner: "minitest" };
  const within = isDir(target) ? target : dir;
  if (fs.existsSync(path.join(dir, ".rspec"))) return { dir, runner: "rspec" };
  // A suite the Rakefile declares (Rake::TestTask, whatever its files are named) is what `rake test` runs.
  if (declaresTestTask(dir) && (isDir(target) || /\.rb$/.test(target))) return { dir, runner: "minitest" };
  if (filesUnder(within, SPEC_FILE, 1).length) return { dir, runner: "rspec" };
  if (filesUnder(within, TEST_FILE, 1).length) return { dir, runner: "minitest" };
  return undefined;
}

/** The program and leading args: `bundle exec` when the project locks its gems and Bundler is there. */
function launcher(dir: string, program: string): { program: string; args: string[]; note?: string } {
  const bundle = fs.existsSync(path.join(dir, "Gemfile.lock")) ? findExecutable("bundle") : undefined;
  if (bundle)
    return {
      program: bundle,
      args: ["exec", program],
      note: `bundle exec ${program} (the project's Gemfile.lock)`,
    };
  return { program, args: [] };
}

/** `rspec --format json --out F --format progress [--fail-fast] [-e P] [files]` argv (after the program). */
export function rspecArgs(
  report: string,
  opts: { files: string[]; pattern?: string; failFast: boolean },
): string[] {
  return [
    "--format",
    "json",
    "--out",
    report,
    "--format",
    "progress",
    "--no-color",
    ...(opts.failFast ? ["--fail-fast"] : []),
    ...(opts.pattern ? ["-e", opts.pattern] : []),
    ...opts.files,
  ];
}

interface RspecExample {
  full_description: string;
  status: string;
  file_path: string;
  line_number: number;
  exception?: { class: string; message: string; backtrace?: string[] };
}

export interface RubyTestReport {
  summary: Record<string, number>;
  failures: TestFailureRecord[];
}

/** The first backtrace line in a project file (not a gem): where the example failed. */
function firstProjectLine(lines: readonly string[], dir: string): { file: string; line: number } | undefined {
  for (const l of lines) {
    const m = /^(.+?):(\d+)(?::in |$)/.exec(l);
    if (!m) continue;
    const file = path.resolve(dir, m[1] as string);
    if (isWithin(dir, file) && !file.includes(`${path.sep}vendor${path.sep}`))
      return { file, line: Number(m[2]) };
  }
  return undefined;
}

/** RSpec's JSON report: counts (pending as skipped, errors outside examples) and each failed example. */
export function parseRspecJson(text: string, dir: string): RubyTestReport | undefined {
  let doc: {
    examples?: RspecExample[];
    summary?: { errors_outside_of_examples_count?: number };
    messages?: string[];
  };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    return undefined;
  }
  if (!Array.isArray(doc.examples)) return undefined;
  const summary = {
    passed: 0,
    failed: 0,
    skipped: 0,
    errors: doc.summary?.errors_outside_of_examples_count ?? 0,
  };
  const failures: TestFailureRecord[] = [];
  for (const e of doc.examples) {
    if (e.status === "passed") summary.passed++;
    else if (e.status === "pending") summary.skipped++;
    else if (e.status === "failed") {
      summary.failed++;
      const file = path.resolve(dir, e.file_path);
      const at = firstProjectLine(e.exception?.backtrace ?? [], dir);
      const text = (e.exception?.message ?? "").replace(/^\n+|\s+$/g, "");
      failures.push({
        node_id: `${path.relative(dir, file)} > ${e.full_description}`,
        kind: "failed",
        file: at?.file ?? file,
        line: at?.line ?? e.line_number,
        message:
          e.exception && !/ExpectationNotMetError$/.test(e.exception.class)
            ? `${e.exception.class}: ${text}`
            : text,
      });
    }
  }
  // Errors outside examples (a spec file that does not load) come with RSpec's messages.
  if (summary.errors > 0)
    failures.push({
      node_id: "(load error)",
      kind: "error",
      message: (doc.messages ?? []).join("\n").trim(),
    });
  return { summary, failures };
}

interface MinitestLine {
  class: string;
  name: string;
  file?: string;
  line?: number;
  skipped: boolean;
  failures: { label: string; message: string; location: string; error: boolean }[];
}

/** The server's Minitest report (a JSON line per test): counts and each failure or error at its location. */
export function parseMinitestReport(text: string, dir: string): RubyTestReport {
  const summary = { passed: 0, failed: 0, skipped: 0, errors: 0 };
  const failures: TestFailureRecord[] = [];
  for (const t of parseJsonLines<MinitestLine>(text)) {
    if (t.skipped) summary.skipped++;
    else if (t.failures.length === 0) summary.passed++;
    else {
      const error = t.failures.some((f) => f.error);
      if (error) summary.errors++;
      else summary.failed++;
      const f = t.failures[0] as MinitestLine["failures"][number];
      const m = /^(.+):(\d+)$/.exec(f.location);
      const file = m ? path.resolve(dir, m[1] as string) : t.file;
      failures.push({
        node_id: `${t.file ? `${path.relative(dir, t.file)} > ` : ""}${t.class}#${t.name}`,
        kind: error ? "error" : "failed",
        ...(file ? { file } : {}),
        ...(m ? { line: Number(m[2]) } : t.line ? { line: t.line } : {}),
        message: f.message.trim(),
      });
    }
  }
  // Minitest runs in a random order: failures are listed by file and line.
  failures.sort((a, b) => (a.file ?? "").localeCompare(b.file ?? "") || (a.line ?? 0) - (b.line ?? 0));
  return { summary, failures };
}

function rakefileText(dir: string): string {
  try {
    return fs.readFileSync(path.join(dir, "Rakefile"), "utf8");
  } catch {
    return "";
  }
}

/** A Rakefile that defines a test task (Rake::TestTask or `task :test`). */
function hasRakeTestTask(dir: string): boolean {
  return /Rake::TestTask|task\s*\(?\s*[:"']test\b/.test(rakefileText(dir));
}

/** A Rakefile that declares a Minitest/test-unit suite with Rake::TestTask. */
function declaresTestTask(dir: string): boolean {
  return rakefileText(dir).includes("Rake::TestTask");
}

/**
 * A Minitest or test-unit run's counts and failures. test-unit's summary (it has no report) wins: a
 * Minitest report beside it comes from fixtures its tests run in subprocesses (rake's own suite). Otherwise
 * the server's Minitest report, checked against Minitest's summaries; else the summaries and failure blocks.
 */
function minitestResult(
  report: string | undefined,
  printed: RubyTestOutput,
  dir: string,
  notes: string[],
): { runner: string; summary: Record<string, number>; failures: TestFailureRecord[] } | undefined {
  const said = printed.summary();
  const reported = report?.trim() ? parseMinitestReport(report, dir) : undefined;
  if (said?.framework === "test-unit" || (said && !reported)) {
    if (said.framework === "test-unit" && reported)
      notes.push("Minitest runs inside the tests (subprocesses of the suite) are not counted");
    if (said.processes > 1) notes.push(`${said.processes} test processes: their summaries are added up`);
    return { runner: said.framework, summary: said.summary, failures: printed.failures() };
  }
  if (!reported) return undefined;
  if (said) {
    const [a, b] = [said.summary, reported.summary];
    const differ = (Object.keys(a) as (keyof typeof a)[]).some((k) => a[k] !== b[k]);
    if (differ)
      notes.push(
        `Minitest's own summaries add up to ${JSON.stringify(a)}; the per-test report (listed) has ${JSON.stringify(b)}`,
      );
  }
  return { runner: "minitest", ...reported };
}

async function run(ctx: ToolContext, req: TestRunRequest, dir: string): Promise<TestRunOutcome> {
  const root = ctx.allowlist.rootOf(dir) ?? dir;
  const found = rubyTestProject(req.target, root);
  if (!found) throw new ToolError("invalid_input", `no Ruby tests found for ${req.target}`);
  if (req.markers)
    throw new ToolError(
      "invalid_input",
      `markers is a pytest option; ${found.runner} has none (use pattern)`,
    );
  const temp = makeScratchDir("mcq-rubytest-");
  const notes: string[] = [];
  try {
    const report = path.join(temp, found.runner === "rspec" ? "rspec.json" : "minitest.jsonl");
    const rel = path.relative(dir, req.target);
    let program: string;
    let args: string[];
    // TEST and TESTOPTS from the server's environment would change what rake's test task runs.
    let env: Record<string, string | undefined> = { TEST: undefined, TESTOPTS: undefined };
    if (found.runner === "rspec") {
      const l = launcher(dir, "rspec");
      program = l.program;
      args = [
        ...l.args,
        ...rspecArgs(report, { files: rel ? [rel] : [], pattern: req.pattern, failFast: req.failFast }),
      ];
      if (l.note) notes.push(l.note);
    } else {
      const nameOption = req.pattern ? [`-n`, `/${req.pattern.replace(/\//g, "\\/")}/`] : [];
      env = {
        ...env,
        MCQ_MINITEST_REPORT: report,
        // The server's plugin on the load path of every Ruby process the run starts (rake runs ruby).
        RUBYOPT: [`-I${MINITEST_PLUGIN_DIR}`, process.env.RUBYOPT].filter(Boolean).join(" "),
      };
      if (!rel && hasRakeTestTask(dir)) {
        const l = launcher(dir, "rake");
        program = l.program;
        args = [...l.args, "test"];
        if (nameOption.length) env.TESTOPTS = nameOption.join(" ");
        notes.push("the project's `rake test` task");
      } else {
        const files = isDir(req.target) ? filesUnder(req.target, TEST_FILE) : [req.target];
        const l = launcher(dir, "ruby");
        program = l.program;
        args = [
          ...l.args,
          "-Itest",
          "-Ilib",
          "-e",
          "ARGV.shift(Integer(ARGV.shift)).each { |f| require File.expand_path(f) }",
          String(files.length),
          ...files.map((f) => path.relative(dir, f)),
          ...nameOption,
        ];
        notes.push("minitest: ruby -Itest -Ilib on the test files");
      }
      if (req.failFast) notes.push("minitest has no fail-fast option: every test ran");
    }
    const command = displayCommand(path.basename(program), args);
    const printed = new RubyTestOutput(dir);
    let result;
    try {
      result = await ctx.run({ program, args, cwd: dir, env, onStdoutLine: (l) => printed.push(l) });
    } catch (err) {
      if (err instanceof ProgramNotFoundError)
        throw new ToolError(
          "tool_not_found",
          `${path.basename(program)} is not installed (${found.runner === "rspec" ? "gem install rspec, or apt install ruby-rspec" : "Ruby ships minitest and rake"})`,
          { command },
        );
      throw err;
    }
    const output = combinedOutput(result.stdout, result.stderr);
    const text = fs.existsSync(report) ? fs.readFileSync(report, "utf8") : undefined;
    const parsed =
      found.runner === "rspec"
        ? text === undefined
          ? undefined
          : { runner: "rspec", ...parseRspecJson(text, dir) }
        : minitestResult(text, printed, dir, notes);
    if (!parsed?.summary)
      throw runFailed(
        `${found.runner === "rspec" ? "rspec" : "the tests"} failed (exit ${result.returncode}) without a test report or summary; see output`,
        command,
        result,
      );
    const { summary, failures = [] } = parsed;
    if (req.coverage) notes.push(`coverage is not measured for ${parsed.runner} by run_tests yet`);
    const total = summary.passed! + summary.failed! + summary.errors!;
    if (total === 0) notes.push("no tests ran");
    return testRunOutcome(parsed.runner, command, result, { summary, failures, ran: total }, output, notes);
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

registerTestRunner({
  name: "ruby tests",
  languages: ["ruby"],
  claims: (target, root) => rubyTestProject(target, root)?.dir,
  run,
});
