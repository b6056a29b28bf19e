/** type_check with checker "cargo": `cargo check --message-format=json`, every rustc diagnostic as a finding. */
import fs from "node:fs";
import path from "node:path";
import { displayCommand, runFailed, runReport } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { registerTypeChecker, type TypeCheckOutcome, type TypeCheckRequest } from "../type-checkers.js";
import { findCrate, isWorkspaceRoot, requireCrateDir, workspaceRoot } from "./cargo-env.js";
import { parseCargoMessages } from "./cargo-messages.js";
import { cargoComplaint } from "./cargo-run.js";
import { runCargoEveryTarget } from "./cargo-targets.js";

export function cargoCheckArgs(opts: { workspace?: boolean } = {}): string[] {
  return ["check", ...(opts.workspace ? ["--workspace"] : []), "--message-format=json", "--quiet"];
}

async function check(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  // A .rs file is checked as part of its crate (rustc compiles crates, not files); `files` filters the view.
  const crate = req.target.endsWith(".rs") ? findCrate(req.target, root) : req.target;
  requireCrateDir(crate ?? req.target, "cargo check");
  const crateDir = crate as string;
  const checkArgs = cargoCheckArgs({ workspace: isWorkspaceRoot(crateDir) });
  const { run, args, notes, lines } = await runCargoEveryTarget(ctx, crateDir, checkArgs);
  const command = displayCommand("cargo", args);
  const { findings, buildFailed } = parseCargoMessages(
    lines.join("\n"),
    workspaceRoot(crateDir, root),
    "rustc",
  );
  if (run.returncode !== 0 && findings.length === 0) {
    const why = cargoComplaint(run.stderr);
    throw runFailed(
      `cargo check failed (exit ${run.returncode}) without a diagnostic${why ? `: ${why}` : "; see output"}`,
      command,
      run,
    );
  }
  if (req.config) notes.push("cargo check takes no config file: config was not used");
  return {
    findings,
    ...runReport(command, run),
    notes,
    passed: run.returncode === 0 && !buildFailed,
  };
}

registerTypeChecker({
  name: "cargo",
  languages: ["rust"],
  claims: (target) => target.endsWith(".rs") || fs.existsSync(path.join(target, "Cargo.toml")),
  check,
});
