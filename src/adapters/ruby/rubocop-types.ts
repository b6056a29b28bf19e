/**
 * The shapes of a RuboCop run (rubocop-run.ts) and of its cached form (rubocop-cached.ts): below both, so the
 * run that consults the cache and the cache that stores runs do not import each other.
 */
import type { Finding } from "../../findings/model.js";
import type { FixOptions } from "../lint-options.js";
import type { RubocopCorrection, RubocopFileRun } from "./rubocop-worker.js";

/** An offense exactly as `rubocop --format json` reports it, plus the edits of its correction. */
export interface RubocopOffense {
  severity: string;
  message: string;
  cop_name: string;
  corrected: boolean;
  correctable: boolean;
  location: {
    start_line: number;
    start_column: number;
    last_line: number;
    last_column: number;
    length: number;
    line: number;
    column: number;
  };
  correction?: { safe: boolean; edits: RubocopCorrection["edits"] };
}

/** A finding with RuboCop's own severity (info, refactor, convention, warning, error, fatal) and whether it was corrected. */
export interface RubocopFinding extends Finding {
  level: string;
  corrected: boolean;
  correction?: { safe: boolean; edits: RubocopCorrection["edits"] };
}

export interface RubocopFileReport {
  /** Absolute path (for inline code, the path it is linted as). */
  file: string;
  /** The text inspected (for a correction: the text before it). */
  source: string;
  /** The corrected text, when a correction was asked for (equal to `source` when nothing changed). */
  corrected?: string;
  /** The offenses of the text as inspected, or as corrected (what is left). */
  offenses: RubocopOffense[];
  findings: RubocopFinding[];
  /** Cops that crashed on the file, and a correction loop. */
  errors: string[];
  warnings: string[];
  status: number;
  /** The correction makes the script executable (`chmod +x`, as `rubocop -a` does). */
  makeExecutable?: boolean;
}

export interface RubocopJob {
  /** Canonical file or directory inside the allowlist. */
  target: string;
  config?: string;
  options?: FixOptions;
  /** Correct: safe (--autocorrect) or all (--autocorrect-all). */
  autocorrect?: "safe" | "all";
  /** With autocorrect: re-inspect corrected files, so offenses are located in the corrected text. */
  leftovers?: boolean;
  /**
   * Compute each offense's correction edits (a second investigation of every file with an offense);
   * default true. A lint that shows no corrections (compact, no SARIF) leaves it off.
   */
  corrections?: boolean;
}

export interface RubocopRunResult {
  files: RubocopFileReport[];
  notes: string[];
  command: string;
  /** How much came from the result cache (inspections only). */
  cache?: { cached: number; total: number };
  /** RuboCop's version as the worker that inspected reported it (inspections through the result cache). */
  version?: string;
}

export interface WorkerFileRun extends RubocopFileRun {
  errors?: string[];
  warnings?: string[];
  loop?: string | null;
  corrections?: (RubocopCorrection & { contextual?: boolean })[];
  /** A correction made a script executable (Lint/ScriptPermission, as `rubocop -a` does): the server applies it. */
  make_executable?: boolean;
  /** Without corrections: the cops among the offenses that hold their corrections back while editing. */
  contextual_cops?: string[];
}
