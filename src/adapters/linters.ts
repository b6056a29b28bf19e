/** The linter registry behind `lint`: each linter registers how it runs and parses. */
import type { ClosureSpec } from "../cache/closure.js";
import type { ToolContext } from "../engine/tool.js";
import type { PerFileScope } from "../findings/file-view.js";
import type { Finding } from "../findings/model.js";
import type { FindingTally } from "../findings/collector.js";
import type { LinterCapabilities, LintOptions } from "./lint-options.js";
import { namedRegistry } from "./named-registry.js";

export interface LintOutcome {
  /** Every finding of the run, read from the tool's whole output (the views cap and count them). */
  findings: Finding[];
  /** Findings after `findings` that were counted but not kept (a tool printing more than a result needs). */
  beyond?: FindingTally;
  /** Tool name for SARIF's driver, and its version, asked only when a SARIF log is built. */
  tool: string;
  version?: () => Promise<string | undefined>;
  /** The issue string of a finding shown as `shown`, when the tool's own format is not seed 000's. */
  issueText?: (finding: Finding, shown: string) => string;
  command: string;
  returncode?: number | null;
  output?: string;
  truncated?: boolean;
  notes: string[];
  /** Every file in scope with its status (ESLint): the views build seed 001's files[] and summary from it. */
  perFile?: PerFileScope;
  /** Extra result fields. */
  extra?: Record<string, unknown>;
  /** How much of the result came from the result cache (absent: not cached). */
  cache?: { cached: number; total: number; uncached?: string };
}

export interface LintRequest {
  /** Canonical path inside the allowlist. */
  target: string;
  /** Canonical config file, when given. */
  config?: string;
  /** Other tool-specific arguments, as validated. */
  args: Record<string, unknown>;
  /** Seed 003's agent features (inline source, rule scope, changed files, per-rule cap). */
  options?: LintOptions;
}

export interface LinterAdapter {
  name: string;
  /** Languages it lints, for docs and get_status. */
  languages: string[];
  /** What it supports of LintOptions; absent means none of it. */
  capabilities?: LinterCapabilities;
  lint(ctx: ToolContext, request: LintRequest): Promise<LintOutcome>;
  /** The issue string of a finding, when the tool's own format is not seed 000's (also for cached outcomes). */
  issueText?: (finding: Finding, shown: string) => string;
  /** The result cache is applied per file by the adapter itself (else the lint tool keeps whole results). */
  cachesPerFile?: boolean;
  /**
   * What the tool reads because of its own configuration, beyond the project's files (golangci-lint: its
   * config, wherever it lies, and the files it names): part of a whole result's key by content, with the
   * toolchain's closure (closure.ts, whole-program.ts); absent or undefined: nothing more.
   */
  closure?(ctx: ToolContext, request: LintRequest): ClosureSpec | undefined;
}

const linters = namedRegistry<LinterAdapter>();

export const registerLinter = linters.register;
export const findLinter = linters.find;

/** The linters' names, as a non-empty tuple (what a zod enum of them takes). */
export function linterNames(): [string, ...string[]] {
  return linters.names() as [string, ...string[]];
}
