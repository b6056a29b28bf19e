/**
 * golangci-lint (v2): the Go meta-linter most Go projects configure in `.golangci.yml`. It runs at the module
 * root with the project's own config (which golangci-lint finds itself, or `config` when given), and reports
 * in JSON (`--output.json.path stdout`); its analysis cache is its own (GOLANGCI_LINT_CACHE, bound for it
 * alone by the sandbox), never in the project.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { capList, complaintOf, displayCommand, failedRunMessage, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { RunResult } from "../../exec/runner.js";
import type { Finding, Severity } from "../../findings/model.js";
import { registeredVersion } from "../tool-version.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { FINDINGS_ONLY } from "../lint-options.js";
import { registerExternalTool } from "../registry.js";
import { golangciConfig } from "../project-configs.js";
import { findGoModule, packageDir, requireGoModule } from "./go-env.js";
import { fullOutput, runGoTool } from "./go-run.js";
import { lintPatterns } from "./go-lint.js";
import { golangciConfigClosure, goPluginsOf, namedFilesKey } from "./golangci-config.js";
import { golangciCacheDir } from "../../exec/sandbox/host.js";
import type { ClosureSpec } from "../../cache/closure.js";
import { relativeKey } from "../../cache/rel-key.js";
import { compilerLineFindings } from "./go-compile.js";
import { distinctFindings } from "../../findings/distinct.js";

// `golangci-lint version --short` prints the bare version (2.15.0).
registerExternalTool({
  name: "golangci-lint",
  program: "golangci-lint",
  versionArgs: ["version", "--short"],
});

/**
 * `golangci-lint run` with JSON on stdout and no statistics, absolute file names, every issue, and no lock
 * against other runs (the server may lint two modules at once); `config` only when the call names one (else
 * golangci-lint finds the project's). Every issue: golangci-lint's default caps (3 issues of the same text,
 * 50 per linter) keep whichever come first, which differs from run to run (on go-chi/chi, 37 of 200 issues,
 * a different 5 of them through the server than in a direct run); the verdict is the same, the findings
 * stable, and the result's own caps keep the full counts.
 */
export function golangciArgs(patterns: readonly string[], config?: string): string[] {
  return [
    "run",
    "--output.json.path",
    "stdout",
    "--show-stats=false",
    "--path-mode",
    "abs",
    "--max-same-issues=0",
    "--max-issues-per-linter=0",
    "--allow-parallel-runners",
    ...(config ? ["--config", config] : []),
    ...patterns,
  ];
}

interface GolangciIssue {
  FromLinter?: string;
  Text?: string;
  Severity?: string;
  Pos?: { Filename?: string; Line?: number; Column?: number };
}

interface GolangciReport {
  Issues?: GolangciIssue[] | null;
  Report?: { Error?: string; Warnings?: { Tag?: string; Text?: string }[] };
}

/** The JSON document golangci-lint printed on stdout (the last line that is one); undefined when none. */
export function golangciReport(stdout: string): GolangciReport | undefined {
  const lines = stdout.split("\n").filter((l) => l.trimStart().startsWith("{"));
  for (const line of lines.reverse()) {
    try {
      const doc = JSON.parse(line) as unknown;
      if (doc && typeof doc === "object") return doc as GolangciReport;
    } catch {
      continue;
    }
  }
  return undefined;
}

const SEVERITIES: Record<string, Severity> = { error: "error", warning: "warning", info: "info" };

/**
 * golangci-lint's `Issues`: `{FromLinter, Text, Severity, Pos: {Filename, Line, Column}}`, one finding each,
 * the linter's name as rule id. Severity is empty unless the config sets some. A `typecheck` issue (code
 * that does not build) is an error; golangci-lint reports a package that does not compile as one such issue
 * at its first line, the compiler's lines in its text (`: # pkg\n./main.go:4:6: message\n...`): one finding
 * per compiler error at its own position, as type_check lists them. Relative file names are relative to
 * `cwd` (where golangci-lint, and the go it ran, worked).
 */
export function parseGolangciJson(stdout: string, cwd = "/"): Finding[] {
  const findings: Finding[] = [];
  for (const issue of golangciReport(stdout)?.Issues ?? []) {
    const file = issue.Pos?.Filename;
    if (!file || !issue.FromLinter) continue;
    const typecheck = issue.FromLinter === "typecheck";
    const errors = typecheck ? compilerLineFindings(issue.Text ?? "", cwd, "golangci-lint", "typecheck") : [];
    if (errors.length) {
      findings.push(...errors);
      continue;
    }
    const severity = typecheck ? "error" : (SEVERITIES[(issue.Severity ?? "").toLowerCase()] ?? "warning");
    findings.push({
      tool: "golangci-lint",
      file: path.resolve(cwd, file),
      line: issue.Pos?.Line ?? 0,
      column: issue.Pos?.Column ?? 0,
      rule_id: issue.FromLinter,
      severity,
      message: issue.Text ?? "",
    });
  }
  return distinctFindings(findings);
}

