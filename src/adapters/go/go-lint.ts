/**
 * Go linters: `go vet -json` (linter "govet"), `staticcheck -f json` and `golint`. Findings in the common model;
 * seed 000's `issues` strings are `file:line:col: rule message`.
 */
import path from "node:path";
import { ToolError } from "../../errors.js";
import { displayCommand, failedRunMessage, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { RunResult } from "../../exec/runner.js";
import { capList } from "../../engine/result.js";
import type { Finding, Severity } from "../../findings/model.js";
import { registeredVersion } from "../tool-version.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { FINDINGS_ONLY } from "../lint-options.js";
import { registerExternalTool } from "../registry.js";
import { packageDir, packagePattern, requireGoModule } from "./go-env.js";
import { fullOutput, goComplaint, goLoadError, runGoTool } from "./go-run.js";
import { hasGoFiles } from "./go-files.js";
import { parsePosition, splitJsonObjects } from "./go-json.js";
import { parseJsonLines } from "../json-lines.js";
import { compilerLineFindings } from "./go-compile.js";
import { distinctFindings } from "../../findings/distinct.js";
import { ANY_POSITION_LINE, positionLineFindings } from "./position-lines.js";

registerExternalTool({ name: "go", program: "go", versionArgs: ["version"] });
registerExternalTool({ name: "staticcheck", program: "staticcheck", versionArgs: ["-version"] });
registerExternalTool({
  name: "golint",
  program: "golint",
  versionArgs: ["-h"],
  parseVersion: (out) => (/Usage of \S*golint/.test(out) ? "unversioned (deprecated upstream)" : undefined),
});

/** `go vet -json <patterns>`. */
export function goVetArgs(...patterns: string[]): string[] {
  return ["vet", "-json", ...patterns];
}

/**
 * What a Go linter runs on: the target's packages, or with `files` the packages holding the files it
 * matched (the tool layer then keeps those files' findings only).
 */
export function lintPatterns(req: LintRequest, mod: string): string[] {
  const files = req.options?.files;
  if (!files?.length) return [packagePattern(req.target, mod)];
  return [...new Set(files.map((f) => packageDir(path.dirname(f), mod)))];
}

/**
 * go vet -json prints, per package, `{"<pkg>": {"<analyzer>": [{posn, end?, message}]}}` (to stdout in Go 1.26,
 * to stderr in older releases: both are read), between
 * `# pkg` lines. An analyzer entry may also be `{"error": "..."}` (the analyzer failed on that package).
 */
export function parseGoVetJson(output: string): Finding[] {
  const findings: Finding[] = [];
  for (const doc of splitJsonObjects(output)) {
    if (!doc || typeof doc !== "object") continue;
    for (const analyzers of Object.values(doc as Record<string, unknown>)) {
      if (!analyzers || typeof analyzers !== "object") continue;
      for (const [analyzer, diags] of Object.entries(analyzers as Record<string, unknown>)) {
        if (!Array.isArray(diags)) continue;
        for (const d of diags as { posn?: string; end?: string; message?: string }[]) {
          const at = parsePosition(d.posn ?? "");
          if (!at) continue;
          const end = d.end ? parsePosition(d.end) : undefined;
          findings.push({
            tool: "govet",
            file: at.file,
            line: at.line,
            column: at.column,
            ...(end ? { end_line: end.line, end_column: end.column } : {}),
            rule_id: analyzer,
            severity: "warning",
            message: d.message ?? "",
            docs_url: `https://pkg.go.dev/golang.org/x/tools/go/analysis/passes/${analyzer}`,
          });
        }
      }
    }
  }
  return findings;
}

/**
 * The errors go vet prints when the code does not build: `vet: ./a.go:4:14: message` for the package it
 * vets, the compiler's `lib/lib.go:3:23: message` for a dependency that does not compile, and go's own
 * `main.go:3:8: no required module provides package ...` for an import it cannot find.
 */
export function parseGoVetTypeErrors(stderr: string): string[] {
  return stderr
    .split("\n")
    .map((l) => (l.startsWith("vet: ") ? l.slice(5) : l))
    .filter((l) => /^\S+\.go:\d+(?::\d+)?: /.test(l));
}

/** `staticcheck -f json <patterns>`. */
export function staticcheckArgs(...patterns: string[]): string[] {
  return ["-f", "json", ...patterns];
}

interface StaticcheckLine {
  code?: string;
  severity?: string;
  location?: { file?: string; line?: number; column?: number };
  end?: { file?: string; line?: number; column?: number };
  message?: string;
}

/**
 * staticcheck's JSON lines: `{code, severity: error|warning|ignored, location, end, message}`; relative file
 * names (in a compile problem's message) are relative to `cwd`, where staticcheck ran.
 */
export function parseStaticcheckJson(stdout: string, cwd = "/"): Finding[] {
  return distinctFindings(parseStaticcheckLines(stdout, cwd));
}

function parseStaticcheckLines(stdout: string, cwd: string): Finding[] {
  const findings: Finding[] = [];
  for (const raw of parseJsonLines<StaticcheckLine>(stdout)) {
    if (raw.code === "compile" && !raw.location?.file) {
      // A package that does not build: one problem with the compiler's lines, one finding per error.
      findings.push(...compilerLineFindings(raw.message ?? "", cwd, "staticcheck", "compile"));
      continue;
    }
    if (!raw.code || !raw.location?.file || raw.severity === "ignored") continue;
    // `compile` is staticcheck's code for a package that does not build; it is reported as an error.
    const severity: Severity = raw.severity === "error" || raw.code === "compile" ? "error" : "warning";
    findings.push({
      tool: "staticcheck",
      file: raw.location.file,
      line: raw.location.line ?? 0,
      column: raw.location.column ?? 0,
      ...(raw.end?.line ? { end_line: raw.end.line, end_column: raw.end.column ?? 0 } : {}),
      rule_id: raw.code,
      severity,
      message: raw.message ?? "",
      docs_url: raw.code === "compile" ? undefined : `https://staticcheck.dev/docs/checks/#${raw.code}`,
    });
  }
  return findings;
}

/** golint prints `file:line:col: message` (no rule ids); relative files are relative to its working directory. */
export function parseGolint(stdout: string, cwd: string): Finding[] {
  return positionLineFindings(stdout, cwd, ANY_POSITION_LINE, {
    tool: "golint",
    rule_id: "golint",
    severity: "warning",
  });
}

function lintFailure(tool: string, command: string, run: RunResult, why: string): ToolError {
  return runFailed(`${failedRunMessage(tool, why, run.returncode)}; see output`, command, run);
}

function outcome(
  ctx: ToolContext,
  tool: string,
  findings: Finding[],
  command: string,
  run: RunResult,
  notes: string[],
): LintOutcome {
  return {
    findings,
    tool,
    // go vet is part of the go command: its version is go's.
    version: () => registeredVersion(ctx, tool === "govet" ? "go" : tool),
    command,
    returncode: run.returncode,
    truncated: run.truncated,
    notes,
    extra: { findings: capList(findings).items },
  };
}

function configNote(req: LintRequest, tool: string): string[] {
  return req.config ? [`${tool} takes no --config: config was not used (${tool} reads its own files)`] : [];
}

/**
 * Runs one of these linters (`program`, named `label` in errors) in the target's module on the packages
 * lintPatterns picks, its whole output kept for the parser (the runner's caps apply to `output` only).
 */
async function runGoLinter(
  ctx: ToolContext,
  req: LintRequest,
  label: string,
  program: string,
  argsFor: (patterns: string[]) => string[],
) {
  const mod = requireGoModule(req.target, ctx.allowlist.rootOf(req.target) ?? req.target, label);
  const args = argsFor(lintPatterns(req, mod));
  const command = displayCommand(program, args);
  const full = fullOutput();
  const run = await runGoTool(ctx, program, args, mod, command, {}, full.lines);
  return { mod, command, full, run };
}

async function govet(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const { command, full, run } = await runGoLinter(ctx, req, "go vet", "go", (p) => goVetArgs(...p));
  const findings = parseGoVetJson(`${full.stdout()}\n${full.stderr()}`);
  if (run.returncode !== 0) {
    const stderr = full.stderr();
    const typeErrors = parseGoVetTypeErrors(stderr);
    const first = goComplaint(stderr);
    const why = typeErrors.length
      ? `could not type-check the code: ${typeErrors[0]} (type_check with checker "go" lists every error)`
      : first
        ? `failed: ${first}`
        : "failed without a report";
    throw lintFailure("go vet", command, run, why);
  }
  return outcome(ctx, "govet", findings, command, run, configNote(req, "go vet"));
}

/** staticcheck's warning when its patterns name no package it could load. */
const NO_PACKAGES = /^warning: "[^"]*" matched no packages$/m;

