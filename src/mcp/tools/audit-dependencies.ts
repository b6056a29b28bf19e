import fs from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import { defineTool, READ_ONLY_NETWORK, type ToolContext, type ToolResult } from "../../engine/tool.js";
import { ProgramNotFoundError } from "../../exec/runner.js";
import { looksLikeNetworkFailure, type Vulnerability } from "../../adapters/dependency-audit.js";
import { networkError, runNpmAudit } from "../../adapters/npm/npm-audit-run.js";
import { parsePipAuditJson, pipAuditArgs } from "../../adapters/python/pip-audit.js";
import { resolvePythonTool } from "../../adapters/python/resolve.js";
import type { Allowlist } from "../../paths/allowlist.js";
import { vulnerabilityFindings } from "../../adapters/audit-findings.js";
import { registeredVersion } from "../../adapters/tool-version.js";
import { displayPaths } from "../../findings/display-path.js";
import { listEntries, pageFields, PAGING_ARGS, type ListingArgs } from "./listing.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { readSourceText } from "../../paths/safe-fs.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";

const LOCKFILES = ["package-lock.json", "npm-shrinkwrap.json"];

/** Lockfiles of package managers whose audit this server does not run: refused with what to run instead. */
const OTHER_LOCKFILES: Record<string, string> = {
  "pnpm-lock.yaml":
    "pnpm lockfiles are not audited here (pnpm's audit service is not wired in): run `pnpm audit --json` in the project, " +
    "or write an equivalent package-lock.json with `npm install --package-lock-only` and audit that",
  "yarn.lock":
    "yarn lockfiles are not audited here: run `yarn npm audit --json` (Yarn 2+) or `yarn audit --json` (Yarn 1) in the " +
    "project, or write an equivalent package-lock.json with `npm install --package-lock-only` and audit that",
};

/**
 * Other ecosystems' manifests and lockfiles: audit_dependencies audits npm and Python dependencies, and
 * these were handed to pip-audit as requirements files (`go.mod contains invalid specifier at line 3`).
 */
const OTHER_ECOSYSTEMS: Record<string, string> = {
  "go.mod":
    "Go modules are not audited by audit_dependencies: run `govulncheck ./...` in the module (it needs vuln.go.dev)",
  "go.sum":
    "Go modules are not audited by audit_dependencies: run `govulncheck ./...` in the module (it needs vuln.go.dev)",
  "Cargo.lock":
    "Rust crates are not audited by audit_dependencies: run `cargo audit` in the workspace (cargo install cargo-audit; it needs the RustSec advisory database)",
  "Cargo.toml":
    "Rust crates are not audited by audit_dependencies: run `cargo audit` in the workspace (cargo install cargo-audit; it needs the RustSec advisory database)",
  "Gemfile.lock":
    "Ruby gems are not audited by audit_dependencies: run `bundle audit check --update` in the project (gem install bundler-audit)",
  Gemfile:
    "Ruby gems are not audited by audit_dependencies: run `bundle audit check --update` in the project (gem install bundler-audit)",
};

type Audit =
  | { kind: "pip-audit"; requirements: string }
  | { kind: "npm"; projectDir: string; lockfile: string }
  | { kind: "uv"; projectDir: string; lock: string };

/** A pyproject.toml with no lock to audit: what to run to get one. */
function noPythonLock(pyproject: string): ToolError {
  return new ToolError(
    "invalid_input",
    `${pyproject} has no uv.lock or requirements file beside it; pip-audit audits pinned versions: run \`uv lock\` ` +
      "(or `pip-compile pyproject.toml -o requirements.txt`) in the project and audit that",
  );
}

