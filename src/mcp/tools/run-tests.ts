import { listPlugins, testRunResult, testsSummary, type RunArgs } from "./test-results.js";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import { defineTool, type ToolContext, type ToolDefinition } from "../../engine/tool.js";
import { displayPaths } from "../../findings/display-path.js";
import { listingOf, PAGING_ARGS } from "./listing.js";
import { OUTPUT_ARG } from "./sarif-output.js";
import { parseJunitFailures, type TestFailure } from "../../adapters/python/junit.js";
import { chooseTestRunner, testProjects } from "../../adapters/test-runner-choice.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import { inTestsNetworkScope } from "./tests-network.js";
import {
  everyProjectFailed,
  projectFailure,
  projectNotes,
  summaryWithFailures,
  type ProjectFailure,
} from "./project-failures.js";
import {
  choosePlugins,
  findCoverageConfig,
  parseCoverageTotal,
  splitNodeId,
  parsePytestSummary,
  parseRootdir,
  pytestArgs,
  pytestConfinement,
  pytestProgressPercent,
  pytestTestpaths,
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

type RunTestsArgs = RunArgs & { path: string; working_dir?: string; max_result_tokens?: number };

/**
 * run_tests on a folder holding several projects: each project's own run (its runner, at its root), one
 * after the other, as one result: `projects` says what each ran and found, `summary` adds them up, the
 * failures are each run's (each listed within its share of the budget), `passed` only when every run passed.
 */
/** The counts of a test summary that are tests (passed, failed, skipped, errors), added up. */
const TEST_COUNTS = ["passed", "failed", "skipped", "errors"];

/**
 * One project's run among several, where that project has no tests at all (a Go module of examples, a
 * package without a test script): nothing checked there, as for a project with no runner, rather than a
 * failure of the whole run. Alone, such a run is no pass either (its own `passed: false` and note stand).
 */
function withoutTests(result: Record<string, unknown>): Record<string, unknown> {
  const summary = (result.summary ?? {}) as Record<string, unknown>;
  const total = TEST_COUNTS.reduce((n, k) => n + (typeof summary[k] === "number" ? summary[k] : 0), 0);
  const none =
    result.success === true &&
    result.passed === false &&
    total === 0 &&
    !result.failure_count &&
    (result.returncode === 0 || result.returncode === undefined) &&
    !Object.values(summary).some((v) => typeof v === "number" && v > 0);
  if (!none) return result;
  const { passed: _passed, ...rest } = result;
  return { ...rest, nothing_checked: true };
}

async function projectsRun(
  ctx: ToolContext,
  args: RunTestsArgs,
  folder: string,
  projects: readonly string[],
  runOne: (args: RunTestsArgs) => Promise<Record<string, unknown>>,
) {
  const display = displayPaths(folder, ctx.allowlist.roots.effective);
  const share = Math.max(500, Math.floor(listingOf(ctx, args).maxTokens / projects.length));
  const runs: { path: string; result: Record<string, unknown>; failure?: ProjectFailure }[] = [];
  for (const dir of projects) {
    const shown = display.show(dir) || ".";
    let result: Record<string, unknown>;
    try {
      result = await runOne({ ...args, path: dir, max_result_tokens: args.max_result_tokens ?? share });
    } catch (err) {
      // One project's runner failing (not installed, no result) is reported beside the others' runs.
      if (!(err instanceof ToolError)) throw err;
      const failure = projectFailure(err, shown);
      runs.push({ path: shown, result: { success: false, ...err.extra, ...failure }, failure });
      continue;
    }
    runs.push({ path: shown, result: withoutTests(result) });
  }
  const summary: Record<string, number> = {};
  for (const { result } of runs)
    for (const [k, v] of Object.entries((result.summary ?? {}) as Record<string, unknown>))
      if (typeof v === "number") summary[k] = (summary[k] ?? 0) + v;
  const ran = runs.filter((r) => r.result.success && !r.result.nothing_checked);
  const failureCount = runs.reduce((n, r) => n + ((r.result.failure_count as number | undefined) ?? 0), 0);
  const passed = ran.length > 0 && runs.every((r) => r.result.passed === true || r.result.nothing_checked);
  const entries = runs.map(({ path: where, result, failure }) => ({
    path: where,
    runner: result.runner ?? (result.command ? String(result.command).split(" ")[0] : undefined),
    ...(failure
      ? failure
      : {
          passed: result.passed,
          ...(result.nothing_checked ? { nothing_checked: true } : {}),
          command: result.command,
          returncode: result.returncode,
          summary: result.summary,
          failure_count: result.failure_count,
        }),
  }));
  // Projects that failed and none that ran is the call's failure, never "nothing checked".
  const failures = runs.flatMap((r) => (r.failure ? [r.failure] : []));
  if (ran.length === 0 && failures.length) throw everyProjectFailed(failures, "projects", entries);
  return {
    success: true,
    ...(ran.length ? { passed } : { nothing_checked: true }),
    projects: entries,
    command: ran.map((r) => r.result.command).join(" && "),
    summary,
    failures: runs.flatMap((r) => (Array.isArray(r.result.failures) ? r.result.failures : [])),
    failure_count: failureCount,
    summary_text: summaryWithFailures(testsSummary("run_tests", passed, failureCount), failures),
    truncated: runs.some((r) => r.result.truncated === true),
    notes: [
      `projects under ${folder}: ${projects.map((p) => display.show(p) || ".").join(", ")}: each ran its own tests`,
      ...runs.flatMap((r) =>
        projectNotes(r.path, [
          ...(r.failure ? [`${r.failure.error_type}: ${r.failure.error}`] : []),
          ...((r.result.notes as string[] | undefined) ?? []),
        ]),
      ),
    ],
  };
}

/** The arguments of one project's run inside a run of several (projectsRun): run as they are, never split. */
const runAlone = new WeakSet<object>();

export const runTestsTool = () => {
  const tool: ToolDefinition = defineTool({
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
      // A folder holding several projects runs each one's own tests at its own root (tool-choice.ts).
      const projects =
        rest === undefined && !args.working_dir && !runAlone.has(args) && fs.statSync(testPath).isDirectory()
          ? testProjects(testPath, ctx.allowlist.rootOf(testPath) ?? testPath)
          : undefined;
      if (projects)
        return projectsRun(ctx, args, testPath, projects, async (one) => {
          // Each project by itself: one that holds others (a Go module with example modules below it)
          // is not split again.
          const alone = { ...one };
          runAlone.add(alone);
          return (await tool.handler(alone, ctx)) as Record<string, unknown>;
        });
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
        let cwd = args.working_dir ?? (ctx.allowlist.rootOf(ctx.config.cwd) ? ctx.config.cwd : targetDir);
        // The project's virtualenv is looked for from working_dir (else the tests' directory) up to its root.
        const venvStart = args.working_dir ?? targetDir;
        const pytest = resolvePytest(venvStart, ctx.allowlist.rootOf(venvStart) ?? venvStart);
        if (!pytest)
          throw new ToolError(
            "tool_not_found",
            "pytest is not installed (no project virtualenv and no pytest on PATH)",
          );

        const root = ctx.allowlist.rootOf(targetDir) ?? targetDir;
        const temp = makeScratchDir("mcq-pytest-");
        try {
          const confinement = pytestConfinement(targetDir, root, path.join(temp, "pytest.ini"), cwd);
          // The folder of the project's pytest config, with `testpaths` set: run from there with no path, as
          // `pytest` there does (a path would override testpaths: flask's `tests` only, not its examples).
          const testpaths =
            target === testPath &&
            !args.working_dir &&
            path.dirname(confinement.configFile) === testPath &&
            pytestTestpaths(confinement.configFile);
          if (testpaths) cwd = testPath;
          const coverageConfig = args.coverage ? findCoverageConfig(cwd, root) : undefined;
          const plugins = choosePlugins(
            pytest.fromVenv ? await listPlugins(ctx, pytest.program, cwd) : [],
            args.coverage,
          );
          const junitXml = path.join(temp, "junit.xml");
          const argv = [
            ...pytest.prefixArgs,
            ...pytestArgs({
              target: testpaths ? undefined : target,
              plugins: plugins.load,
              pattern: args.pattern,
              markers: args.markers,
              verbose: args.verbose,
              failFast: args.fail_fast,
              coverageSource: args.coverage ? cwd : undefined,
              coverageConfig,
              junitXml,
              confinement,
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
          if (testpaths)
            notes.push(
              `the tests ${path.relative(testPath, confinement.configFile)} names (testpaths = ${testpaths.join(" ")}), as \`pytest\` in ${testPath} runs them`,
            );
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
          return testRunResult(ctx, args, testPath, {
            passed: run.returncode === 0,
            command,
            returncode: run.returncode,
            summary: summary ?? {},
            failures,
            coverage_percent: args.coverage ? parseCoverageTotal(run.stdout) : undefined,
            output,
            truncated: run.truncated,
            notes,
          });
        } finally {
          fs.rmSync(temp, { recursive: true, force: true });
        }
      });
    },
  });
  return tool;
};
