/**
 * The scanner registry behind `security_scan`: one entry per scanner (bandit for Python, gosec for Go, npm
 * audit for JS/TS lockfiles, and those that exist but this server does not run: govulncheck, cargo audit,
 * brakeman, bundler-audit). Which of them a call uses is decided in tool-choice.ts by the project's
 * languages; a scanner for every language (a secrets scanner) registers with `languages: "any"`.
 */
import type { ToolContext } from "../engine/tool.js";
import type { Finding } from "../findings/model.js";
import type { ProjectLanguage } from "./project-languages.js";

export type ScanLevel = "low" | "medium" | "high";

export interface ScanRequest {
  /** Canonical file or directory inside the allowlist. */
  target: string;
  /** Lowest severity and confidence reported (scanners without confidence ignore it). */
  severity: ScanLevel;
  confidence: ScanLevel;
}

/** The `{high, medium, low, errors}` counts security_scan reports: findings by severity, files not scanned. */
export interface ScanSummary {
  high: number;
  medium: number;
  low: number;
  errors: number;
}

export interface ScanOutcome {
  /** Every finding, in the common model (read from the scanner's whole report). */
  findings: Finding[];
  /** Each finding's entry as the scanner reports it (bandit's result objects, gosec's issues, ...). */
  raw: Map<Finding, unknown>;
  summary: ScanSummary;
  command: string;
  returncode: number | null;
  /** Files the scanner could not scan (syntax errors, packages that do not build). */
  unscanned: string[];
  truncated?: boolean;
  notes: string[];
  version?: string;
}

export interface SecurityScanner {
  name: string;
  /** The languages whose code (or dependencies) it scans; "any" for every project. */
  languages: readonly ProjectLanguage[] | "any";
  /** What it looks at: the code, the locked dependencies, or committed secrets. */
  kind: "code" | "dependencies" | "secrets";
  /** How to install it, for the note when it is missing. */
  install: string;
  /** Why it cannot run for this target (not installed, no lockfile, not a Rails app), or undefined. */
  unavailable(ctx: ToolContext, target: string): string | undefined;
  /**
   * Whether its program is installed for this target (a scanner this server runs): a project none of whose
   * scanners ran because they are not installed is `tool_not_found`, as seed 000 answers for bandit.
   */
  installed?(ctx: ToolContext, target: string): boolean;
  /** Absent: the scanner is known but this server does not run it yet (it is named, never claimed). */
  scan?(ctx: ToolContext, request: ScanRequest): Promise<ScanOutcome>;
}

const scanners: SecurityScanner[] = [];

export function registerSecurityScanner(scanner: SecurityScanner): void {
  if (!scanners.some((s) => s.name === scanner.name)) scanners.push(scanner);
}

export function securityScanners(): readonly SecurityScanner[] {
  return scanners;
}

/** The severity counts of common findings: error → high, warning → medium, info → low. */
export function summaryOf(findings: readonly Finding[], errors = 0): ScanSummary {
  const count = (s: Finding["severity"]) => findings.filter((f) => f.severity === s).length;
  return { high: count("error"), medium: count("warning"), low: count("info"), errors };
}
