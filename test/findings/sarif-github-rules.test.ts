/**
 * Every SARIF log this server writes passes Microsoft's SARIF validator with GitHub code scanning's rules
 * (`sarif-multitool validate --rule-kind "Sarif;Gh"`) with no error and no warning: `check --sarif` over a
 * project per language (Python, JavaScript/TypeScript, Go, Rust, Ruby, Markdown), with GitHub's limits said in
 * a run, and the tools' `output: "sarif"` (security_scan with bandit and the secrets scanner, run_tests, lint,
 * format_check and lint_fix with the embedded ruff, check_markdown_links). A hand-made log missing what GitHub
 * requires proves the validator reports it. The schema itself is checked in sarif-schema.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../helpers/check.js";
import { multitool, validateSarif, type ValidatorProblem } from "../helpers/sarif-multitool.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, IN_CI, missing, tempDir, TOOLS_GO_BIN, TOOLS_VENV_BIN } from "../helpers/tools.js";

const CHECK_TOOLS = ["ruff", "ty", "go", "cargo", "rubocop"];
const noValidator = !multitool() && !IN_CI;
if (noValidator) process.stderr.write("skipping: @microsoft/sarif-multitool is not installed\n");

/** A log with what GitHub requires left out: rules without fullDescription and help, a tool without version. */
const INCOMPLETE = {
  $schema: "https://json.schemastore.org/sarif-2.1.0.json",
  version: "2.1.0",
  runs: [
    {
      tool: { driver: { name: "nameless", informationUri: "https://example.com/", rules: [{ id: "R1" }] } },
      results: [
        {
          ruleId: "R1",
          ruleIndex: 0,
          level: "error",
          message: { text: "a problem" },
          locations: [{ physicalLocation: { artifactLocation: { uri: "a.py" }, region: { startLine: 1 } } }],
        },
      ],
    },
  ],
};

describe.skipIf(
  noValidator ||
    CHECK_TOOLS.some((t) => missing(t, [TOOLS_VENV_BIN, TOOLS_GO_BIN])) ||
    missing("bandit") ||
    missing("pytest"),
)("SARIF against GitHub's rules", () => {
  const dir = tempDir("mcq-sarif-gh-");
  const logs: Record<string, string> = {};
  let problems: ValidatorProblem[] = [];
  let s: Connected;
  const write = (name: string, log: unknown) => {
    expect(log, name).toBeTruthy();
    logs[name] = path.join(dir, `${name}.sarif`);
    fs.writeFileSync(logs[name], JSON.stringify(log));
  };

  beforeAll(async () => {
    // check over a project per language, and with GitHub's 25,000-results limit said in a cut run.
    const all = path.join(dir, "check.sarif");
    const languages = ["python", "js", "go", "rust", "ruby", "markdown"];
    const run = await runCheck([...languages, "--sarif", all]);
    expect(run.status, run.stderr).toBe(1);
    logs.check = all;
    const cut = path.join(dir, "check-cut.sarif");
    await runCheck(["python", "--sarif", cut, "--sarif-max-results", "1"]);
    logs["check-cut"] = cut;

    // The tools' own SARIF, through MCP (ruff not on PATH here: the embedded one).
    const project = copyFixture(path.join(FIXTURES, "python", "bandit-project"));
    fs.cpSync(path.join(FIXTURES, "python", "tests-project"), path.join(project, "tp"), { recursive: true });
    fs.writeFileSync(path.join(project, "app", "secrets.py"), 'AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n');
    fs.writeFileSync(path.join(project, "README.md"), "# P\n\n[gone](nowhere.md)\n");
    s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { VIRTUAL_ENV: undefined },
    });
    const sarifOf = async (tool: string, args: Record<string, unknown>) =>
      (await s.call(tool, { ...args, output: "sarif" })).sarif;
    write("security_scan", await sarifOf("security_scan", { path: "app" }));
    write("run_tests", await sarifOf("run_tests", { path: "tp/tests" }));
    write("lint", await sarifOf("lint", { path: "app/runner.py" }));
    write("format_check", await sarifOf("format_check", { path: "tp" }));
    write("lint_fix", await sarifOf("lint_fix", { path: "tp", dry_run: true }));
    write(
      "check_markdown_links",
      await sarifOf("check_markdown_links", { path: ".", check_external: false }),
    );
    write("incomplete", INCOMPLETE);

    problems = await validateSarif(Object.values(logs));
  }, 900_000);
  afterAll(async () => s?.close());

  it("the validator reports what GitHub requires when it is missing", () => {
    const found = problems.filter((p) => p.file === "incomplete.sarif").map((p) => `${p.level} ${p.rule}`);
    expect(found).toEqual(expect.arrayContaining(["error GH2012", "warning SARIF2005"]));
  });

  it("check --sarif over six languages, and a run cut to GitHub's limits: no error, no warning", () => {
    const log = JSON.parse(fs.readFileSync(logs.check as string, "utf8")) as {
      runs: { tool: { driver: { name: string; semanticVersion?: string; rules: unknown[] } } }[];
    };
    const tools = log.runs.map((r) => r.tool.driver.name);
    expect(tools).toEqual(
      expect.arrayContaining(["ruff", "ty", "eslint", "tsc", "govet", "clippy", "rubocop", "markdown-links"]),
    );
    for (const run of log.runs) expect(run.tool.driver.semanticVersion, run.tool.driver.name).toBeTruthy();
    expect(problems.filter((p) => p.file.startsWith("check"))).toEqual([]);
  });

  it("the tools' output: sarif (bandit and secrets, pytest, the embedded ruff, links): no error, no warning", () => {
    const fromTools = problems.filter((p) => !p.file.startsWith("check") && p.file !== "incomplete.sarif");
    expect(fromTools).toEqual([]);
    const scan = JSON.parse(fs.readFileSync(logs.security_scan as string, "utf8")) as {
      runs: { tool: { driver: { name: string } } }[];
    };
    expect(scan.runs.map((r) => r.tool.driver.name)).toEqual(expect.arrayContaining(["bandit", "secrets"]));
  });
});
