/**
 * The repository's GitHub Action (action.yml) run as a runner would run its steps: the Check step's script
 * with the runner's environment (GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH of a
 * pull request in a real git repository, the inputs given to the step as action.yml maps them), then the
 * Verdict step. A monorepo of two Python projects, each with a finding the pull request added and one it did
 * not: the annotations are the changed lines' only, the summary lists every finding by rule and file, the step
 * outputs count them, and the SARIF log (valid against the 2.1.0 schema) files each project's runs under a
 * category of its own for code scanning.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { PATH_WITH_TOOLS } from "../helpers/check.js";
import { sarifErrors } from "../helpers/sarif.js";
import { REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

interface Step {
  name: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = YAML.parse(fs.readFileSync(path.join(REPO_ROOT, "action.yml"), "utf8")) as Action;
const step = (name: string) => action.runs.steps.find((s) => s.name === name)!;

/** `${{ inputs.x }}` and `${{ steps.check.outputs.x }}` as the runner expands them in a step's env. */
function expand(value: string, inputs: Record<string, string>, outputs: Record<string, string>): string {
  return value.replace(
    /\$\{\{\s*(inputs|steps\.check\.outputs)\.([\w-]+)\s*\}\}/g,
    (_, scope: string, name: string) =>
      scope === "inputs" ? (inputs[name] ?? action.inputs[name]?.default ?? "") : (outputs[name] ?? ""),
  );
}

