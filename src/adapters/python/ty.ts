/** ty (Astral's type checker): the default Python checker. Pure argv builder and concise-output parser. */
import path from "node:path";
import { ToolError } from "../../errors.js";
import { displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ProgramNotFoundError } from "../../exec/runner.js";
import type { Finding, Severity } from "../../findings/model.js";
import { registerExternalTool } from "../registry.js";
import type { TypeCheckOutcome, TypeCheckRequest } from "../type-checkers.js";
import { resolvePythonTool } from "./resolve.js";
import {
  checkDirectory,
  checkerFailed,
  collectedOutcome,
  diagnosticsCollector,
  leftOutNote,
  nestedOwnRoots,
} from "./type-check-common.js";
import { isWithin } from "../../paths/allowlist.js";
import { overflowNote } from "../../findings/collector.js";

registerExternalTool({ name: "ty", program: "ty", versionArgs: ["--version"] });

/**
 * `ty check --output-format concise [--error-on-warning] [--project dir | --config-file f] -- target`.
 * A pyproject.toml config names the project (its directory); any other file is a ty.toml.
 */
export function tyArgs(
  target: string,
  strict: boolean,
  config?: string,
  /** gitignore-style globs relative to where ty runs (ty adds them to its config's `exclude`). */
  excludes: readonly string[] = [],
): string[] {
  const args = ["check", "--output-format", "concise"];
  if (strict) args.push("--error-on-warning");
  if (config) {
    if (path.basename(config) === "pyproject.toml") args.push("--project", path.dirname(config));
    else args.push("--config-file", config);
  }
  for (const e of excludes) args.push("--exclude", e);
  args.push("--", target);
  return args;
}

/**
 * A folder below `cwd` as a ty `--exclude` glob, anchored at `cwd` by `./` (ty 0.0.108 matched no file for a
 * leading `/`: `/packages/a/` left packages/a checked), glob characters escaped.
 */
export function tyExcludeGlob(cwd: string, dir: string): string {
  const rel = path.relative(cwd, dir).split(path.sep).join("/");
  return `./${rel.replace(/[\\*?[\]!#{}]/g, "\\$&")}/`;
}

const CONCISE_LINE =
  /^(?<file>.+?):(?<line>\d+):(?<column>\d+): (?<severity>error|warning|info)\[(?<rule>[\w-]+)\] (?<message>.*)$/;

/**
 * Parses `ty check --output-format concise`: one `file:line:col: severity[rule] message` line per
 * diagnostic, then `Found N diagnostics` (or `All checks passed!`). Relative files resolve against `cwd`.
 */
export function parseTyConcise(output: string, cwd: string): Finding[] {
  const findings: Finding[] = [];
  for (const raw of output.split(/\r?\n/)) {
    const f = parseTyLine(raw, cwd);
    if (f) findings.push(f);
  }
  return findings;
}

/** One line of ty's concise output as a finding (undefined for any other line). */
export function parseTyLine(raw: string, cwd: string): Finding | undefined {
  const m = CONCISE_LINE.exec(raw.trimEnd());
  if (!m?.groups) return undefined;
  const g = m.groups as Record<string, string>;
  return {
    tool: "ty",
    file: path.resolve(cwd, g.file as string),
    line: Number(g.line),
    column: Number(g.column),
    rule_id: g.rule as string,
    severity: g.severity as Severity,
    message: g.message as string,
    docs_url: `https://docs.astral.sh/ty/reference/rules/#${g.rule}`,
  };
}

export async function tyCheck(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const cwd = checkDirectory(req.target, req.config);
  const nested = nestedOwnRoots(ctx, req.target);
  const excludes = nested.filter((d) => isWithin(cwd, d) && d !== cwd).map((d) => tyExcludeGlob(cwd, d));
  const args = tyArgs(req.target, req.strict, req.config, excludes);
  const command = displayCommand("ty", args);
  const cli = resolvePythonTool(ctx, "ty", req.target);
  // Every line is parsed as it arrives: the count is ty's own however long its output (only `output` is capped).
  const found = diagnosticsCollector(req, undefined, nested);
  let run;
  try {
    run = await ctx.run({
      program: cli.executable ?? "ty",
      args,
      cwd,
      onStdoutLine: (line) => {
        const f = parseTyLine(line, cwd);
        if (f) found.push(f);
      },
    });
  } catch (err) {
    if (err instanceof ProgramNotFoundError)
      throw new ToolError(
        "tool_not_found",
        "ty is not installed (not in the project's virtualenv nor on PATH); install it (e.g. `uv tool install ty` " +
          'or `pip install ty`) or pass checker: "mypy" or "pyright"',
        { command },
      );
    throw err;
  }
  // 0: clean, 1: diagnostics at the failing level; 2 (bad options/config) and 101 (panic) are failures.
  if (run.returncode !== 0 && run.returncode !== 1)
    throw checkerFailed("ty", command, run, "failed without a usable result");
  if (run.returncode === 1 && found.seen + found.ignored === 0)
    throw checkerFailed("ty", command, run, "reported failure but no diagnostic could be parsed");
  const notes = [
    ...(cli.note ? [cli.note] : []),
    ...leftOutNote(req.target, nested),
    ...overflowNote("ty", found.kept.length, found.overflow()),
  ];
  return collectedOutcome(found, command, run, notes);
}
