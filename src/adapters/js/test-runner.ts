/**
 * run_tests for JavaScript/TypeScript projects: the project's own runner, detected from package.json (vitest, jest,
 * or `node --test`), with its machine-readable report in a temp dir: vitest/jest `--json` reports, node's JUnit
 * reporter. The same summary and failures as pytest's, each failure at the first stack frame in the project.
 */
import fs from "node:fs";
import path from "node:path";
import { parseJsonLines } from "../json-lines.js";
import { stripVTControlCharacters } from "node:util";
import { combinedOutput, displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import { registerTestRunner, type TestRunRequest } from "../test-runners.js";
import { testRunOutcome, type TestFailureRecord, type TestRunOutcome } from "../test-outcome.js";
import { findUp, projectPackage } from "./project.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import { installCommand } from "./dependencies.js";
import { codePath } from "../../package-root.js";
import {
  parseTstycheReport,
  runsTstyche,
  tstycheArgs,
  tstycheCounts,
  tstycheOnly,
  tstycheScriptArgs,
  TSTYCHE_REPORT_ENV,
} from "./tstyche.js";

export type JsRunner = "vitest" | "jest" | "node";

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface DetectedRunner {
  runner: JsRunner;
  /** The scripts followed to it (`test`, `test:unit`). */
  via: string[];
  /** The command that runs it, as the script has it (`c8 --100 node --test`). */
  command?: string;
  /** node --test's own targets in the script (`node --test test/unit`), plain paths only. */
  targets?: string[];
  /**
   * The other commands the test script chain runs beside the runner (`tstyche`, as `test:typescript`):
   * run_tests does not run them, and says so.
   */
  others?: string[];
  /**
   * The chain's TSTyche command (`tstyche`), which run_tests runs after the runner: the `others` entry it is
   * in, and whether that entry runs nothing else (then the note about it goes once tstyche ran).
   */
  typeTests?: TypeTestsStep;
}

export interface TypeTestsStep {
  command: string;
  entry: string;
  alone: boolean;
}

const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
const LAUNCHERS = new Set(["npx", "exec", "bunx", "dlx"]);

/** The words of one shell command, without leading env assignments. */
function wordsOf(command: string): string[] {
  const words = command.trim().split(/\s+/).filter(Boolean);
  while (words.length && /^\w+=/.test(words[0] as string)) words.shift();
  return words;
}

/** The script a package-manager command runs (`npm run test:unit`, `npm test`, `yarn lint`), if it is one. */
function scriptRun(words: readonly string[], scripts: Record<string, string>): string | undefined {
  const [pm, verb, name] = words;
  if (!pm || !PACKAGE_MANAGERS.has(pm)) return undefined;
  if (verb === "run" || verb === "run-script") return name;
  if (verb === "test" || verb === "t") return "test";
  // yarn, pnpm and bun run a script named as their first word.
  if (pm !== "npm" && verb && scripts[verb] !== undefined) return verb;
  return undefined;
}

/** The runner a command starts, after wrappers such as c8, nyc or cross-env. */
function runnerIn(words: readonly string[]): { runner: JsRunner; targets?: string[] } | undefined {
  const rest = words.filter((w) => !LAUNCHERS.has(w));
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i] as string;
    if (/(^|\/)vitest$/.test(w)) return { runner: "vitest" };
    if (/(^|\/)jest$/.test(w)) return { runner: "jest" };
    if (/(^|\/)node$/.test(w) && rest.slice(i + 1).includes("--test")) {
      const after = rest.slice(rest.indexOf("--test", i) + 1);
      const targets = after.filter(
        (a) => !a.startsWith("-") && /^[\w@./+-]+$/.test(a) && !/[*?[\]{}]/.test(a),
      );
      return { runner: "node", ...(targets.length ? { targets } : {}) };
    }
  }
  return undefined;
}

/**
 * The runner a package.json uses: its `test` script's command, following `npm run x` / `npm test` / `yarn x`
 * chains into the scripts they run (`"test": "npm run test:unit && npm run lint"` → `test:unit`'s
 * `c8 --100 node --test` → node), else a vitest or jest dependency.
 */