/** The audit of a JavaScript project directory: its npm lockfile, else a clear refusal naming the one it has. */
function javascriptAudit(dir: string, inside: (f: string) => string): Audit | undefined {
  const lock = LOCKFILES.map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
  if (lock) return { kind: "npm", projectDir: dir, lockfile: inside(lock) };
  const other = Object.keys(OTHER_LOCKFILES).find((f) => fs.existsSync(path.join(dir, f)));
  if (other) throw new ToolError("invalid_input", `${path.join(dir, other)}: ${OTHER_LOCKFILES[other]}`);
  if (fs.existsSync(path.join(dir, "package.json")))
    throw new ToolError(
      "invalid_input",
      `${path.join(dir, "package.json")} has no lockfile beside it; npm audit audits a lockfile: write one with ` +
        "`npm install --package-lock-only` (nothing is installed) and audit that",
    );
  return undefined;
}

/**
 * What to audit: an npm lockfile, a package.json beside one, or a directory holding one → npm audit; a
 * requirements file (or a directory with requirements.txt) → pip-audit; pnpm and yarn lockfiles are refused
 * with what to run instead. A file picked from a directory goes through the allowlist too (it may be a
 * symlink out of the project).
 */
export function chooseAudit(target: string, allowlist: Allowlist): Audit {
  const inside = (f: string) => allowlist.resolve(f, { kind: "file", label: "requirements_file" });
  if (fs.statSync(target).isDirectory()) {
    const lock = LOCKFILES.map((f) => path.join(target, f)).find((f) => fs.existsSync(f));
    if (lock) return { kind: "npm", projectDir: target, lockfile: inside(lock) };
    const req = path.join(target, "requirements.txt");
    if (fs.existsSync(req)) return { kind: "pip-audit", requirements: inside(req) };
    const uvLock = path.join(target, "uv.lock");
    if (fs.existsSync(uvLock)) return { kind: "uv", projectDir: target, lock: inside(uvLock) };
    if (fs.existsSync(path.join(target, "pyproject.toml")))
      throw noPythonLock(path.join(target, "pyproject.toml"));
    const js = javascriptAudit(target, inside);
    if (js) return js;
    const other = Object.keys(OTHER_ECOSYSTEMS).find((f) => fs.existsSync(path.join(target, f)));
    throw new ToolError(
      "invalid_input",
      `requirements_file is a directory without package-lock.json, npm-shrinkwrap.json or requirements.txt: ${target}` +
        (other ? ` (${other}: ${OTHER_ECOSYSTEMS[other]})` : ""),
    );
  }
  const name = path.basename(target);
  if (LOCKFILES.includes(name)) return { kind: "npm", projectDir: path.dirname(target), lockfile: target };
  if (name === "uv.lock") return { kind: "uv", projectDir: path.dirname(target), lock: target };
  if (name === "pyproject.toml") {
    const uvLock = path.join(path.dirname(target), "uv.lock");
    if (fs.existsSync(uvLock)) return { kind: "uv", projectDir: path.dirname(target), lock: inside(uvLock) };
    throw noPythonLock(target);
  }
  if (name in OTHER_LOCKFILES) throw new ToolError("invalid_input", `${target}: ${OTHER_LOCKFILES[name]}`);
  if (Object.hasOwn(OTHER_ECOSYSTEMS, name))
    throw new ToolError("invalid_input", `${target}: ${OTHER_ECOSYSTEMS[name]}`);
  if (name === "package.json") {
    const js = javascriptAudit(path.dirname(target), inside);
    if (js) return js;
  }
  return { kind: "pip-audit", requirements: target };
}

type AuditArgs = ListingArgs & { output: "json" | "sarif" };

/**
 * A uv project: its lock as pinned requirements (`uv export --frozen`, which resolves nothing and writes
 * nothing, when uv is installed; else the lock's registry packages read directly), audited by pip-audit from
 * a temp file. Vulnerabilities point at uv.lock.
 */
