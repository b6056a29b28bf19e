/**
 * Rust formatting as seed 000 says: a crate directory (Cargo.toml) → `cargo fmt [--check]`; a single .rs file →
 * `rustfmt [--check] --edition <from the nearest Cargo.toml, else 2021>`. Colours off, so the diff is plain.
 */
import fs from "node:fs";
import path from "node:path";
import { displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { ProgramNotFoundError, type RunResult } from "../../exec/runner.js";
import { displayRelative } from "../display.js";
import { firstChangedLines } from "../../findings/format-findings.js";
import type { CacheMarker } from "../cached-findings.js";
import { resultCacheOf } from "../../cache/service.js";
import { findExecutable } from "../../exec/which.js";
import { executableIdentity } from "../cached-run.js";
import { cachedVersion } from "../tool-version.js";
import { cachedWholeCall } from "../whole-program.js";
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
  return runFailed(`rustfmt failed: ${first}`, command, run);
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

/** What one `cargo fmt --check` / `rustfmt --check` says, with absolute paths (so a cached one displays anew). */
interface RustfmtVerdict {
  files: string[];
  /** Each unformatted file's first changed line (absent when the output was cut). */
  lines?: [string, number][];
  returncode: number | null;
  command: string;
  diff?: string;
  truncated: boolean;
  notes: string[];
}

async function runCheck(ctx: ToolContext, req: FormatRequest): Promise<RustfmtVerdict> {
  const { run, command, notes } = await runFormatter(ctx, req, true);
  // 0: formatted; 1: would change (a diff on stdout) or failed (an error on stderr).
  if (/^error/m.test(run.stderr) || (run.returncode !== 0 && run.returncode !== 1))
    throw failure(command, run);
  const abs = (name: string) => path.resolve(ctx.config.cwd, name);
  const files = parseRustfmtDiffFiles(run.stdout).map(abs);
  if (run.returncode === 1 && files.length === 0) throw failure(command, run);
  return {
    files,
    // The check prints the diff anyway: its first changed lines spare SARIF and `check` a second run
    // (unless the output was cut, when the lines past the cut are unknown).
    ...(run.truncated ? {} : { lines: [...firstChangedLines(run.stdout)].map(([n, l]) => [abs(n), l]) }),
    returncode: run.returncode,
    command,
    ...(req.diff ? { diff: run.stdout } : {}),
    truncated: run.truncated,
    notes,
  };
}

/**
 * A crate's check through the result cache as a whole-program call: keyed by the crate's sources and
 * configs (rustfmt.toml, rust-toolchain, Cargo.toml) and the toolchain's rustfmt version, so an unchanged
 * crate is not formatted again.
 */
async function verdictOf(
  ctx: ToolContext,
  req: FormatRequest,
): Promise<RustfmtVerdict & { cache?: CacheMarker }> {
  const cache = req.diff ? undefined : resultCacheOf(ctx);
  if (!cache || !isCrate(req.target)) return runCheck(ctx, req);
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const version = await cachedVersion(ctx, "cargo", ["fmt", "--version"]);
  const { value, cache: marker } = await cachedWholeCall<RustfmtVerdict>({
    ctx,
    cache,
    kind: "format_check cargo fmt --check",
    language: "rust",
    target: req.target,
    root,
    identity: { rustfmt: executableIdentity(findExecutable("cargo"), version), config: req.config ?? null },
    run: () => runCheck(ctx, req),
  });
  return { ...value, cache: marker };
}

async function check(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const v = await verdictOf(ctx, req);
  return {
    formatted: v.returncode === 0,
    unformatted_files: v.files.map((f) => displayRelative(ctx, f)),
    command: v.command,
    returncode: v.returncode,
    output: v.diff,
    truncated: v.truncated,
    notes: v.notes,
    ...(v.lines ? { first_lines: new Map(v.lines) } : {}),
    ...(v.cache ? { cache: v.cache } : {}),
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