export function detectJsRunner(pkg: PackageJson): DetectedRunner | undefined {
  const scripts = pkg.scripts ?? {};
  const seen = new Set<string>();
  // What the script chain runs: a followed script shows as `name (its command)`.
  const shown = (command: string) => {
    const name = scriptRun(wordsOf(command), scripts);
    const script = name === undefined ? undefined : scripts[name];
    return name !== undefined && typeof script === "string" ? `${name} (${script.trim()})` : command.trim();
  };
  const follow = (name: string, via: string[]): DetectedRunner | undefined => {
    const script = scripts[name];
    if (typeof script !== "string" || seen.has(name) || via.length > 8) return undefined;
    seen.add(name);
    const commands = script.split(/&&|\|\||[;|]/).filter((c) => c.trim());
    for (const [i, command] of commands.entries()) {
      const words = wordsOf(command);
      const next = scriptRun(words, scripts);
      const rest = () => commands.filter((_, j) => j !== i);
      const others = () => rest().map(shown);
      const typeTests = () => firstTypeTests(rest(), scripts, shown);
      if (next) {
        const found = follow(next, [...via, next]);
        if (found) return withOthers(found, others(), typeTests());
        continue;
      }
      const hit = runnerIn(words);
      if (hit) return withOthers({ ...hit, via, command: command.trim() }, others(), typeTests());
    }
    return undefined;
  };
  const fromScript = follow("test", ["test"]);
  if (fromScript) return fromScript;
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  if (deps.vitest) return { runner: "vitest", via: [] };
  if (deps.jest) return { runner: "jest", via: [] };
  return undefined;
}

/** A detection with more commands the chain runs beside it (none: as it was). */
function withOthers(found: DetectedRunner, others: string[], typeTests?: TypeTestsStep): DetectedRunner {
  const all = [...(found.others ?? []), ...others];
  const step = found.typeTests ?? typeTests;
  return all.length ? { ...found, others: all, ...(step ? { typeTests: step } : {}) } : found;
}

/**
 * The TSTyche command among a chain's other commands, directly or in a script they run
 * (`npm run test:typescript` → `tstyche`): the command, the entry it is shown as, and whether that entry
 * runs tstyche and nothing else.
 */
function firstTypeTests(
  commands: readonly string[],
  scripts: Record<string, string>,
  shown: (command: string) => string,
): TypeTestsStep | undefined {
  // What one command runs of tstyche: its command, and whether it runs nothing else; depth-bounded.
  const inCommand = (command: string, depth: number): { command: string; alone: boolean } | undefined => {
    const words = wordsOf(command);
    if (runsTstyche(words)) return { command: command.trim(), alone: true };
    const name = scriptRun(words, scripts);
    const script = name === undefined ? undefined : scripts[name];
    if (typeof script !== "string" || depth > 8) return undefined;
    const parts = script.split(/&&|\|\||[;|]/).filter((c) => c.trim());
    const found = parts.map((c) => inCommand(c, depth + 1));
    const first = found.find((f) => f !== undefined);
    return first && { command: first.command, alone: found.every((f) => f?.alone === true) };
  };
  for (const command of commands) {
    const hit = inCommand(command, 0);
    if (hit) return { command: hit.command, entry: shown(command), alone: hit.alone };
  }
  return undefined;
}

const PYTHON_MARKERS = ["pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini"];

/** The JS project of a target: the nearest package.json with a runner, in a directory that is not a Python project. */
export function jsTestProject(
  target: string,
  root: string,
): { dir: string; runner: JsRunner; detected: DetectedRunner } | undefined {
  const start = fs.statSync(target).isDirectory() ? target : path.dirname(target);
  const pkgJson = findUp(["package.json"], start, root);
  if (!pkgJson) return undefined;
  const dir = path.dirname(pkgJson);
  if (!/\.[cm]?[jt]sx?$/.test(target) && PYTHON_MARKERS.some((m) => fs.existsSync(path.join(dir, m))))
    return undefined;
  let pkg: PackageJson;
  try {
    pkg = JSON.parse(fs.readFileSync(pkgJson, "utf8")) as PackageJson;
  } catch {
    return undefined;
  }
  const detected = detectJsRunner(pkg);
  return detected ? { dir, runner: detected.runner, detected } : undefined;
}