async function uvAudit(
  ctx: ToolContext,
  projectDir: string,
  lock: string,
  callArgs: AuditArgs,
): Promise<ToolResult> {
  const uv = resolvePythonTool(ctx, "uv", lock).executable;
  const notes: string[] = [];
  let requirements: string;
  let exported: string;
  if (uv) {
    const args = [
      "export",
      "--frozen",
      "--no-hashes",
      "--format",
      "requirements-txt",
      "--no-emit-project",
      "--no-header",
    ];
    exported = displayCommand("uv", args);
    const out: string[] = [];
    const run = await ctx.run({ program: uv, args, cwd: projectDir, onStdoutLine: (l) => out.push(l) });
    if (run.returncode !== 0)
      throw new ToolError("tool_error", `uv export failed (exit ${run.returncode}); see output`, {
        command: exported,
        returncode: run.returncode,
        output: combinedOutput(run.stdout, run.stderr),
      });
    requirements = `${out.join("\n")}\n`;
    notes.push(`requirements exported from ${lock} with \`${exported}\``);
  } else {
    requirements = uvLockRequirements(readSourceText(ctx.allowlist, lock));
    exported = `read ${path.basename(lock)}`;
    notes.push(`uv is not installed: the registry packages pinned in ${lock} were read from it directly`);
  }
  const temp = makeScratchDir("mcq-uv-audit-");
  try {
    const file = path.join(temp, "requirements.txt");
    fs.writeFileSync(file, requirements, { mode: 0o600 });
    return await pipAudit(ctx, file, callArgs, { manifest: lock, notes, before: exported });
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

/** The registry packages a uv.lock pins, as `name==version` lines (the project itself and local ones left out). */
export function uvLockRequirements(text: string): string {
  const doc = parseToml(text) as {
    package?: { name?: string; version?: string; source?: Record<string, unknown> }[];
  };
  return (doc.package ?? [])
    .filter((p) => p.name && p.version && p.source && "registry" in p.source)
    .map((p) => `${p.name}==${p.version}\n`)
    .sort()
    .join("");
}

async function pipAudit(
  ctx: ToolContext,
  requirements: string,
  callArgs: AuditArgs,
  from?: { manifest: string; notes: string[]; before: string },
): Promise<ToolResult> {
  const args = pipAuditArgs(requirements);
  const command = displayCommand("pip-audit", args);
  const cli = resolvePythonTool(ctx, "pip-audit", requirements);
  let run;
  try {
    run = await ctx.run({ program: cli.executable ?? "pip-audit", args, cwd: path.dirname(requirements) });
  } catch (err) {
    if (err instanceof ProgramNotFoundError)
      throw new ToolError(
        "tool_not_found",
        "pip-audit is not installed (not in the project's virtualenv nor on PATH); install it with `pip install pip-audit`",
        { command },
      );
    throw err;
  }
  const output = combinedOutput(run.stdout, run.stderr);
  const report = parsePipAuditJson(run.stdout);
  // 0: no known vulnerabilities, 1: some found; both print the JSON report.
  if (!report || (run.returncode !== 0 && run.returncode !== 1)) {
    const extra = { command, returncode: run.returncode, output, truncated: run.truncated };
    if (looksLikeNetworkFailure(output))
      throw networkError("pip-audit", "PyPI / the vulnerability service", "audit_dependencies", extra);
    throw new ToolError(
      "tool_error",
      `pip-audit failed without a report (exit ${run.returncode}); see output`,
      extra,
    );
  }
  const notes = [...(from?.notes ?? []), ...(cli.note ? [cli.note] : [])];
  for (const s of report.skipped) notes.push(`not audited: ${s}`);
  // pip-audit exits 0 and prints "No known vulnerabilities found" when its service knew none of the
  // packages (an unreachable or partial mirror answers 404 for each): nothing was audited, so no pass.
  const auditedNone = report.dependencyCount > 0 && report.skipped.length === report.dependencyCount;
  if (auditedNone)
    notes.unshift(
      `pip-audit audited none of the ${report.dependencyCount} dependencies: the vulnerability service had no ` +
        "data for any of them (unreachable, or a mirror without its JSON API); this is not a pass",
    );
  const result = await shape(ctx, callArgs, {
    auditor: "pip-audit",
    command: from ? `${from.before} | ${command}` : command,
    returncode: run.returncode,
    vulnerabilities: report.vulnerabilities,
    notes,
    truncated: run.truncated,
    manifest: from?.manifest ?? requirements,
    lockfile: false,
  });
  if (auditedNone) result.passed = false;
  return result;
}

async function npmAudit(
  ctx: ToolContext,
  projectDir: string,
  lockfile: string,
  callArgs: AuditArgs,
): Promise<ToolResult> {
  const run = await runNpmAudit(ctx, projectDir, lockfile, "audit_dependencies");
  const notes = [`npm audit of ${lockfile} (lockfile only; nothing installed)`];
  return shape(ctx, callArgs, {
    auditor: "npm",
    command: run.command,
    returncode: run.returncode,
    vulnerabilities: run.vulnerabilities,
    notes,
    truncated: run.truncated,
    manifest: lockfile,
    lockfile: true,
  });
}

interface AuditRun {
  auditor: string;
  command: string;
  returncode: number | null;
  vulnerabilities: Vulnerability[];
  notes: string[];
  truncated: boolean;
  /** The requirements file or lockfile audited (findings point at its lines). */
  manifest: string;
  lockfile: boolean;
}

/** One line to quote: "pip-audit: 3 vulnerabilities in 2 packages". */
function auditSummary(run: AuditRun): string {
  const tool = run.auditor === "npm" ? "npm audit" : "pip-audit";
  const n = run.vulnerabilities.length;
  if (n === 0) return `${tool}: no known vulnerabilities`;
  const packages = new Set(run.vulnerabilities.map((v) => v.package)).size;
  return `${tool}: ${n} vulnerabilit${n === 1 ? "y" : "ies"} in ${packages} package${packages === 1 ? "" : "s"}`;
}

async function shape(ctx: ToolContext, args: AuditArgs, run: AuditRun): Promise<ToolResult> {
  const tool = run.auditor === "npm" ? "npm-audit" : "pip-audit";
  const display = displayPaths(run.manifest, ctx.allowlist.roots.effective);
  // Each vulnerability once, listed within the budget through its finding (SARIF gets them all).
  const findings = vulnerabilityFindings(
    tool,
    run.vulnerabilities,
    run.manifest,
    readSourceText(ctx.allowlist, run.manifest),
    run.lockfile,
  );
  const shown = listEntries(ctx, args, run.vulnerabilities, findings, {
    display,
    fingerprints: args.output === "sarif",
  });
  const sarif =
    args.output === "sarif"
      ? await sarifField(ctx, args.output, display, [
          {
            tool,
            version: run.auditor === "npm" ? () => registeredVersion(ctx, "npm") : undefined,
            findings: shown.view.all,
            notes: run.notes,
            command: run.command,
          },
        ])
      : {};
  return {
    success: true,
    passed: run.vulnerabilities.length === 0,
    auditor: run.auditor,
    command: run.command,
    vulnerabilities: shown.items,
    vulnerability_count: run.vulnerabilities.length,
    summary_text: auditSummary(run),
    returncode: run.returncode,
    truncated: run.truncated || shown.view.capped,
    ...pageFields(shown.view, { lists: ["vulnerabilities"] }),
    notes: run.notes,
    ...sarif,
  };
}

export const auditDependenciesTool = () =>
  defineTool({
    name: "audit_dependencies",
    description: "Known vulnerabilities of locked dependencies (pip-audit, npm audit).",
    input: z.strictObject({
      requirements_file: z
        .string()
        .default("requirements.txt")
        .describe("Requirements file or lockfile, relative to cwd"),
      output: OUTPUT_ARG,
      ...PAGING_ARGS,
    }),
    annotations: { title: "Audit dependencies", ...READ_ONLY_NETWORK },
    paths: [{ arg: "requirements_file", kind: "any", default: "requirements.txt" }],
    async handler(args, ctx) {
      const audit = chooseAudit(args.requirements_file, ctx.allowlist);
      if (audit.kind === "npm") return npmAudit(ctx, audit.projectDir, audit.lockfile, args);
      if (audit.kind === "uv") return uvAudit(ctx, audit.projectDir, audit.lock, args);
      return pipAudit(ctx, audit.requirements, args);
    },
  });