/** Runs a step's `run` with bash in the workspace, as a composite action's step runs. */
function runStep(
  s: Step,
  workspace: string,
  inputs: Record<string, string>,
  outputs: Record<string, string> = {},
) {
  const dir = tempDir("mcq-action-runner-");
  const files = {
    GITHUB_OUTPUT: path.join(dir, "output"),
    GITHUB_STEP_SUMMARY: path.join(dir, "summary.md"),
  };
  for (const f of Object.values(files)) fs.writeFileSync(f, "");
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PATH: PATH_WITH_TOOLS,
    GITHUB_ACTIONS: "true",
    GITHUB_ACTION_PATH: REPO_ROOT,
    RUNNER_TEMP: dir,
    GITHUB_WORKSPACE: workspace,
    GITHUB_EVENT_PATH: path.join(workspace, "..", "event.json"),
    ...files,
  };
  for (const [k, v] of Object.entries(s.env ?? {})) env[k] = expand(v, inputs, outputs);
  const r = spawnSync("bash", ["-e", "-c", s.run!], {
    cwd: workspace,
    env,
    encoding: "utf8",
    timeout: 300_000,
  });
  const output = Object.fromEntries(
    fs
      .readFileSync(files.GITHUB_OUTPUT, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  return { ...r, output, summary: fs.readFileSync(files.GITHUB_STEP_SUMMARY, "utf8") };
}

describe("action.yml", () => {
  it("is a composite action whose scripts take the inputs from the environment, never pasted in", () => {
    expect(action.runs.using).toBe("composite");
    for (const s of action.runs.steps) if (s.run) expect(s.run, s.name).not.toContain("${{");
    expect(step("Upload SARIF").uses).toMatch(/^github\/codeql-action\/upload-sarif@v\d+$/);
    expect(step("Upload SARIF").with?.sarif_file).toBe("${{ steps.check.outputs.sarif }}");
    // No category for the whole upload: each run carries its project's (below).
    expect(step("Upload SARIF").with?.category).toBeUndefined();
    for (const name of ["exit-code", "findings", "annotated", "sarif"])
      expect(action.outputs[name]?.value).toBe(`\${{ steps.check.outputs.${name} }}`);
  });

  describe("run on a pull request of a monorepo", () => {
    const skip = missing("ruff", [TOOLS_VENV_BIN]);
    let root: string;
    let workspace: string;
    let check: ReturnType<typeof runStep>;
    beforeAll(() => {
      if (skip) return;
      root = tempDir("mcq-action-");
      workspace = path.join(root, "repo");
      fs.mkdirSync(workspace);
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
          cwd: workspace,
          encoding: "utf8",
        }).trim();
      git("init", "-q", "-b", "main");
      for (const project of ["app", "lib"]) {
        fs.mkdirSync(path.join(workspace, project));
        fs.writeFileSync(
          path.join(workspace, project, "pyproject.toml"),
          `[project]\nname = "${project}"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["F401"]\n`,
        );
        fs.writeFileSync(path.join(workspace, project, "old.py"), "import os\n");
      }
      git("add", "-A");
      git("commit", "-qm", "base");
      const base = git("rev-parse", "HEAD");
      fs.writeFileSync(path.join(workspace, "app", "old.py"), "import os\n\nimport json\n");
      fs.writeFileSync(path.join(workspace, "lib", "new.py"), "import sys\n");
      git("add", "-A");
      git("commit", "-qm", "the pull request");
      const head = git("rev-parse", "HEAD");
      fs.writeFileSync(
        path.join(root, "event.json"),
        JSON.stringify({ pull_request: { base: { sha: base }, head: { sha: head } } }),
      );
      check = runStep(step("Check"), workspace, { html: "report.html" });
    });

    it.skipIf(skip)("annotates the findings on the changed lines only", () => {
      expect(check.status, check.stderr).toBe(0);
      const annotations = check.stdout.split("\n").filter((l) => l.startsWith("::"));
      expect(annotations.map((l) => /file=([^,]+),line=(\d+)/.exec(l)?.slice(1).join(":")).sort()).toEqual([
        "app/old.py:3",
        "lib/new.py:1",
      ]);
      for (const a of annotations) expect(a).toMatch(/^::(error|warning|notice) .*title=F401 \(ruff\)::/);
    });

    it.skipIf(skip)("writes the job summary and the step outputs", () => {
      expect(check.output).toMatchObject({
        "exit-code": "1",
        findings: "4",
        annotated: "2",
        sarif: expect.stringMatching(/\/mcp-code-quality\.sarif$/),
      });
      for (const text of ["F401", "app/old.py", "lib/old.py", "lib/new.py"])
        expect(check.summary).toContain(text);
      expect(fs.readFileSync(path.join(workspace, "report.html"), "utf8")).toContain("lib/new.py");
    });

    it.skipIf(skip)("writes a valid SARIF log with a code scanning category per project", () => {
      // Outside the checkout: in the runner's temporary folder.
      expect(check.output.sarif!.startsWith(workspace)).toBe(false);
      const log = JSON.parse(fs.readFileSync(check.output.sarif!, "utf8")) as {
        runs: {
          tool: { driver: { name: string } };
          automationDetails?: { id?: string };
          results: unknown[];
        }[];
      };
      expect(sarifErrors(log)).toEqual([]);
      const ruffRuns = log.runs.filter((r) => r.tool.driver.name === "ruff");
      expect(ruffRuns.map((r) => [r.automationDetails?.id, r.results.length]).sort()).toEqual([
        ["app/", 2],
        ["lib/", 2],
      ]);
    });

    it.skipIf(skip)("fails the job in the Verdict step with check's exit code, after the upload", () => {
      const names = action.runs.steps.map((s) => s.name);
      expect(names.indexOf("Verdict")).toBeGreaterThan(names.indexOf("Upload SARIF"));
      const verdict = runStep(step("Verdict"), workspace, {}, check.output);
      expect(verdict.status).toBe(1);
    });

    it.skipIf(skip)("records a usage error's exit code, which check itself could not", () => {
      const bad = runStep(step("Check"), workspace, { args: "--only nosuch" });
      expect(bad.status).toBe(0);
      expect(bad.output).toEqual({ "exit-code": "2" });
      expect(runStep(step("Verdict"), workspace, {}, bad.output).status).toBe(2);
    });
  });
});