async function staticcheck(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const linted = await runGoLinter(ctx, req, "staticcheck", "staticcheck", (p) => staticcheckArgs(...p));
  const { mod, command, full, run } = linted;
  const findings = parseStaticcheckJson(full.stdout(), mod);
  // 0: clean, 1: findings (compile errors included); anything else (or 1 with nothing parsed) is a failure.
  if ((run.returncode !== 0 && run.returncode !== 1) || (run.returncode === 1 && findings.length === 0))
    throw lintFailure("staticcheck", command, run, "failed without a report");
  // `warning: "./..." matched no packages`, exit 0: where there are Go files, the go command could not
  // load them (a go.mod needing `go mod tidy`), and a pass would be a verdict on code never read.
  const patterns = lintPatterns(req, mod);
  if (findings.length === 0 && NO_PACKAGES.test(full.stderr()) && patterns.some((p) => hasGoFiles(mod, p))) {
    const why = await goLoadError(ctx, mod, patterns);
    throw lintFailure(
      "staticcheck",
      command,
      run,
      `loaded no package of ${patterns.join(" ")}, which has Go files${why ? `: ${why}` : ""}`,
    );
  }
  const notes = [`staticcheck ${run.executable}`, ...configNote(req, "staticcheck")];
  return outcome(ctx, "staticcheck", findings, command, run, notes);
}

async function golint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const { mod, command, full, run } = await runGoLinter(ctx, req, "golint", "golint", (p) => p);
  const findings = parseGolint(full.stdout(), mod);
  if (run.returncode !== 0) throw lintFailure("golint", command, run, "failed");
  const notes = [
    "golint is deprecated upstream (use staticcheck or govet); it has no rule ids, so findings carry rule golint",
    ...(req.config ? ["golint has no configuration file: config was not used"] : []),
  ];
  return outcome(ctx, "golint", findings, command, run, notes);
}

// Seed 003's options: the Go linters report findings only (no inline code, no fixes, no rule metadata).
registerLinter({ name: "govet", languages: ["go"], capabilities: FINDINGS_ONLY, lint: govet });
registerLinter({
  name: "staticcheck",
  languages: ["go"],
  capabilities: FINDINGS_ONLY,
  lint: staticcheck,
});
registerLinter({ name: "golint", languages: ["go"], capabilities: FINDINGS_ONLY, lint: golint });
