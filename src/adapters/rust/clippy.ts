/**
 * lint with clippy: `cargo clippy --message-format=json` in the crate directory (seed 000), the folder of the
 * clippy.toml it reads as CLIPPY_CONF_DIR (clippy-conf.ts), building into the shared scratch target dir; findings with clippy's suggestions as corrections.
 */
import { capList, combinedOutput, displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { displayRelative } from "../display.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { registerExternalTool } from "../registry.js";
import { isWorkspaceRoot, requireCrateDir, workspaceRoot } from "./cargo-env.js";
import {
  cargoFailed,
  isCompileError,
  parseCargoMessages,
  shortFormat,
  type RustFinding,
} from "./cargo-messages.js";
import { cargoFailure, runCargo } from "./cargo-run.js";
import { runCargoEveryTarget } from "./cargo-targets.js";
import { scratchCrate } from "./clippy-inline.js";
import { clippyEnv } from "./clippy-conf.js";
import type { InlineSource } from "../lint-options.js";

registerExternalTool({ name: "cargo", program: "cargo", versionArgs: ["--version"] });
registerExternalTool({ name: "clippy", program: "cargo", versionArgs: ["clippy", "--version"] });

export function clippyArgs(opts: { workspace?: boolean } = {}): string[] {
  return ["clippy", ...(opts.workspace ? ["--workspace"] : []), "--message-format=json", "--quiet"];
}

/** The inline code's findings, linted in a scratch copy of its workspace (see clippy-inline.ts). */
async function clippyInline(ctx: ToolContext, source: InlineSource): Promise<LintOutcome> {
  const scratch = scratchCrate(ctx, source);
  try {
    const args = scratch.allTargets ? [...clippyArgs(), "--all-targets"] : clippyArgs();
    const stdout: string[] = [];
    const { run, args: ran } = await runCargo(
      ctx,
      scratch.crate,
      args,
      displayCommand("cargo", args),
      scratch.env,
      (line) => stdout.push(line),
    );
    const command = displayCommand("cargo", ran);
    const messages = parseCargoMessages(stdout.join("\n"), scratch.workspace, "clippy");
    const findings = messages.findings;
    const own = findings.filter((f) => f.file === scratch.file).map((f) => ({ ...f, file: source.path }));
    const compileError = own.find(isCompileError) ?? findings.find(isCompileError);
    if (compileError || cargoFailed(messages, run.returncode))
      throw new ToolError(
        "tool_error",
        compileError
          ? `the inline code does not compile, so clippy could not lint it: ${compileError.message}`
          : `cargo clippy failed (exit ${run.returncode}); see output`,
        { command, returncode: run.returncode, output: combinedOutput(run.stdout, run.stderr) },
      );
    return {
      findings: own,
      tool: "clippy",
      issueText: (f, shown) => shortFormat(f as RustFinding, shown),
      command,
      returncode: own.length ? run.returncode : 0,
      truncated: run.truncated,
      notes: ["linted as that file in a scratch copy of its crate's workspace (the project is not written)"],
    };
  } finally {
    scratch.remove();
  }
}

async function clippy(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  if (req.options?.source) return clippyInline(ctx, req.options.source);
  const crate = requireCrateDir(req.target, "clippy");
  const workspace = workspaceRoot(crate, ctx.allowlist.rootOf(crate) ?? crate);
  const lintArgs = clippyArgs({ workspace: isWorkspaceRoot(crate) });
  const { run, args, notes, lines } = await runCargoEveryTarget(
    ctx,
    crate,
    lintArgs,
    clippyEnv(crate, ctx.allowlist.rootOf(crate) ?? crate),
  );
  const command = displayCommand("cargo", args);
  const messages = parseCargoMessages(lines.join("\n"), workspace, "clippy");
  const findings = messages.findings;
  const compileErrors = findings.filter(isCompileError);
  if (cargoFailed(messages, run.returncode)) {
    const first = compileErrors[0];
    throw runFailed(
      first
        ? `the crate does not compile, so clippy could not lint it: ${shortFormat(first, displayRelative(ctx, first.file))}`
        : cargoFailure("cargo clippy", run),
      command,
      run,
    );
  }
  if (req.config)
    notes.push("clippy reads the clippy.toml it finds from the crate directory up: config was not used");
  return {
    findings,
    tool: "clippy",
    // rustc's short format, as `cargo clippy --message-format short` prints it.
    issueText: (f, shown) => shortFormat(f as RustFinding, shown),
    command,
    returncode: run.returncode,
    truncated: run.truncated,
    notes,
    extra: { findings: capList(findings).items },
  };
}

/** clippy's findings carry its suggestions as corrections; inline code is linted in a scratch copy. */
export const CLIPPY_CAPABILITIES = {
  inlineSource: true,
  ruleScope: false,
  contextual: false,
  explain: true,
  corrections: true,
} as const;

registerLinter({
  name: "clippy",
  languages: ["rust"],
  capabilities: CLIPPY_CAPABILITIES,
  lint: clippy,
  issueText: (f, shown) => shortFormat(f as RustFinding, shown),
});
