/**
 * gosec, security_scan's Go scanner: `gosec -fmt json -severity S -confidence C <pattern>` in the module
 * root, its whole JSON report read into findings (rule G101..., gosec's severity HIGH → error). Packages gosec
 * could not build are listed as not scanned. Not `-quiet`: with it gosec prints nothing at all when it finds
 * no issue, not even the packages it could not build (exit 0), so a scan that skipped code looked clean.
 */
import path from "node:path";
import { ToolError } from "../../errors.js";
import { displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { findExecutable } from "../../exec/which.js";
import type { Finding, Severity } from "../../findings/model.js";
import { registerExternalTool } from "../registry.js";
import {
  registerSecurityScanner,
  type ScanLevel,
  type ScanOutcome,
  type ScanRequest,
} from "../security-scanners.js";
import { findGoModule, goBinDirs, packagePattern } from "./go-env.js";
import { hasGoFiles } from "./go-files.js";
import { fullOutput, goLoadError, runGoTool } from "./go-run.js";

registerExternalTool({ name: "gosec", program: "gosec", versionArgs: ["-version"] });

export const GOSEC_INSTALL = "go install github.com/securego/gosec/v2/cmd/gosec@latest";

/** argv of a gosec scan of `pattern` (./..., ./sub/..., or one package's folder). */
export function gosecArgs(pattern: string, severity: ScanLevel, confidence: ScanLevel): string[] {
  return ["-fmt", "json", "-severity", severity, "-confidence", confidence, pattern];
}

interface GosecIssue {
  severity: string;
  confidence: string;
  cwe?: { id?: string; url?: string };
  rule_id: string;
  details: string;
  file: string;
  code?: string;
  line: string;
  column: string;
}

export interface GosecReport {
  issues: GosecIssue[];
  /** Files with errors gosec reports under "Golang errors" (they were not scanned). */
  errors: Record<string, { line?: number; column?: number; error?: string }[]>;
  /** How many files gosec scanned (its Stats), when the report says. */
  files?: number;
}

/**
 * gosec's `-fmt json` report; undefined when the output is not one. No output at all is gosec's clean run
 * under `-quiet` (nothing found): an empty report, when the run exited 0.
 */
export function parseGosecJson(text: string, returncode: number | null = null): GosecReport | undefined {
  if (text.trim() === "" && returncode === 0) return { issues: [], errors: {} };
  const start = text.indexOf("{");
  if (start === -1) return undefined;
  try {
    const doc = JSON.parse(text.slice(start)) as {
      Issues?: GosecIssue[];
      "Golang errors"?: GosecReport["errors"];
      Stats?: { files?: unknown };
    };
    if (!Array.isArray(doc.Issues)) return undefined;
    const files = doc.Stats?.files;
    return {
      issues: doc.Issues,
      errors: doc["Golang errors"] ?? {},
      ...(typeof files === "number" ? { files } : {}),
    };
  } catch {
    return undefined;
  }
}

const SEVERITY: Record<string, Severity> = { HIGH: "error", MEDIUM: "warning", LOW: "info" };

/** A gosec issue in the common model; `line` may be a range ("12-14"). */
export function gosecToFinding(issue: GosecIssue): Finding {
  const [first, last] = issue.line.split("-").map(Number);
  return {
    tool: "gosec",
    file: issue.file,
    line: first ?? 0,
    column: Number(issue.column) || 0,
    ...(last !== undefined && last !== first ? { end_line: last } : {}),
    rule_id: issue.rule_id,
    ...(issue.cwe?.id ? { category: `CWE-${issue.cwe.id}` } : {}),
    severity: SEVERITY[issue.severity.toUpperCase()] ?? "warning",
    message: `${issue.details} (severity ${issue.severity}, confidence ${issue.confidence})`,
    docs_url: `https://securego.io/docs/rules/${issue.rule_id.toLowerCase()}`,
  };
}

async function scan(ctx: ToolContext, req: ScanRequest): Promise<ScanOutcome> {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const moduleDir = findGoModule(req.target, root);
  if (!moduleDir)
    throw new ToolError("invalid_input", `gosec needs a Go module: no go.mod in ${req.target} or above`);
  // A .go file: its package (gosec scans packages).
  const pattern = req.target.endsWith(".go")
    ? path.relative(moduleDir, path.dirname(req.target)) === ""
      ? "."
      : `./${path.relative(moduleDir, path.dirname(req.target))}`
    : packagePattern(req.target, moduleDir);
  const args = gosecArgs(pattern, req.severity, req.confidence);
  const command = displayCommand("gosec", args);
  const full = fullOutput();
  const run = await runGoTool(ctx, "gosec", args, moduleDir, command, {}, full.lines);
  const report = parseGosecJson(full.stdout(), run.returncode);
  // 0: no issues, 1: issues found; any other exit, or no report, is a failure.
  if (!report || (run.returncode !== 0 && run.returncode !== 1))
    throw runFailed(`gosec failed without a report (exit ${run.returncode}); see output`, command, run);
  // gosec that could not load the packages (go list failing: no temp folder, a broken toolchain) scans no
  // file, says nothing of why, and exits 0: a clean verdict of code it never read.
  if (report.files === 0 && report.issues.length === 0 && hasGoFiles(moduleDir, pattern)) {
    const why = await goLoadError(ctx, moduleDir, [pattern]);
    throw runFailed(
      `gosec scanned no file of ${pattern}, which has Go files (it could not load the packages${why ? `: ${why}` : ""}); see output`,
      command,
      run,
    );
  }
  let issues = report.issues;
  if (req.target.endsWith(".go")) issues = issues.filter((i) => i.file === req.target);
  issues = [...issues].sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      parseInt(a.line) - parseInt(b.line) ||
      parseInt(a.column) - parseInt(b.column),
  );
  const findings = issues.map(gosecToFinding);
  // The "" entry is the package-level build error (`# command-line-arguments ...`) beside its files' entries.
  const unscanned = Object.keys(report.errors).filter((file) => file !== "");
  const notes = [`gosec from ${run.executable}`];
  for (const [file, errs] of Object.entries(report.errors))
    if (file !== "") notes.push(`gosec could not scan ${file}: ${errs[0]?.error ?? "build error"}`);
  const count = (s: string) => issues.filter((i) => i.severity.toUpperCase() === s).length;
  return {
    findings,
    raw: new Map(findings.map((f, i) => [f, issues[i]])),
    summary: { high: count("HIGH"), medium: count("MEDIUM"), low: count("LOW"), errors: unscanned.length },
    command,
    returncode: run.returncode,
    unscanned,
    truncated: run.truncated,
    notes,
  };
}

registerSecurityScanner({
  name: "gosec",
  languages: ["go"],
  kind: "code",
  install: GOSEC_INSTALL,
  unavailable: () =>
    findExecutable("gosec", goBinDirs())
      ? undefined
      : `gosec is not installed (not on PATH, GOBIN or GOPATH/bin): ${GOSEC_INSTALL}`,
  installed: () => findExecutable("gosec", goBinDirs()) !== undefined,
  scan,
});

// Known, not run by this server yet: named so a user knows what would scan the project.
registerSecurityScanner({
  name: "govulncheck",
  languages: ["go"],
  kind: "dependencies",
  install: "go install golang.org/x/vuln/cmd/govulncheck@latest",
  unavailable: () =>
    findExecutable("govulncheck", goBinDirs())
      ? "govulncheck is installed but this server does not run it yet (it needs network access to vuln.go.dev): run `govulncheck ./...` in the module"
      : "govulncheck is not installed: go install golang.org/x/vuln/cmd/govulncheck@latest (it needs network access to vuln.go.dev)",
});
