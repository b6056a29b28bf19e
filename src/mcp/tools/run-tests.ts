import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import { defineTool, type ToolContext } from "../../engine/tool.js";
import { displayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { estimateTokens, RESULT_OVERHEAD_TOKENS, tailWithinTokens } from "../../findings/budget.js";
import { listEntries, listingOf, pageFields, PAGING_ARGS, type ListingArgs } from "./listing.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { parseJunitFailures, type TestFailure } from "../../adapters/python/junit.js";
import type { TestFailureRecord, TestRunOutcome } from "../../adapters/test-runners.js";
import { chooseTestRunner } from "../../adapters/tool-choice.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import { inTestsNetworkScope } from "./tests-network.js";
import {
  choosePlugins,
  findCoverageConfig,
  LIST_PLUGINS_SCRIPT,
  parseCoverageTotal,
  parsePluginList,
  splitNodeId,
  parsePytestSummary,
  parseRootdir,
  pytestArgs,
  pytestConfinement,
  pytestProgressPercent,
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

/** A non-pytest runner's outcome in run_tests' result shape. */
async function testRunResult(
  ctx: ToolContext,
  args: RunArgs,
  target: string,
  outcome: TestRunOutcome,
  choiceNotes: string[] = [],
) {
  const shown = listFailures(ctx, args, target, outcome.runner, outcome.failures, outcome.output);
  return {
    success: true,
    passed: outcome.passed,
    runner: outcome.runner,
    command: outcome.command,
    returncode: outcome.returncode,
    summary: outcome.summary,
    failures: shown.items,
    failure_count: outcome.failures.length,
    summary_text: testsSummary(outcome.runner, outcome.passed, outcome.failures.length),
    coverage_percent: outcome.coverage_percent,
    output: shown.output.text || undefined,
    truncated: outcome.truncated || shown.view.capped || shown.output.cut,
    ...pageFields(shown.view, { lists: ["failures"] }),
    notes: [...choiceNotes, ...outcome.notes],
    ...(await testsSarif(ctx, args.output, shown, outcome.runner, outcome.notes, outcome.command)),
  };
}

/** The pytest plugins the project's interpreter sees (empty when it cannot say). */
async function listPlugins(ctx: ToolContext, python: string, cwd: string): Promise<[string, boolean][]> {
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

type RunArgs = ListingArgs & { output: "json" | "sarif" };

/** The runner's output gets at most this share of the result's budget; the failures list the rest. */
const OUTPUT_SHARE = 0.25;

/**
 * The failures listed within the call's budget or page, through their findings (SARIF gets them all), and
 * the runner's output cut to its end when it would take more than its share of the budget.
 */
function listFailures(
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

async function testsSarif(
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
function testsSummary(runner: string, passed: boolean, failures: number): string {
  if (failures) return `${runner}: ${failures} failure${failures === 1 ? "" : "s"}`;
  return `${runner}: ${passed ? "passed" : "failed"}`;
}

export const runTestsTool = () =>
  defineTool({
    name: "run_tests",
    description: "Run the project's tests (runs its code): counts and each failure's file, line, message.",
    input: z.strictObject({
      path: z
        .string()
        .default("tests/")
        .describe("Tests folder, file or node id; relative to working_dir, else cwd"),
      working_dir: z.string().optional().describe("Folder the tests run in"),
      pattern: z.string().optional().describe("File glob (test_*.py) or -k expression"),
      markers: z.string().optional().describe("pytest -m expression"),
      verbose: z.boolean().default(false).describe("Verbose runner output"),
      coverage: z.boolean().default(false).describe("Measure coverage"),
      fail_fast: z.boolean().default(false).describe("Stop at the first failure"),
      output: OUTPUT_ARG,
      ...PAGING_ARGS,
    }),
    annotations: {
      title: "Run tests",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    // `path` may be a node id: its path part is resolved through the allowlist in the handler.
    paths: [{ arg: "working_dir", kind: "directory" }],
    async handler(args, ctx) {
      checkNotOption(args.pattern, "pattern");
      checkNotOption(args.markers, "markers");
      const { file, rest } = splitNodeId(args.path);
      if (rest !== undefined && (rest === "" || rest.startsWith("-") || /[\0\n]/.test(rest)))
        throw new ToolError("invalid_input", `path: not a valid pytest node id: ${args.path}`);
      const testPath = ctx.allowlist.resolve(file, { base: args.working_dir, label: "path" });
      return inTestsNetworkScope(ctx, args.working_dir ?? testPath, async () => {
        // A Go module, a crate, a JS or Ruby project runs its own runner; pytest node ids are pytest's.
        const choice =
          rest === undefined
            ? chooseTestRunner(testPath, ctx.allowlist.rootOf(testPath) ?? testPath)
            : undefined;
        if (choice?.kind === "none")
          return {
            success: true,
            // Nothing run is no pass: no `passed` at all, and the note says why.
            nothing_checked: true,
            summary: {},
            failures: [],
            failure_count: 0,
            notes: [`checked nothing: ${choice.nothing}`],
          };
        const claimed = choice?.kind === "runner" ? choice : undefined;
        if (claimed)
          return testRunResult(
            ctx,
            args,
            testPath,
            await claimed.runner.run(
              ctx,
              {
                target: testPath,
                workingDir: args.working_dir,
                pattern: args.pattern,
                markers: args.markers,
                verbose: args.verbose,
                coverage: args.coverage,
                failFast: args.fail_fast,
              },
              claimed.projectDir,
            ),
            claimed.notes,
          );
        if (rest !== undefined && !fs.statSync(testPath).isFile())
          throw new ToolError("invalid_input", `path: a node id must name a test file: ${args.path}`);
        const target = rest === undefined ? testPath : `${testPath}::${rest}`;
        const targetDir = fs.statSync(testPath).isDirectory() ? testPath : path.dirname(testPath);
        const cwd = args.working_dir ?? (ctx.allowlist.rootOf(ctx.config.cwd) ? ctx.config.cwd : targetDir);
        // The project's virtualenv is looked for from working_dir (else the tests' directory) up to its root.
        const venvStart = args.working_dir ?? targetDir;
        const pytest = resolvePytest(venvStart, ctx.allowlist.rootOf(venvStart) ?? venvStart);
        if (!pytest)
          throw new ToolError(
            "tool_not_found",
            "pytest is not installed (no project virtualenv and no pytest on PATH)",
          );

        const root = ctx.allowlist.rootOf(targetDir) ?? targetDir;
        const coverageConfig = args.coverage ? findCoverageConfig(cwd, root) : undefined;
        const plugins = choosePlugins(
          pytest.fromVenv ? await listPlugins(ctx, pytest.program, cwd) : [],
          args.coverage,
        );
        const temp = makeScratchDir("mcq-pytest-");
        try {
          const junitXml = path.join(temp, "junit.xml");
          const argv = [
            ...pytest.prefixArgs,
            ...pytestArgs({
              target,
              plugins: plugins.load,
              pattern: args.pattern,
              markers: args.markers,
              verbose: args.verbose,
              failFast: args.fail_fast,
              coverageSource: args.coverage ? cwd : undefined,
              coverageConfig,
              junitXml,
              confinement: pytestConfinement(targetDir, root, path.join(temp, "pytest.ini"), cwd),
            }),
          ];
          const command = displayCommand(pytest.display, argv);
          const run = await ctx.run({
            program: pytest.program,
            args: argv,
            cwd,
            // pytest's own progress (`[ 40%]` at the end of a line) as the call's.
            onStdoutLine: (line) => {
              const percent = pytestProgressPercent(line);
              if (percent !== undefined)
                ctx.progress?.({
                  done: percent,
                  total: 100,
                  message: `pytest: ${percent}% of the tests run`,
                });
            },
            // Nothing written into the project (which may be read-only): no bytecode or assertion-rewrite
            // caches, and the coverage data file in the temp dir.
            // Plugins are not autoloaded: only the project's own and those asked for (see choosePlugins),
            // so nothing from outside its environment runs in it or writes into it (.benchmarks/, ...).
            env: {
              PYTHONDONTWRITEBYTECODE: "1",
              PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1",
              ...(args.coverage ? { COVERAGE_FILE: path.join(temp, ".coverage") } : {}),
            },
          });
          const output = combinedOutput(run.stdout, run.stderr);
          const notes = [pytest.note];
          if (plugins.load.length) notes.push(`plugins loaded: ${plugins.load.join(", ")}`);
          if (plugins.skipped.length)
            notes.push(
              `plugins not loaded (installed outside the project's environment): ${plugins.skipped.join(", ")}`,
            );
          if (coverageConfig)
            notes.push(`coverage measures what ${path.relative(cwd, coverageConfig)} configures`);

          if (pytest.fromVenv && /No module named pytest/.test(run.stderr))
            throw new ToolError(
              "tool_not_found",
              `pytest is not installed in the project's virtualenv (${pytest.program})`,
              { command, output, notes },
            );
          if (
            args.coverage &&
            /unrecognized arguments: --cov|Error importing plugin "pytest_cov"|No module named '?pytest_cov/.test(
              output,
            )
          )
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
            failures = parseJunitFailures(fs.readFileSync(junitXml, "utf8"), rootdir, cwd);
          } else if (run.returncode === 1)
            notes.push("pytest wrote no JUnit report, so failures are not itemized");
          const shown = listFailures(ctx, args, args.path, "pytest", failures, output);
          const coveragePercent = args.coverage ? parseCoverageTotal(run.stdout) : undefined;
          return {
            success: true,
            passed: run.returncode === 0,
            command,
            returncode: run.returncode,
            summary: summary ?? {},
            failures: shown.items,
            failure_count: failures.length,
            summary_text: testsSummary("pytest", run.returncode === 0, failures.length),
            coverage_percent: coveragePercent,
            output: shown.output.text,
            truncated: run.truncated || shown.view.capped || shown.output.cut,
            ...pageFields(shown.view, { lists: ["failures"] }),
            notes,
            ...(await testsSarif(ctx, args.output, shown, "pytest", notes, command)),
          };
        } finally {
          fs.rmSync(temp, { recursive: true, force: true });
        }
      });
    },
  });
