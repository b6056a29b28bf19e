/**
 * ruff on one source text through stdin (`--stdin-filename`): the file's own settings apply, nothing is
 * read or written by ruff but its config. `fix` prints the corrected text on stdout and what is left on
 * stderr; `report` prints the diagnostics (with their fixes) on stdout.
 */
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding } from "../../findings/model.js";
import { parseRuffJsonLine } from "./ruff-cli.js";

/** Corrections held back while code is being edited (the name may be about to be used): contextual ones. */
export const RUFF_CONTEXTUAL_RULES = ["F401", "F841", "F842", "ERA001"];

export interface RuffStdinOptions {
  mode: "report" | "fix";
  /** `--config F`, `--isolated` or nothing (ruffConfigArgs). */
  configArgs: string[];
  /** fix: also unsafe fixes (otherwise `--no-unsafe-fixes`, whatever the project's `unsafe-fixes`). */
  unsafe?: boolean;
  /** fix: `--fixable` (only these rules' fixes). */
  fixable?: string[];
  /** fix: `--extend-unfixable` (never these rules' fixes). */
  unfixable?: string[];
}

export function ruffStdinArgs(file: string, opts: RuffStdinOptions): string[] {
  const fix = opts.mode === "fix";
  return [
    "check",
    fix ? "--fix" : "--no-fix",
    ...(fix ? [opts.unsafe ? "--unsafe-fixes" : "--no-unsafe-fixes"] : []),
    "--no-cache",
    "--output-format",
    "json-lines",
    ...opts.configArgs,
    ...(fix && opts.fixable?.length ? ["--fixable", opts.fixable.join(",")] : []),
    ...(fix && opts.unfixable?.length ? ["--extend-unfixable", opts.unfixable.join(",")] : []),
    "--stdin-filename",
    file,
    "--",
    "-",
  ];
}

export interface RuffStdinResult {
  /** fix: the corrected text (the input when nothing applied). */
  text: string;
  /** Diagnostics left (fix) or found (report), in the file. */
  findings: Finding[];
  command: string;
  /** ruff's fix loop gave up: the text may go back and forth between rules. */
  loop?: string;
  stderr: string;
}

/** Runs ruff on `code` as `file`; a ruff failure (exit 2, a panic) is a tool_error. */
export async function runRuffStdin(
  ctx: ToolContext,
  executable: string,
  file: string,
  code: string,
  opts: RuffStdinOptions,
): Promise<RuffStdinResult> {
  const args = ruffStdinArgs(file, opts);
  const command = displayCommand("ruff", args);
  const chunks: Buffer[] = [];
  const findings: Finding[] = [];
  const other: string[] = [];
  const onDiagnostic = (line: string) => {
    const f = parseRuffJsonLine(line, ctx.config.cwd);
    if (f) findings.push({ ...f, file });
    else if (line.trim()) other.push(line);
  };
  const run = await ctx.run({
    program: executable,
    args,
    stdin: code,
    ...(opts.mode === "fix"
      ? { onStdoutData: (c: Buffer) => void chunks.push(c), onStderrLine: onDiagnostic }
      : { onStdoutLine: onDiagnostic }),
  });
  if (run.returncode !== 0 && run.returncode !== 1)
    throw new ToolError("tool_error", `ruff failed on ${file} (exit ${run.returncode}); see output`, {
      command,
      returncode: run.returncode,
      output: combinedOutput(run.stdout, run.stderr),
    });
  const loop = other.find((l) => /failed to converge/i.test(l));
  return {
    text: opts.mode === "fix" ? Buffer.concat(chunks).toString("utf8") : code,
    findings,
    command,
    loop,
    stderr: opts.mode === "fix" ? other.join("\n") : run.stderr,
  };
}
