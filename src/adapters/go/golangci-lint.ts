/**
 * golangci-lint (v2): the Go meta-linter most Go projects configure in `.golangci.yml`. It runs at the module
 * root with the project's own config (which golangci-lint finds itself, or `config` when given), and reports
 * in JSON (`--output.json.path stdout`); its analysis cache is its own (GOLANGCI_LINT_CACHE, bound for it
 * alone by the sandbox), never in the project.
 */
import fs from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { ToolError } from "../../errors.js";
import { capList, displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { RunResult } from "../../exec/runner.js";
import type { Finding, Severity } from "../../findings/model.js";
import { registeredVersion } from "../tool-version.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { FINDINGS_ONLY } from "../lint-options.js";
import { registerExternalTool } from "../registry.js";
import { golangciConfig } from "../project-configs.js";
import { packageDir, requireGoModule } from "./go-env.js";
import { fullOutput, runGoTool } from "./go-run.js";
import { lintPatterns } from "./go-lint.js";
import { yaml } from "../../yaml-lazy.js";

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
 * the linter's name as rule id. Severity is empty unless the config sets some; a `typecheck` issue (code that
 * does not build) is an error. Relative file names are relative to `cwd`.
 */
export function parseGolangciJson(stdout: string, cwd = "/"): Finding[] {
  const findings: Finding[] = [];
  for (const issue of golangciReport(stdout)?.Issues ?? []) {
    const file = issue.Pos?.Filename;
    if (!file || !issue.FromLinter) continue;
    const severity =
      issue.FromLinter === "typecheck"
        ? "error"
        : (SEVERITIES[(issue.Severity ?? "").toLowerCase()] ?? "warning");
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
  return findings;
}

/**
 * The Go plugins a golangci-lint config loads (`linters.settings.custom.<name>` of type `goplugin`, the
 * default: a `.so` golangci-lint opens and runs), by name; module plugins need a binary of their own and
 * are not loaded by this one. A config that does not parse has none here (golangci-lint refuses it itself).
 */
export function goPluginsOf(text: string, file: string): string[] {
  let doc: unknown;
  try {
    doc = file.endsWith(".json")
      ? JSON.parse(text)
      : file.endsWith(".toml")
        ? parseToml(text)
        : (yaml().parse(text) as unknown);
  } catch {
    return [];
  }
  const at = (o: unknown, key: string): unknown =>
    o && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined;
  const custom = at(at(at(doc, "linters"), "settings"), "custom");
  if (!custom || typeof custom !== "object") return [];
  return Object.entries(custom as Record<string, unknown>)
    .filter(([, v]) => at(v, "type") !== "module")
    .map(([name]) => name);
}

/**
 * A config that loads Go plugins is not run: a plugin is code of the project's choosing, run with the Go
 * caches every project shares writable (the caches golangci-lint needs to load packages at all).
 */
function refusePlugins(config: string | undefined, command: string): void {
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
function failureReason(stdout: string, stderr: string): string {
  const line = stderr
    .split("\n")
    .map((l) => l.trim())
    .find((l) => /^Error: |level=error/.test(l));
  if (line) return line.replace(/^level=error msg="?(.*?)"?$/, "$1").replace(/^Error: /, "");
  return golangciReport(stdout)?.Report?.Error ?? "failed without a report";
}

function failure(command: string, run: RunResult, why: string): ToolError {
  return runFailed(`golangci-lint ${why} (exit ${run.returncode}); see output`, command, run);
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

async function golangciLint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const mod = requireGoModule(req.target, root, "golangci-lint");
  const { patterns, onlyFile } = patternsOf(req, mod);
  const args = golangciArgs(patterns, req.config);
  const command = displayCommand("golangci-lint", args);
  const config = req.config ?? golangciConfig(mod, req.target, root);
  refusePlugins(config, command);
  const full = fullOutput();
  const run = await runGoTool(ctx, "golangci-lint", args, mod, command, {}, full.lines);
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

registerLinter({
  name: "golangci-lint",
  languages: ["go"],
  // Findings only, as the other Go linters (its --fix is not offered: lint_fix runs no Go fixer).
  capabilities: FINDINGS_ONLY,
  lint: golangciLint,
});
