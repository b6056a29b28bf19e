/** bandit as security_scan's Python scanner: runs it (the project's virtualenv first) and reads its whole report. */
import { ToolError } from "../../errors.js";
import { displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { firstVersion } from "../registry.js";
import { registerSecurityScanner, type ScanOutcome, type ScanRequest } from "../security-scanners.js";
import { banditArgs, banditSummary, banditToFinding, hasLevelFlags, parseBanditJson } from "./bandit.js";
import { resolvePythonTool } from "./resolve.js";
import { findExcludedDirs, projectFirst } from "./tree-excludes.js";

/** bandit's version per executable, asked once per server (it decides the flag style). */
async function banditVersion(ctx: ToolContext, executable: string): Promise<string | undefined> {
  const cache = ctx.services.get("bandit-versions", () => new Map<string, string | undefined>());
  if (!cache.has(executable)) {
    const run = await ctx.run({ program: executable, args: ["--version"], timeoutMs: 10_000 });
    cache.set(executable, firstVersion(run.stdout + run.stderr));
  }
  return cache.get(executable);
}

async function scan(ctx: ToolContext, req: ScanRequest): Promise<ScanOutcome> {
  const cli = resolvePythonTool(ctx, "bandit", req.target);
  if (!cli.executable)
    throw new ToolError(
      "tool_not_found",
      "bandit is not installed (not in the project's virtualenv nor on PATH)",
    );
  const version = await banditVersion(ctx, cli.executable);
  // Virtualenvs, dependency, build and VCS folders (and .gitignore'd ones) are not scanned.
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const excluded = findExcludedDirs(req.target, root);
  const argv = banditArgs(req.target, req.severity, req.confidence, hasLevelFlags(version), excluded.dirs);
  const command = displayCommand("bandit", argv);
  // The JSON report is read whole (not the capped stdout), so a long report still parses.
  const lines: string[] = [];
  const run = await ctx.run({
    program: cli.executable,
    args: argv,
    onStdoutLine: (line) => lines.push(line),
  });
  const report = parseBanditJson(lines.join("\n"));
  // 0: nothing found, 1: findings; anything else, or no JSON report, is a failure.
  if (!report || (run.returncode !== 0 && run.returncode !== 1))
    throw runFailed(`bandit failed without a report (exit ${run.returncode}); see output`, command, run);
  const notes = [`bandit ${version ?? "(unknown version)"}: ${cli.note}`];
  if (excluded.capped)
    notes.push(`more than ${excluded.dirs.length} folders to exclude: the rest are left to bandit`);
  report.results = projectFirst(report.results, (r) => r.filename, root);
  for (const e of report.errors) notes.push(`bandit could not scan ${e.filename}: ${e.reason}`);
  const findings = report.results.map(banditToFinding);
  return {
    findings,
    raw: new Map(findings.map((f, i) => [f, report.results[i]])),
    summary: banditSummary(report),
    command,
    returncode: run.returncode,
    unscanned: report.errors.map((e) => e.filename),
    truncated: run.truncated,
    notes,
    version,
  };
}

registerSecurityScanner({
  name: "bandit",
  languages: ["python"],
  kind: "code",
  install: "pip install bandit",
  unavailable: (ctx, target) =>
    resolvePythonTool(ctx, "bandit", target).executable
      ? undefined
      : "bandit is not installed (not in the project's virtualenv nor on PATH): pip install bandit",
  installed: (ctx, target) => resolvePythonTool(ctx, "bandit", target).executable !== undefined,
  scan,
});
