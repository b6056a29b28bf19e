/** run_tests' choice: the runner of a target's project, and the projects a folder of several holds. */
import fs from "node:fs";
import path from "node:path";
import { findUp } from "./js/project.js";
import { dirOf, readPackageJson } from "./project-configs.js";
import { holdsSeveral } from "./tool-choice.js";
import { hasFilesOf, projectLanguages } from "./project-languages.js";
import { projectLayout } from "./projects.js";
import { claimingTestRunners, type TestRunnerAdapter } from "./test-runners.js";

/**
 * run_tests on a folder holding several projects (projects.ts): the folders whose tests run, each with its
 * own runner at its own root (the projects, and folders of loose code outside them; loose files are no
 * test suites). Undefined when the folder is one project (or inside one): its runner runs as before.
 */
export function testProjects(target: string, root: string): string[] | undefined {
  const layout = projectLayout(target, root);
  if (!holdsSeveral(target, layout)) return undefined;
  const dirs = layout.units
    .filter((u) => u.kind !== "loose" || fs.statSync(u.dir).isDirectory())
    .map((u) => u.dir);
  return [...new Set(dirs)];
}

export type TestRunnerChoice =
  | { kind: "runner"; runner: TestRunnerAdapter; projectDir: string; notes: string[] }
  | { kind: "pytest"; notes: string[] }
  | { kind: "none"; nothing: string; notes: string[] };

/**
 * Whether a target is Python test material: a .py file, or a directory holding Python files (not a script
 * known by its #! line: pytest collects no file without .py).
 */
function isPythonTarget(target: string): boolean {
  return (
    /\.py$/.test(target) ||
    (fs.statSync(target, { throwIfNoEntry: false })?.isDirectory() === true && hasFilesOf(target, "python"))
  );
}

/**
 * run_tests: the runner of the target's project. Of the runners claiming it (go test, cargo test, the
 * package.json's runner, RSpec / Minitest), the one of the weightiest language; else pytest for Python
 * tests; never pytest on a file or project of another language.
 */
export function chooseTestRunner(target: string, root: string): TestRunnerChoice {
  const claims = claimingTestRunners(target, root);
  if (claims.length) {
    const languages = projectLanguages(target);
    const rank = (c: (typeof claims)[number]) => {
      const i = Math.min(...c.runner.languages.map((l) => languages.indexOf(l)).filter((n) => n >= 0));
      return Number.isFinite(i) ? i : languages.length;
    };
    const best = [...claims].sort((a, b) => rank(a) - rank(b))[0] as (typeof claims)[number];
    // Python tests in a project whose runner is another language's (a Python package's docs site) stay pytest's.
    if (languages[0] === "python" && !best.runner.languages.includes("python") && rank(best) > 0)
      return { kind: "pytest", notes: [] };
    const others = claims.filter((c) => c !== best).map((c) => c.runner.name);
    return {
      kind: "runner",
      runner: best.runner,
      projectDir: best.projectDir,
      notes: others.length ? [`${others.join(", ")} also claim ${target}; ran ${best.runner.name}`] : [],
    };
  }
  if (isPythonTarget(target)) return { kind: "pytest", notes: [] };
  const language = projectLanguages(target)[0];
  const js = language === "javascript" || language === "typescript";
  const script = js ? testScriptOf(target, root) : undefined;
  return {
    kind: "none",
    nothing: script
      ? `no test runner run_tests runs in ${target} (${language}): the test script of ${script.file} runs \`${script.command}\`; run_tests runs vitest, jest and node --test (and tstyche after them)`
      : language
        ? `no test runner found for ${target} (${language}${js ? ": no test script or vitest/jest dependency in package.json" : ""})`
        : `no tests found under ${target}`,
    notes: [],
  };
}

/** Lines of a test script quoted at most, in characters. */
const MAX_SCRIPT_CHARS = 200;

/**
 * The `test` script of the package.json nearest the target (up to the allowed root), when it has one: a
 * project whose runner run_tests does not know (ava) has a test script, and saying it has none misleads.
 */
function testScriptOf(target: string, root: string): { file: string; command: string } | undefined {
  const file = findUp(["package.json"], dirOf(target), root);
  const command = file ? readPackageJson(path.dirname(file))?.scripts?.test : undefined;
  if (!file || typeof command !== "string" || !command.trim()) return undefined;
  return {
    file,
    command: command.length > MAX_SCRIPT_CHARS ? `${command.slice(0, MAX_SCRIPT_CHARS)}…` : command,
  };
}
