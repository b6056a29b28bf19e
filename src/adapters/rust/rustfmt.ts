/**
 * Rust formatting as seed 000 says: a crate directory (Cargo.toml) → `cargo fmt [--check]`; a single .rs file →
 * `rustfmt [--check] --edition <from the nearest Cargo.toml, else 2021>`. Colours off, so the diff is plain.
 */
import fs from "node:fs";
import path from "node:path";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { ProgramNotFoundError, type RunResult } from "../../exec/runner.js";
import { displayRelative } from "../display.js";
import {
  registerFormatter,
  writeAfterCheck,
  type FormatCheckOutcome,
  type FormatRequest,
  type FormatWriteOutcome,
} from "../formatters.js";
import { registerExternalTool } from "../registry.js";
import { editionFor } from "./cargo-env.js";
import { notInstalled, runCargo } from "./cargo-run.js";

registerExternalTool({ name: "rustfmt", program: "rustfmt", versionArgs: ["--version"] });

/** `cargo fmt [--check] -- --color never` for a crate directory. */
export function cargoFmtArgs(check: boolean): string[] {
  return ["fmt", ...(check ? ["--check"] : []), "--", "--color", "never"];
}

/** `rustfmt [--check] --edition E --color never -- file` for one file. */
export function rustfmtArgs(file: string, edition: string, check: boolean, config?: string): string[] {
  return [
    ...(check ? ["--check"] : []),
    "--edition",
    edition,
    "--color",
    "never",
    ...(config ? ["--config-path", config] : []),
    "--",
    file,
  ];
}

/** The files of rustfmt's check output: each hunk starts `Diff in <file>:<line>:` (older: `at line N:`). */
export function parseRustfmtDiffFiles(output: string): string[] {
  const files = new Set<string>();
  for (const m of output.matchAll(/^Diff in (.+?)(?::\d+| at line \d+):$/gm)) files.add(m[1] as string);
  return [...files];
}

function isCrate(target: string): boolean {
  return fs.statSync(target).isDirectory() && fs.existsSync(path.join(target, "Cargo.toml"));
}

function failure(command: string, run: RunResult): ToolError {
  const first = /^error.*$/m.exec(run.stderr)?.[0] ?? `exit ${run.returncode}`;
  return new ToolError("tool_error", `rustfmt failed: ${first}`, {
    command,
    returncode: run.returncode,
    output: combinedOutput(run.stdout, run.stderr),
    truncated: run.truncated,
  });
}

async function runFormatter(ctx: ToolContext, req: FormatRequest, check: boolean) {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  if (isCrate(req.target)) {
    const args = cargoFmtArgs(check);
    const command = displayCommand("cargo", args);
    const { run, notes } = await runCargo(ctx, req.target, args, command);
    if (req.config) notes.push("cargo fmt reads rustfmt.toml from the crate: config was not used");
    return { run, command, notes };
  }
  if (fs.statSync(req.target).isDirectory())
    throw new ToolError(
      "invalid_input",
      `rustfmt formats a crate directory (with Cargo.toml) or a .rs file: ${req.target} is neither`,
    );
  const edition = editionFor(req.target, root);
  const args = rustfmtArgs(req.target, edition, check, req.config);
  const command = displayCommand("rustfmt", args);
  try {
    const run = await ctx.run({ program: "rustfmt", args, cwd: path.dirname(req.target) });
    return { run, command, notes: [`edition ${edition} (from the nearest Cargo.toml, else 2021)`] };
  } catch (err) {
    if (err instanceof ProgramNotFoundError) throw notInstalled("rustfmt", command);
    throw err;
  }
}

async function check(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const { run, command, notes } = await runFormatter(ctx, req, true);
  // 0: formatted; 1: would change (a diff on stdout) or failed (an error on stderr).
  if (/^error/m.test(run.stderr) || (run.returncode !== 0 && run.returncode !== 1))
    throw failure(command, run);
  const files = parseRustfmtDiffFiles(run.stdout);
  if (run.returncode === 1 && files.length === 0) throw failure(command, run);
  return {
    formatted: run.returncode === 0,
    unformatted_files: files.map((f) => displayRelative(ctx, f)),
    command,
    returncode: run.returncode,
    output: req.diff ? run.stdout : undefined,
    truncated: run.truncated,
    notes,
  };
}

async function write(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
): Promise<FormatWriteOutcome> {
  return writeAfterCheck(ctx, req, check, async () => {
    const { run, command, notes } = await runFormatter(ctx, req, false);
    if (run.returncode !== 0) throw failure(command, run);
    return { command, notes };
  });
}

registerFormatter({ language: "rust", formatter: "rustfmt", check, write }, true);
