/**
 * npm audit as security_scan's JavaScript/TypeScript scanner: the project's npm lockfile (the nearest
 * package.json's directory) audited as written, each vulnerability a finding at the line pinning it.
 */
import path from "node:path";
import type { ToolContext } from "../../engine/tool.js";
import { findExecutable } from "../../exec/which.js";
import { readSourceText } from "../../paths/safe-fs.js";
import { vulnerabilityFindings } from "../audit-findings.js";
import { nearestWith } from "../project-configs.js";
import {
  registerSecurityScanner,
  summaryOf,
  type ScanOutcome,
  type ScanRequest,
} from "../security-scanners.js";
import { npmLockfileIn, runNpmAudit } from "./npm-audit-run.js";

const LEVELS = { low: 0, medium: 1, high: 2 } as const;
const RANK: Record<string, number> = { info: 0, low: 0, moderate: 1, high: 2, critical: 2 };

function projectOf(ctx: ToolContext, target: string): { dir: string; lockfile?: string } | undefined {
  const root = ctx.allowlist.rootOf(target) ?? target;
  const dir = nearestWith(target, root, ["package.json"]);
  return dir ? { dir, lockfile: npmLockfileIn(dir) } : undefined;
}

async function scan(ctx: ToolContext, req: ScanRequest): Promise<ScanOutcome> {
  const project = projectOf(ctx, req.target) as { dir: string; lockfile: string };
  const lockfile = ctx.allowlist.resolve(project.lockfile, { kind: "file", label: "lockfile" });
  const run = await runNpmAudit(ctx, project.dir, lockfile, "security_scan");
  // Its severities (low, moderate, high, critical) filtered as bandit's are.
  const kept = run.vulnerabilities.filter((v) => (RANK[v.severity ?? "high"] ?? 2) >= LEVELS[req.severity]);
  const findings = vulnerabilityFindings(
    "npm-audit",
    kept,
    lockfile,
    readSourceText(ctx.allowlist, lockfile),
    true,
  );
  return {
    findings,
    raw: new Map(findings.map((f, i) => [f, kept[i]])),
    summary: summaryOf(findings),
    command: run.command,
    returncode: run.returncode,
    unscanned: [],
    truncated: run.truncated,
    notes: [
      `npm audit of ${path.relative(project.dir, lockfile)} in ${project.dir} (lockfile only; nothing installed)`,
    ],
  };
}

registerSecurityScanner({
  name: "npm-audit",
  languages: ["javascript", "typescript"],
  kind: "dependencies",
  install: "npm ships with Node.js",
  unavailable(ctx, target) {
    if (!findExecutable("npm")) return "npm is not installed";
    const project = projectOf(ctx, target);
    if (!project) return "no package.json: no dependencies to audit";
    if (!project.lockfile)
      return `${path.join(project.dir, "package.json")} has no npm lockfile: write one with \`npm install --package-lock-only\``;
    return undefined;
  },
  scan,
});