/** argv for the runner (after its program), writing its report to `report`. */
export function jsTestArgs(
  runner: JsRunner,
  opts: { report: string; filter?: string; pattern?: string; failFast: boolean },
): string[] {
  const filter = opts.filter ? [opts.filter] : [];
  switch (runner) {
    case "vitest":
      return [
        "run",
        "--reporter=json",
        // The dot reporter prints what the JSON report leaves out: errors outside any test (a worker
        // that does not start, an unhandled rejection), which fail the run with no test failed.
        "--reporter=dot",
        `--outputFile=${opts.report}`,
        ...(opts.pattern ? ["-t", opts.pattern] : []),
        ...(opts.failFast ? ["--bail", "1"] : []),
        ...filter,
      ];
    case "jest":
      return [
        "--json",
        `--outputFile=${opts.report}`,
        "--ci",
        ...(opts.pattern ? ["-t", opts.pattern] : []),
        ...(opts.failFast ? ["--bail"] : []),
        ...filter,
      ];
    case "node":
      return [
        "--test",
        `--test-reporter=${NODE_TEST_REPORTER}`,
        `--test-reporter-destination=${opts.report}`,
        ...(opts.pattern ? [`--test-name-pattern=${opts.pattern}`] : []),
        ...filter,
      ];
  }
}

/** The server's node:test reporter (JSON lines: file, full name, whole message). */
export const NODE_TEST_REPORTER = codePath("adapters", "js", "workers", "node-test-reporter.js");

const FRAME = /(?:file:\/\/)?(\/[^\s():]+):(\d+):(\d+)/g;

/** The first stack frame in a project file (not node_modules): where a failing test failed. */
export function firstProjectFrame(
  text: string,
  projectDir: string,
): { file: string; line: number } | undefined {
  for (const m of text.matchAll(FRAME)) {
    const file = m[1] as string;
    if (isWithin(projectDir, file) && !file.includes(`${path.sep}node_modules${path.sep}`))
      return { file, line: Number(m[2]) };
  }
  return undefined;
}

