/**
 * Runs cargo for a crate without leaving anything in it: builds go to the scratch target dir, and a Cargo.lock
 * that cargo had to create (the crate has none) is removed again, since read-only tools never write.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import type { SandboxRun, ToolContext } from "../../engine/tool.js";
import { ProgramNotFoundError, type RunResult } from "../../exec/runner.js";
import { complaintOf } from "../../engine/result.js";
import { cargoTargetDir, workspaceRoot } from "./cargo-env.js";
import { withWorkspaceLock } from "./workspace-lock.js";

export interface CargoRun {
  run: RunResult;
  /** The argv that ran (with --locked when the crate has a Cargo.lock). */
  args: string[];
  notes: string[];
}

/**
 * The subcommands that resolve the dependency graph, and so write a Cargo.lock when the crate has none.
 * The others (cargo fmt: `cargo metadata --no-deps --offline` and rustfmt) never write one: they run
 * without the workspace lock, beside a build of the same crate (check runs cargo fmt, clippy and check of a
 * crate at once; each fmt waited for a build or held one up).
 */
const RESOLVING = new Set(["check", "clippy", "test", "build"]);

const HINTS: Record<string, string> = {
  cargo: "install Rust with rustup (https://rustup.rs)",
  "cargo-clippy": "install it with `rustup component add clippy`",
  "cargo-fmt": "install it with `rustup component add rustfmt`",
  rustfmt: "install it with `rustup component add rustfmt`",
};

/** cargo exits 101 with `no such command: clippy` when the component is missing. */
function missingComponent(run: RunResult): string | undefined {
  const m = /no such command: [`']?(clippy|fmt)/.exec(run.stderr);
  return m ? `cargo-${m[1]}` : undefined;
}

export async function runCargo(
  ctx: ToolContext,
  crateDir: string,
  args: string[],
  command: string,
  env: Record<string, string> = {},
  /** Every stdout line as it arrives (messages read from the whole output; run.stdout stays capped). */
  onStdoutLine?: (line: string) => void,
): Promise<CargoRun> {
  const root = ctx.allowlist.rootOf(crateDir) ?? crateDir;
  const workspace = workspaceRoot(crateDir, root);
  if (!RESOLVING.has(args[0] ?? ""))
    return { run: await start(ctx, crateDir, workspace, args, command, env, onStdoutLine), args, notes: [] };
  // Whether the crate has a Cargo.lock of its own is only known while no other run can have made one.
  return withWorkspaceLock(workspace, ctx.config.timeout * 1000, () =>
    runLocked(ctx, crateDir, workspace, args, command, env, onStdoutLine),
  );
}

/** Runs cargo in the crate, building into the workspace's scratch target dir; a missing cargo or component is tool_not_found. */
async function start(
  ctx: ToolContext,
  crateDir: string,
  workspace: string,
  args: string[],
  command: string,
  env: Record<string, string>,
  onStdoutLine: ((line: string) => void) | undefined,
  sandbox?: SandboxRun,
): Promise<RunResult> {
  let run: RunResult;
  try {
    run = await ctx.run({
      program: "cargo",
      args,
      cwd: crateDir,
      env: { CARGO_TARGET_DIR: cargoTargetDir(workspace), CARGO_TERM_COLOR: "never", ...env },
      onStdoutLine,
      sandbox,
    });
  } catch (err) {
    if (err instanceof ProgramNotFoundError) throw notInstalled("cargo", command);
    throw err;
  }
  const component = missingComponent(run);
  if (component) throw notInstalled(component, command);
  return run;
}

async function runLocked(
  ctx: ToolContext,
  crateDir: string,
  workspace: string,
  args: string[],
  command: string,
  env: Record<string, string>,
  onStdoutLine: ((line: string) => void) | undefined,
): Promise<CargoRun> {
  const lockfile = path.join(workspace, "Cargo.lock");
  const hadLock = fs.existsSync(lockfile);
  // With a Cargo.lock, --locked makes cargo fail rather than rewrite it (every subcommand here resolves).
  if (hadLock) args = [args[0] as string, "--locked", ...args.slice(1)];
  const sandbox = hadLock ? undefined : lockWritable(ctx, workspace);
  const run = await start(ctx, crateDir, workspace, args, command, env, onStdoutLine, sandbox);
  const notes: string[] = [];
  if (!hadLock && fs.existsSync(lockfile)) {
    fs.rmSync(lockfile, { force: true });
    notes.push("the crate has no Cargo.lock: cargo resolved one for the run, and it was removed afterwards");
  }
  return { run, args, notes };
}

/**
 * Without a Cargo.lock cargo must write one to resolve (removed afterwards, above): a read-only call's sandbox
 * then shows the workspace read-write for that run. A crate with its lock stays read-only (`--locked`).
 */
function lockWritable(ctx: ToolContext, workspace: string): SandboxRun {
  const sandbox = ctx.sandbox();
  if (sandbox.request.kind !== "read") return sandbox;
  return {
    ...sandbox,
    request: { ...sandbox.request, kind: "write", writableRoots: [workspace] },
  };
}

export function notInstalled(program: string, command: string): ToolError {
  return new ToolError("tool_not_found", `${program} is not installed; ${HINTS[program] ?? ""}`, { command });
}

/** cargo's or rustc's own complaint (`error: rustc 1.95.0 is not supported by the following packages: ...`). */
export function cargoComplaint(stderr: string): string | undefined {
  return complaintOf(stderr, (l) => /^error(\[E\d+\])?: /.test(l));
}

/** `cargo clippy failed (exit 101): error: ...` with cargo's complaint, else pointing at the output. */
export function cargoFailure(what: string, run: RunResult): string {
  const why = cargoComplaint(run.stderr);
  return `${what} failed (exit ${run.returncode})${why ? `: ${why}` : "; see output"}`;
}
