/**
 * xo, the ESLint wrapper a project may lint with instead of an eslint.config.* (sindresorhus/ky: `"test":
 * "xo && npm run build && ava"`): its rules, plugins and ignores are its own, so such a project is linted by its
 * own installed xo, run as project code (the call's sandbox, timeout and environment, like the project's
 * ESLint), printing ESLint's results as `xo --reporter=json` does. xo 1.0 and later run through workers/xo-run.js
 * (xo's API with the options of its CLI): a fix hands the fixed texts back instead of writing them (the
 * transaction writes), and the tsconfig xo generates for files no tsconfig includes, which xo writes into
 * node_modules/.cache/xo-linter whatever its cache location, goes to the run's scratch folder (a read-only
 * sandbox could not write it: every such file would be a parse error). An older xo lints through its CLI.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { displayCommand, failedRunMessage, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import { codePath } from "../../package-root.js";
import type { EslintResult } from "./workers/eslint-instances.js";
import { report, withCorrections } from "./workers/eslint-lint-run.js";
import type { WireFileReport } from "./eslint-wire.js";
import { eslintWrapperOf } from "./eslint-wrappers.js";
import { majorVersion, projectPackage, type ToolModule } from "./project.js";
import { readPackageJson } from "../project-configs.js";

/** xo's own config files (xo 1.0 and later), which make a project an xo project with no package.json key. */
export const XO_CONFIG_NAMES = [
  "xo.config.js",
  "xo.config.cjs",
  "xo.config.mjs",
  "xo.config.ts",
  "xo.config.cts",
  "xo.config.mts",
];

export interface XoProject {
  /** Why the project is an xo project (package.json or a config file), for the notes. */
  why: string;
  /** The project's installed xo; undefined when it is not installed. */
  xo: ToolModule | undefined;
}

/** The project at `root` lints with xo (and has no eslint.config.*, which the caller checked), or undefined. */
export function xoProjectOf(root: string, allowedRoot: string): XoProject | undefined {
  const wrapper = eslintWrapperOf(readPackageJson(root));
  const config = XO_CONFIG_NAMES.find((n) => fs.existsSync(path.join(root, n)));
  if (wrapper?.name !== "xo" && !config) return undefined;
  const why = [
    ...(wrapper?.name === "xo" ? [`package.json ${wrapper.why}`] : []),
    ...(config ? [`it has ${config}`] : []),
  ].join("; ");
  return { why, xo: projectPackage("xo", root, allowedRoot) };
}

/** The file of the installed xo's CLI (package.json `bin`). */
function xoBin(xo: ToolModule): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(xo.dir, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.xo;
  if (!bin)
    throw new ToolError("tool_error", `xo ${xo.version} at ${xo.dir} has no xo command (package.json bin)`);
  return path.resolve(xo.dir, bin);
}

/**
 * What xo is given: nothing for the whole project (xo's own default, every JS/TS file it does not ignore, as
 * `xo` by hand), else the patterns, each `./`-prefixed so none reads as an option.
 */
export function xoPatterns(patterns: readonly string[]): string[] {
  if (patterns.length === 1 && patterns[0] === ".") return [];
  return patterns.map((p) => (p === "." ? "./" : `./${p}`));
}

/** argv of a lint: xo's CLI with its JSON reporter (ESLint's `json` formatter: the results as they are). */
export function xoLintArgs(bin: string, patterns: readonly string[]): string[] {
  return [bin, "--reporter=json", ...xoPatterns(patterns)];
}

/** ESLint results from xo's JSON output; undefined when it is not a results array (xo failed first). */
export function parseXoResults(stdout: string): EslintResult[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) ? (parsed as EslintResult[]) : undefined;
}

/** The command shown in results. */
export function xoCommand(patterns: readonly string[], fix: boolean): string {
  return displayCommand("xo", [...(fix ? ["--fix"] : []), "--reporter=json", ...xoPatterns(patterns)]);
}

/**
 * Runs xo in `root` on `patterns`: its findings, or (fix) what `xo --fix` would write, as wire reports. Its
 * cache (ESLint's and xo's, which it would keep in node_modules/.cache) goes to a private scratch folder:
 * a lint writes nothing in the project.
 */
export async function runXo(
  ctx: ToolContext,
  xo: ToolModule,
  root: string,
  patterns: readonly string[],
  fix: boolean,
): Promise<WireFileReport[]> {
  if (fix && majorVersion(xo.version) < 1)
    throw new ToolError(
      "invalid_input",
      `xo ${xo.version} predates xo 1.0's API, which lint_fix needs to fix without writing; run \`xo --fix\` yourself`,
    );
  // xo 1.0 and later through its API (xo-run.js), which keeps its generated tsconfig out of the project; an
  // older xo (ESLint 8) through its CLI.
  const args =
    majorVersion(xo.version) >= 1
      ? [
          codePath("adapters", "js", "workers", "xo-run.js"),
          xo.dir,
          fix ? "fix" : "lint",
          ...xoPatterns(patterns),
        ]
      : xoLintArgs(xoBin(xo), patterns);
  const command = xoCommand(patterns, fix);
  const cache = makeScratchDir("mcq-xo-cache-");
  const chunks: Buffer[] = [];
  try {
    const run = await ctx.run({
      program: process.execPath,
      args,
      cwd: root,
      // find-cache-directory, which xo asks for its cache folder, honours CACHE_DIR.
      env: { CACHE_DIR: cache },
      onStdoutData: (c) => void chunks.push(c),
    });
    const results = parseXoResults(Buffer.concat(chunks).toString("utf8"));
    if (!results || (run.returncode !== 0 && run.returncode !== 1))
      throw runFailed(failedRunMessage("xo", "printed no results", run.returncode), command, run);
    // A fix's messages are those left in its output: the line/column edits of a lint only.
    return results.map((r) => (fix ? report(r, r.output) : withCorrections(r, report(r))));
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
}