interface JestJson {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: {
    name: string;
    status?: string;
    message?: string;
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

export interface JsTestReport {
  summary: Record<string, number>;
  failures: TestFailureRecord[];
}

/** vitest's and jest's `--json` report (vitest writes jest's shape): counts, failures, suites that failed to load. */
export function parseJestJson(text: string, projectDir: string): JsTestReport | undefined {
  let doc: JestJson;
  try {
    doc = JSON.parse(text) as JestJson;
  } catch {
    return undefined;
  }
  const failures: TestFailureRecord[] = [];
  let errors = 0;
  for (const suite of doc.testResults ?? []) {
    const rel = path.relative(projectDir, suite.name);
    for (const a of suite.assertionResults ?? []) {
      if (a.status !== "failed") continue;
      const message = (a.failureMessages ?? []).join("\n");
      const at = firstProjectFrame(message, projectDir);
      failures.push({
        node_id: `${rel} > ${a.fullName}`,
        kind: "failed",
        ...(at ? { file: at.file, line: at.line } : { file: suite.name }),
        message: message
          .split("\n")
          .filter((l) => !/^\s+at /.test(l))
          .join("\n")
          .trim(),
      });
    }
    // A suite that failed without failing assertions did not load (syntax error, missing import).
    if (suite.status === "failed" && !(suite.assertionResults ?? []).some((a) => a.status === "failed")) {
      errors++;
      failures.push({ node_id: rel, kind: "error", file: suite.name, message: (suite.message ?? "").trim() });
    }
  }
  return {
    summary: {
      passed: doc.numPassedTests ?? 0,
      failed: doc.numFailedTests ?? 0,
      skipped: (doc.numPendingTests ?? 0) + (doc.numTodoTests ?? 0),
      errors,
    },
    failures,
  };
}

/**
 * The errors vitest caught outside any test (its "Unhandled Errors" section: a pool worker that did not
 * start, an unhandled rejection), from its printed output: how many it says it caught, and each one's first
 * `Error: message` line (as many as the output kept). They fail the run though no test failed.
 */
export function parseVitestUnhandled(output: string): { count: number; messages: string[] } {
  const text = stripVTControlCharacters(output);
  const caught = /Vitest caught (\d+) unhandled errors?/.exec(text);
  if (!caught) return { count: 0, messages: [] };
  const messages: string[] = [];
  for (const block of text.split(/^⎯+ Unhandled (?:Error|Rejection) ⎯+$/m).slice(1)) {
    const first = block
      .split("\n")
      .map((l) => l.trim())
      .find((l) => /^[\w.]*Error: /.test(l));
    if (first) messages.push(first);
  }
  return { count: Number(caught[1]), messages };
}

interface NodeTestLine {
  status: "passed" | "failed" | "skipped" | "todo";
  suite: boolean;
  names: string[];
  file?: string;
  line?: number;
  failure_type?: string;
  message?: string;
  stack?: string;
}

/**
 * The server's node:test report (one JSON line per finished test): counts, and each failure as
 * `<file> > <describe> > <test>` at the first stack frame in the project (else the test's own line), with its
 * whole message. A describe block counts only when it failed on its own (a hook, its body), not for its tests.
 */
export function parseNodeTestReport(text: string, projectDir: string): JsTestReport {
  const summary = { passed: 0, failed: 0, skipped: 0, errors: 0 };
  const failures: TestFailureRecord[] = [];
  for (const t of parseJsonLines<NodeTestLine>(text)) {
    if (t.suite && (t.status !== "failed" || t.failure_type === "subtestsFailed")) continue;
    if (t.status === "passed") summary.passed++;
    else if (t.status === "skipped" || t.status === "todo") summary.skipped++;
    else {
      if (t.suite) summary.errors++;
      else summary.failed++;
      const rel = t.file ? path.relative(projectDir, t.file) : "";
      const at = firstProjectFrame(t.stack ?? "", projectDir);
      failures.push({
        node_id: [...(rel ? [rel] : []), ...t.names].join(" > "),
        kind: t.suite ? "error" : "failed",
        ...(at ? { file: at.file, line: at.line } : t.file ? { file: t.file, line: t.line } : {}),
        message: (t.message ?? "").replace(/\s+$/, ""),
      });
    }
  }
  return { summary, failures };
}

const PROGRAM: Record<JsRunner, string> = { vitest: "vitest", jest: "jest", node: "node" };

async function run(ctx: ToolContext, req: TestRunRequest, projectDir: string): Promise<TestRunOutcome> {
  const root = ctx.allowlist.rootOf(projectDir) ?? projectDir;
  const found = jsTestProject(req.target, root);
  if (!found) throw new ToolError("invalid_input", `no JavaScript test runner found for ${req.target}`);
  const { runner, detected } = found;
  if (req.markers)
    throw new ToolError("invalid_input", `markers is a pytest option; ${runner} has none (use pattern)`);
  let program: string;
  const notes: string[] = [];
  if (runner === "node") {
    program = process.execPath;
    notes.push(`node --test with this server's Node ${process.version}`);
  } else {
    const own = projectPackage(runner, projectDir, root);
    const bin = path.join(projectDir, "node_modules", ".bin", runner);
    if (!own || !fs.existsSync(bin))
      throw new ToolError(
        "tool_not_found",
        `${runner} is the project's test runner (package.json) but it is not installed in node_modules; run \`${installCommand(projectDir)}\``,
      );
    program = bin;
    notes.push(`${runner} ${own.version} from the project (${own.dir})`);
  }
  const temp = makeScratchDir("mcq-jstest-");
  try {
    const report = path.join(temp, runner === "node" ? "report.jsonl" : "report.json");
    const rel = path.relative(projectDir, req.target);
    // On the project itself, node --test runs what the script names (`node --test test/unit`).
    const scriptTargets = !rel && runner === "node" ? (detected.targets ?? []) : [];
    const args = [
      ...jsTestArgs(runner, {
        report,
        filter: rel || undefined,
        pattern: req.pattern,
        failFast: req.failFast,
      }),
      ...scriptTargets,
    ];
    if (detected.command)
      notes.push(
        `the project's test script${detected.via.length > 1 ? ` (${detected.via.join(" → ")})` : ""} runs \`${detected.command}\`; ran ${runner}` +
          (detected.command.split(/\s+/).some((w) => /(^|\/)(c8|nyc)$/.test(w))
            ? " without its coverage wrapper (coverage thresholds are not checked)"
            : ""),
      );
    const command = displayCommand(PROGRAM[runner], args);
    const result = await ctx.run({ program, args, cwd: projectDir, env: { CI: "true" } });
    const output = combinedOutput(result.stdout, result.stderr);
    const text = fs.existsSync(report) ? fs.readFileSync(report, "utf8") : undefined;
    const parsed =
      text === undefined
        ? undefined
        : runner === "node"
          ? parseNodeTestReport(text, projectDir)
          : parseJestJson(text, projectDir);
    if (!parsed)
      throw runFailed(
        `${runner} failed (exit ${result.returncode}) without a test report; see output`,
        command,
        result,
      );
    if (runner === "vitest") addUnhandled(parsed, parseVitestUnhandled(output));
    if (req.coverage) notes.push(`coverage is not measured for ${runner} by run_tests yet`);
    if (req.failFast && runner === "node")
      notes.push("node --test on Node 20 has no fail-fast option: every test ran");
    const total = Object.entries(parsed.summary)
      .filter(([k]) => k !== "skipped")
      .reduce((a, [, v]) => a + v, 0);
    if (total === 0) notes.push("no tests ran");
    const outcome = testRunOutcome(runner, command, result, { ...parsed, ran: total }, output, notes);
    // The type tests the script runs after the runner (tstyche), on the whole project only.
    let step = rel ? undefined : detected.typeTests;
    if (rel && detected.typeTests)
      notes.push(
        `the project's test script also runs \`${detected.typeTests.entry}\`: a run on one path runs ${runner} only; run_tests on the project runs tstyche too`,
      );
    if (step && req.failFast && !outcome.passed) {
      notes.push(`fail_fast: ${runner} failed, so tstyche did not run`);
      step = undefined;
    }
    const typeRun = step ? await runTypeTests(ctx, req, projectDir, root, step, temp, notes) : undefined;
    const others = (detected.others ?? []).filter(
      (entry) => !(typeRun && step?.alone && entry === step.entry),
    );
    if (!rel && others.length) {
      const ran = typeRun ? `${runner} and tstyche` : runner;
      notes.push(
        `the project's test script also runs ${others.map((c) => `\`${c}\``).join(", ")}: run_tests ran ${ran} only, so ${others.length > 1 ? "their verdicts are" : "its verdict is"} not in this result`,
      );
    }
    return typeRun ? withTypeTests(outcome, typeRun) : outcome;
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

/** What the tstyche step ran and found, to fold into the runner's outcome. */
interface TypeTestsRun {
  command: string;
  returncode: number | null;
  truncated: boolean;
  output: string;
  summary: Record<string, number>;
  failures: TestFailureRecord[];
  ok: boolean;
}

/**
 * The project's own tstyche, run as its test script runs it (the script's path fragments; its options, such as
 * `--target`, left out and named in a note), with the server's reporter. Undefined, with a note, when it does
 * not run: not installed, a test name pattern tstyche cannot match.
 */
async function runTypeTests(
  ctx: ToolContext,
  req: TestRunRequest,
  projectDir: string,
  root: string,
  step: TypeTestsStep,
  temp: string,
  notes: string[],
): Promise<TypeTestsRun | undefined> {
  const own = projectPackage("tstyche", projectDir, root);
  const bin = path.join(projectDir, "node_modules", ".bin", "tstyche");
  if (!own || !fs.existsSync(bin)) {
    notes.push(
      `the project's test script runs \`${step.command}\` but tstyche is not installed in node_modules (run \`${installCommand(projectDir)}\`): its type tests did not run`,
    );
    return undefined;
  }
  const only = req.pattern === undefined ? undefined : tstycheOnly(req.pattern);
  if (req.pattern !== undefined && only === undefined) {
    notes.push(
      `tstyche did not run: it selects tests by a plain name (--only), and the pattern \`${req.pattern}\` is a regular expression`,
    );
    return undefined;
  }
  const { fragments, dropped } = tstycheScriptArgs(wordsOf(step.command));
  const report = path.join(temp, "tstyche.jsonl");
  const args = tstycheArgs({ only, failFast: req.failFast, fragments });
  const command = displayCommand("tstyche", args);
  notes.push(
    `tstyche ${own.version} from the project (${own.dir}), as the test script runs \`${step.command}\``,
  );
  if (dropped.length)
    notes.push(`tstyche ran without the script's options ${dropped.map((d) => `\`${d}\``).join(" ")}`);
  const result = await ctx.run({
    program: bin,
    args,
    cwd: projectDir,
    env: { CI: "true", [TSTYCHE_REPORT_ENV]: report },
  });
  const output = combinedOutput(result.stdout, result.stderr);
  const parsed = parseTstycheReport(fs.existsSync(report) ? fs.readFileSync(report, "utf8") : "", projectDir);
  if (!parsed.finished) {
    parsed.summary.errors = (parsed.summary.errors ?? 0) + 1;
    parsed.failures.push({
      node_id: "tstyche",
      kind: "error",
      message: `tstyche exited ${result.returncode} before its summary; see output`,
    });
  } else notes.push(`tstyche: ${tstycheCounts(parsed.summary)}`);
  return {
    command,
    returncode: result.returncode,
    truncated: result.truncated,
    output,
    summary: parsed.summary,
    failures: parsed.failures,
    ok: parsed.finished && result.returncode === 0,
  };
}

/**
 * The runner's outcome with the type tests folded in, as the script's `&&` chain decides: passed only when
 * both passed; the first non-zero exit; both commands, counts, failures and outputs.
 */
function withTypeTests(outcome: TestRunOutcome, t: TypeTestsRun): TestRunOutcome {
  const summary = { ...outcome.summary };
  for (const [k, v] of Object.entries(t.summary)) summary[k] = (summary[k] ?? 0) + v;
  return {
    ...outcome,
    runner: `${outcome.runner}+tstyche`,
    command: `${outcome.command} && ${t.command}`,
    returncode: outcome.returncode !== 0 ? outcome.returncode : t.returncode,
    passed: outcome.passed && t.ok,
    summary,
    failures: [...outcome.failures, ...t.failures],
    output: `${outcome.output}\n${t.output}`,
    truncated: outcome.truncated || t.truncated,
  };
}

/** vitest's errors outside any test, counted as errors with one failure entry each. */
function addUnhandled(report: JsTestReport, unhandled: { count: number; messages: string[] }): void {
  if (!unhandled.count) return;
  report.summary.errors = (report.summary.errors ?? 0) + unhandled.count;
  for (let i = 0; i < unhandled.count; i++)
    report.failures.push({
      node_id: `unhandled error ${i + 1} of ${unhandled.count}`,
      kind: "error",
      message: unhandled.messages[i] ?? "(not in the output kept; see output)",
    });
}

registerTestRunner({
  name: "javascript",
  languages: ["javascript", "typescript"],
  claims: (target, root) => jsTestProject(target, root)?.dir,
  run,
});
