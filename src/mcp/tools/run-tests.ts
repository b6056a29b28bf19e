import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { ToolError } from "../../errors.js";
import { capList, combinedOutput, displayCommand } from "../../engine/result.js";
import { defineTool, type ToolContext } from "../../engine/tool.js";
import { displayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { findingsView } from "../../findings/views.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { parseJunitFailures, type TestFailure } from "../../adapters/python/junit.js";
import {
  parseCoverageTotal,
  parsePytestSummary,
  parseRootdir,
  pytestArgs,
  pytestConfinement,
  resolvePytest,
} from "../../adapters/python/pytest.js";

/** A user string that would read as an option if it started with `-`. */
function checkNotOption(value: string | undefined, label: string): void {
  if (value !== undefined && (value.trim() === "" || value.trimStart().startsWith("-")))
    throw new ToolError(
      "invalid_input",
      `${label} must be a non-empty expression that does not start with "-"`,
    );
}

/** A failing test (or an error) as a finding at its file and line: rule `failed` or `error`. */
export function failureFinding(f: TestFailure): Finding {
  return {
    tool: "pytest",
    file: f.file,
    line: f.line,
    column: 0,
    rule_id: f.kind,
    severity: "error",
    message: `${f.node_id}: ${f.message}`,
  };
}

async function testsSarif(
  ctx: ToolContext,
  output: "json" | "sarif",
  target: string,
  failures: readonly TestFailure[],
  notes: readonly string[],
  command: string,
) {
  if (output !== "sarif") return {};
  const display = displayPaths(target, ctx.allowlist.roots.effective);
  const view = findingsView(failures.map(failureFinding), { display, fingerprints: true });
  return sarifField(ctx, output, display, [{ tool: "pytest", findings: view.all, notes, command }]);
}

export const runTestsTool = () =>
  defineTool({
    name: "run_tests",
    description:
      "Run pytest (the project's virtualenv first, then PATH) and return `passed`, a `summary` of outcome counts, " +
      "`failures` (node id, file, line, message of each failed or erroring test, from JUnit XML) and the capped " +
      "output. Runs the project's code: the allowlist restricts what is targeted, not what that code does.",
    input: z.strictObject({
      path: z
        .string()
        .default("tests/")
        .describe("Test file or directory (relative to working_dir when given)"),
      working_dir: z.string().optional().describe("Directory pytest runs in (inside the allowed paths)"),
      pattern: z
        .string()
        .optional()
        .describe("A file glob such as test_*.py (sets python_files), or else a -k expression"),
      markers: z.string().optional().describe("Marker expression passed to -m, e.g. 'not slow'"),
      verbose: z.boolean().default(false).describe("pytest -v"),
      coverage: z.boolean().default(false).describe("Measure coverage with pytest-cov (--cov)"),
      fail_fast: z.boolean().default(false).describe("Stop at the first failure (-x)"),
      output: OUTPUT_ARG,
    }),
    annotations: {
      title: "Run tests",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    paths: [
      { arg: "working_dir", kind: "directory" },
      { arg: "path", kind: "any", base: "working_dir", default: "tests/" },
    ],
    async handler(args, ctx) {
      checkNotOption(args.pattern, "pattern");
      checkNotOption(args.markers, "markers");
      const targetDir = fs.statSync(args.path).isDirectory() ? args.path : path.dirname(args.path);
      const cwd = args.working_dir ?? (ctx.allowlist.rootOf(ctx.config.cwd) ? ctx.config.cwd : targetDir);
      // The project's virtualenv is looked for from working_dir (else the tests' directory) up to its root.
      const venvStart = args.working_dir ?? targetDir;
      const pytest = resolvePytest(venvStart, ctx.allowlist.rootOf(venvStart) ?? venvStart);
      if (!pytest)
        throw new ToolError(
          "tool_not_found",
          "pytest is not installed (no project virtualenv and no pytest on PATH)",
        );

      const temp = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-pytest-"));
      try {
        const junitXml = path.join(temp, "junit.xml");
        const argv = [
          ...pytest.prefixArgs,
          ...pytestArgs({
            target: args.path,
            pattern: args.pattern,
            markers: args.markers,
            verbose: args.verbose,
            failFast: args.fail_fast,
            coverageSource: args.coverage ? cwd : undefined,
            junitXml,
            confinement: pytestConfinement(
              targetDir,
              ctx.allowlist.rootOf(targetDir) ?? targetDir,
              path.join(temp, "pytest.ini"),
              cwd,
            ),
          }),
        ];
        const command = displayCommand(pytest.display, argv);
        const run = await ctx.run({
          program: pytest.program,
          args: argv,
          cwd,
          // Nothing written into the project (which may be read-only): no bytecode or assertion-rewrite
          // caches, and the coverage data file in the temp dir.
          env: {
            PYTHONDONTWRITEBYTECODE: "1",
            ...(args.coverage ? { COVERAGE_FILE: path.join(temp, ".coverage") } : {}),
          },
        });
        const output = combinedOutput(run.stdout, run.stderr);
        const notes = [pytest.note];

        if (pytest.fromVenv && /No module named pytest/.test(run.stderr))
          throw new ToolError(
            "tool_not_found",
            `pytest is not installed in the project's virtualenv (${pytest.program})`,
            { command, output, notes },
          );
        if (args.coverage && /unrecognized arguments: --cov/.test(output))
          throw new ToolError(
            "tool_error",
            `coverage needs pytest-cov, which ${pytest.fromVenv ? pytest.program : "the pytest on PATH"} does not have; ` +
              "install pytest-cov into the project's virtualenv",
            { command, returncode: run.returncode, output, notes },
          );

        const summary = parsePytestSummary(run.stdout);
        // 0 passed, 1 failures, 2 interrupted, 5 nothing collected; 3 (internal) and 4 (usage) have no result.
        if (run.returncode === 3 || run.returncode === 4 || (!summary && run.returncode !== 5))
          throw new ToolError(
            "tool_error",
            `pytest failed without a test result (exit ${run.returncode}); see output`,
            {
              command,
              returncode: run.returncode,
              output,
              truncated: run.truncated,
              notes,
            },
          );
        if (run.returncode === 5) notes.push("no tests were collected (pytest exit code 5)");
        if (run.returncode === 2)
          notes.push("pytest was interrupted (exit code 2), e.g. by collection errors");

        let failures: TestFailure[] = [];
        if (fs.existsSync(junitXml)) {
          const rootdir = parseRootdir(run.stdout) ?? cwd;
          failures = parseJunitFailures(fs.readFileSync(junitXml, "utf8"), rootdir);
        } else if (run.returncode === 1)
          notes.push("pytest wrote no JUnit report, so failures are not itemized");
        const shown = capList(failures);
        const coveragePercent = args.coverage ? parseCoverageTotal(run.stdout) : undefined;
        return {
          success: true,
          passed: run.returncode === 0,
          command,
          returncode: run.returncode,
          summary: summary ?? {},
          failures: shown.items,
          failure_count: failures.length,
          coverage_percent: coveragePercent,
          output,
          truncated: run.truncated || shown.capped,
          notes,
          ...(await testsSarif(ctx, args.output, args.path, failures, notes, command)),
        };
      } finally {
        fs.rmSync(temp, { recursive: true, force: true });
      }
    },
  });