/**
 * A config that loads Go plugins is not run: a plugin is code of the project's choosing, run with the Go
 * caches every project shares writable (the caches golangci-lint needs to load packages at all).
 */
export function refusePlugins(config: string | undefined, command: string): void {
  if (!config) return;
  let text: string;
  try {
    text = fs.readFileSync(config, "utf8");
  } catch {
    return;
  }
  const plugins = goPluginsOf(text, config);
  if (plugins.length)
    throw new ToolError(
      "tool_error",
      `golangci-lint was not run: ${path.basename(config)} loads Go plugins (linters.settings.custom: ` +
        `${plugins.join(", ")}), code the server does not run; run golangci-lint yourself`,
      { command },
    );
}

/** Why a run failed: golangci-lint's own words (`Error: ...`, `level=error msg=...`), else its report's. */
export function failureReason(stdout: string, stderr: string): string {
  const line = complaintOf(stderr, (l) => /^Error: |level=error/.test(l.trim()));
  if (line) return line.replace(/^level=error msg="?(.*?)"?$/, "$1").replace(/^Error: /, "");
  return golangciReport(stdout)?.Report?.Error ?? "failed without a report";
}

export function failure(command: string, run: RunResult, why: string): ToolError {
  return runFailed(`${failedRunMessage("golangci-lint", why, run.returncode)}; see output`, command, run);
}

/**
 * What golangci-lint runs on: the target's packages (`./...`, `./sub/...`), a file's package (its findings
 * then kept to that file), or with `files` the packages holding them.
 */
function patternsOf(req: LintRequest, mod: string): { patterns: string[]; onlyFile?: string } {
  if (!req.options?.files?.length && req.target.endsWith(".go"))
    return { patterns: [packageDir(path.dirname(req.target), mod)], onlyFile: req.target };
  return { patterns: lintPatterns(req, mod) };
}

/**
 * The environment of a run: golangci-lint's cache does not key the files a config names (goheader's
 * template...), so a run whose config names some uses a cache folder of their content's own.
 */
export function golangciEnv(config: string | undefined, cwd: string): Record<string, string> {
  const named = config ? namedFilesKey(config, cwd) : undefined;
  return named ? { GOLANGCI_LINT_CACHE: path.join(golangciCacheDir(), `named-files-${named}`) } : {};
}

async function golangciLint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const mod = requireGoModule(req.target, root, "golangci-lint");
  const { patterns, onlyFile } = patternsOf(req, mod);
  const args = golangciArgs(patterns, req.config);
  const command = displayCommand("golangci-lint", args);
  const config = req.config ?? golangciConfig(mod, req.target, root);
  refusePlugins(config, command);
  const full = fullOutput();
  const run = await runGoTool(ctx, "golangci-lint", args, mod, command, golangciEnv(config, mod), full.lines);
  const all = parseGolangciJson(full.stdout(), mod);
  // 0: clean, 1: issues found; anything else (3: failure, 4: timeout, 5: no Go files...) is a failure.
  if (run.returncode !== 0 && run.returncode !== 1)
    throw failure(command, run, `failed: ${failureReason(full.stdout(), full.stderr())}`);
  if (run.returncode === 1 && all.length === 0) throw failure(command, run, "failed without a report");
  const findings = onlyFile ? all.filter((f) => f.file === onlyFile) : all;
  const notes = [
    `golangci-lint ${run.executable}`,
    config
      ? `config: ${path.relative(mod, config) || config}`
      : "no golangci-lint config file: its default linters (errcheck, govet, ineffassign, staticcheck, unused)",
    "every issue golangci-lint finds: its caps of 3 issues of the same text and 50 per linter are off (which it keeps varies between runs; the verdict is the same)",
  ];
  return {
    findings,
    tool: "golangci-lint",
    version: () => registeredVersion(ctx, "golangci-lint"),
    command,
    returncode: run.returncode,
    truncated: run.truncated,
    notes,
    extra: { findings: capList(findings).items },
  };
}

/**
 * The config golangci-lint reads (the call's `config`, else the one it finds from the module folder up:
 * project-configs.ts), which may lie above the module, outside the project's input files, and the files it
 * names (golangci-config.ts): keyed by content with the result. No config: nothing.
 */
function golangciClosure(ctx: ToolContext, req: LintRequest): ClosureSpec | undefined {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const mod = findGoModule(req.target, root);
  if (!mod) return undefined;
  const config = req.config ?? golangciConfig(mod, req.target, root);
  if (!config) return undefined;
  return {
    id: { golangciConfig: relativeKey(root, config), cwd: relativeKey(root, mod) },
    resolve: () => Promise.resolve(golangciConfigClosure(config, mod)),
  };
}

registerLinter({
  name: "golangci-lint",
  languages: ["go"],
  // Findings only, as the other Go linters; lint_fix runs its --fix as a fixer of its own (golangci-fix.ts).
  capabilities: FINDINGS_ONLY,
  lint: golangciLint,
  closure: golangciClosure,
});
