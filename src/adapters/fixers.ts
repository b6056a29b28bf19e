/**
 * The fixer registry behind `lint_fix` and `fix_all`: linters that can rewrite files. Every write goes
 * through the tool's transaction (lock, snapshot, verify, roll back), never straight from an adapter
 * without one.
 */
import type { ToolContext } from "../engine/tool.js";
import type { Correction } from "../findings/model.js";
import type { FixOptions, LinterCapabilities } from "./lint-options.js";
import { namedRegistry } from "./named-registry.js";

/** safe: only fixes the tool marks safe; unsafe: also unsafe fixes / suggestions; contextual: tool-specific. */
export type FixSafety = "safe" | "unsafe";

/** Per-file outcome, with seed 001's statuses. */
export type FixStatus = "fixed" | "would-fix" | "fixable" | "unfixable" | "error" | "clean";

export interface FixMessage {
  line: number;
  column: number;
  rule_id: string | null;
  severity: "error" | "warning";
  message: string;
  fixable?: boolean;
  end_line?: number;
  end_column?: number;
  /** The edit the tool has for it, applied or not (held back, unsafe, out of scope). */
  correction?: Correction;
  docs_url?: string;
}

export interface FileFixResult {
  /** Absolute path. */
  file: string;
  status: FixStatus;
  errorCount: number;
  warningCount: number;
  /** Problems left after the fix (or that the fix would leave, in a dry run), located in the fixed text. */
  messages: FixMessage[];
  /** Dry run: this file's unified diff. */
  diff?: string;
  /** A rule that crashed on the file, a fix loop: the file's other rules still reported. */
  errors?: string[];
}

export interface FixRequest {
  /** Canonical working directory / target inside the allowlist. */
  target: string;
  /** Canonical files or globs to scope to, when given. */
  files?: string[];
  safety: FixSafety;
  dryRun: boolean;
  config?: string;
  args: Record<string, unknown>;
  /** Seed 003's agent features (inline source, contextual corrections, rule scope, changed files, cap). */
  options?: FixOptions;
}

export interface FixOutcome {
  /** Per-file results; a fixer may leave out files with nothing to report (see filesInScope). */
  files: FileFixResult[];
  /** How many files the fix looked at, when `files` lists only some of them. */
  filesInScope?: number;
  /** Whether the whole project was in scope (`full`) or a subset (`filtered`), when the fixer knows. */
  scope?: "full" | "filtered";
  /** Absolute paths of files written (or that would be written, in a dry run). */
  changed_files: string[];
  /** Unified diff of the (would-be) changes, relative paths. */
  diff?: string;
  /** Inline source (options.source): the corrected text; nothing is written. */
  correctedSource?: string;
  command: string;
  returncode?: number | null;
  truncated?: boolean;
  notes: string[];
  /** The fixer's version, when the adapter knows it (an in-process one): SARIF's driver. */
  version?: string;
}

export interface FixerAdapter {
  name: string;
  languages: string[];
  /** What it supports of FixOptions; absent means none of it. */
  capabilities?: LinterCapabilities;
  /** Absolute paths of every file this fix may write: what a transaction snapshots before the fix. */
  candidates(ctx: ToolContext, request: FixRequest): Promise<string[]>;
  /** Absolute paths of every file in the request's scope (what fix_all's format step covers with `files`). */
  scope?(ctx: ToolContext, request: FixRequest): Promise<string[]>;
  fix(ctx: ToolContext, request: FixRequest): Promise<FixOutcome>;
}

const fixers = namedRegistry<FixerAdapter>();

export const registerFixer = fixers.register;
export const fixerNames = fixers.names;
export const findFixer = fixers.find;
