/**
 * run_tests for JavaScript/TypeScript projects: the project's own runner, detected from package.json (vitest, jest,
 * or `node --test`), with its machine-readable report in a temp dir: vitest/jest `--json` reports, node's JUnit
 * reporter. The same summary and failures as pytest's, each failure at the first stack frame in the project.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { xmlParser } from "../xml-parser.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import {
  registerTestRunner,
  type TestFailureRecord,
  type TestRunOutcome,
  type TestRunRequest,
} from "../test-runners.js";
import { findUp, projectPackage } from "./project.js";

export type JsRunner = "vitest" | "jest" | "node";

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The runner a package.json uses: its `test` script's command, else a vitest or jest dependency. */
export function detectJsRunner(pkg: PackageJson): JsRunner | undefined {
  const script = pkg.scripts?.test ?? "";
  if (/\bvitest\b/.test(script)) return "vitest";
  if (/\bjest\b/.test(script)) return "jest";
  if (/\bnode\b[^&|;]*--test\b/.test(script)) return "node";
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  if (deps.vitest) return "vitest";
  if (deps.jest) return "jest";
  return undefined;
}

const PYTHON_MARKERS = ["pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini"];

/** The JS project of a target: the nearest package.json with a runner, in a directory that is not a Python project. */
export function jsTestProject(target: string, root: string): { dir: string; runner: JsRunner } | undefined {
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
  const runner = detectJsRunner(pkg);
  return runner ? { dir, runner } : undefined;
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
        "--test-reporter=junit",
        `--test-reporter-destination=${opts.report}`,
        ...(opts.pattern ? [`--test-name-pattern=${opts.pattern}`] : []),
        ...filter,
      ];
  }
}

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

interface JunitCase {
  "@_name": string;
  "@_classname"?: string;
  failure?: { "@_message"?: string; "#text"?: string } | string;
  skipped?: unknown;
}

/** node --test's JUnit report: each testcase (in nested testsuites for describe blocks) counted and read. */
export function parseNodeJunit(xml: string, projectDir: string): JsTestReport {
  const parser = xmlParser({
    ignoreAttributes: false,
    isArray: (name) => name === "testcase" || name === "testsuite",
  });
  const doc = parser.parse(xml) as Record<string, unknown>;
  const summary = { passed: 0, failed: 0, skipped: 0 };
  const failures: TestFailureRecord[] = [];
  const visit = (node: unknown, prefix: string[]) => {
    if (!node || typeof node !== "object") return;
    const n = node as {
      testcase?: JunitCase[];
      testsuite?: ({ "@_name"?: string } & Record<string, unknown>)[];
    };
    for (const c of n.testcase ?? []) {
      if (c.failure !== undefined) {
        summary.failed++;
        const body = typeof c.failure === "string" ? c.failure : `${c.failure["#text"] ?? ""}`;
        const at = firstProjectFrame(body, projectDir);
        const message = typeof c.failure === "string" ? c.failure : (c.failure["@_message"] ?? body);
        failures.push({
          node_id: [...prefix, c["@_name"]].join(" > "),
          kind: "failed",
          ...(at ? { file: at.file, line: at.line } : {}),
          message: message.trim(),
        });
      } else if (c.skipped !== undefined) summary.skipped++;
      else summary.passed++;
    }
    for (const s of n.testsuite ?? []) visit(s, [...prefix, s["@_name"] ?? ""]);
  };
  visit(doc.testsuites ?? doc, []);
  return { summary, failures };
}

const PROGRAM: Record<JsRunner, string> = { vitest: "vitest", jest: "jest", node: "node" };

async function run(ctx: ToolContext, req: TestRunRequest, projectDir: string): Promise<TestRunOutcome> {
  const root = ctx.allowlist.rootOf(projectDir) ?? projectDir;
  const found = jsTestProject(req.target, root);
  if (!found) throw new ToolError("invalid_input", `no JavaScript test runner found for ${req.target}`);
  const { runner } = found;
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
        `${runner} is the project's test runner (package.json) but it is not installed in node_modules; run npm install`,
      );
    program = bin;
    notes.push(`${runner} ${own.version} from the project (${own.dir})`);
  }
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-jstest-"));
  try {
    const report = path.join(temp, runner === "node" ? "junit.xml" : "report.json");
    const rel = path.relative(projectDir, req.target);
    const args = jsTestArgs(runner, {
      report,
      filter: rel || undefined,
      pattern: req.pattern,
      failFast: req.failFast,
    });
    const command = displayCommand(PROGRAM[runner], args);
    const result = await ctx.run({ program, args, cwd: projectDir, env: { CI: "true", FORCE_COLOR: "0" } });
    const output = combinedOutput(result.stdout, result.stderr);
    const text = fs.existsSync(report) ? fs.readFileSync(report, "utf8") : undefined;
    const parsed =
      text === undefined
        ? undefined
        : runner === "node"
          ? parseNodeJunit(text, projectDir)
          : parseJestJson(text, projectDir);
    if (!parsed)
      throw new ToolError(
        "tool_error",
        `${runner} failed (exit ${result.returncode}) without a test report; see output`,
        {
          command,
          returncode: result.returncode,
          output,
          truncated: result.truncated,
        },
      );
    if (req.coverage) notes.push(`coverage is not measured for ${runner} by run_tests yet`);
    if (req.failFast && runner === "node")
      notes.push("node --test on Node 20 has no fail-fast option: every test ran");
    const total = Object.entries(parsed.summary)
      .filter(([k]) => k !== "skipped")
      .reduce((a, [, v]) => a + v, 0);
    if (total === 0) notes.push("no tests ran");
    return {
      runner,
      command,
      returncode: result.returncode,
      passed: result.returncode === 0 && total > 0,
      summary: parsed.summary,
      failures: parsed.failures,
      output,
      truncated: result.truncated,
      notes,
    };
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

registerTestRunner({
  name: "javascript",
  claims: (target, root) => jsTestProject(target, root)?.dir,
  run,
});
