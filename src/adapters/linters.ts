/** The linter registry behind `lint`: each linter registers how it runs and parses. */
import type { ToolContext } from "../engine/tool.js";

export interface LintOutcome {
  /** `file:line:col: message` strings (seed 000's `issues`). */
  issues: string[];
  command: string;
  returncode?: number | null;
  output?: string;
  truncated?: boolean;
  notes: string[];
  /** Extra result fields (e.g. ESLint's per-file view). */
  extra?: Record<string, unknown>;
}

export interface LintRequest {
  /** Canonical path inside the allowlist. */
  target: string;
  /** Canonical config file, when given. */
  config?: string;
  /** Other tool-specific arguments, as validated. */
  args: Record<string, unknown>;
}

export interface LinterAdapter {
  name: string;
  /** Languages it lints, for docs and get_status. */
  languages: string[];
  lint(ctx: ToolContext, request: LintRequest): Promise<LintOutcome>;
}

const linters: LinterAdapter[] = [];

export function registerLinter(adapter: LinterAdapter): void {
  linters.push(adapter);
}

export function linterNames(): [string, ...string[]] {
  return linters.map((l) => l.name) as [string, ...string[]];
}

export function findLinter(name: string): LinterAdapter | undefined {
  return linters.find((l) => l.name === name);
}
