/**
 * Seed 003's agent features as every linter receives them (issue 16): inline source, rule scope, the files
 * `changed` resolved to, and the per-rule cap. The tool layer validates and resolves them; adapters only
 * apply them, and say in `notes` what they cannot do (see LinterCapabilities).
 */

/** Code given inline, linted as if it were the file at `path` (so that file's configuration applies). */
export interface InlineSource {
  code: string;
  /** Absolute canonical path inside the allowlist; the file need not exist and is never read or written. */
  path: string;
}

/** Rule ids or prefixes/categories (`F`, `Lint`, `@typescript-eslint/`) to keep or to drop. */
export interface RuleScope {
  only?: string[];
  except?: string[];
}

export interface LintOptions {
  source?: InlineSource;
  rules?: RuleScope;
  /** Absolute paths git says changed (from `changed`), to lint instead of the whole target. */
  changedFiles?: string[];
  /**
   * The files `files` matched (absolute), for a linter that does not take `files` itself: it may narrow its
   * run to them (the packages of those Go files, those Ruby files); the tool layer keeps only their findings.
   */
  files?: string[];
  /** At most this many offenses listed per rule; the rest are counted (undefined: no cap). */
  maxPerRule?: number;
}

export interface FixOptions extends LintOptions {
  /** Also apply corrections the tool holds back while code is being edited (RuboCop's contextual cops...). */
  contextual?: boolean;
}

/** What a linter can do of the above; what it cannot is said in the result's notes. */
export interface LinterCapabilities {
  inlineSource: boolean;
  ruleScope: boolean;
  contextual: boolean;
  /** explain_rules has this linter's rule metadata. */
  explain: boolean;
  /** Findings carry correction edits. */
  corrections: boolean;
}

/**
 * A linter that reports findings only (flake8, the Go linters): no inline code, rule scope, contextual fixes,
 * rule metadata or correction edits. The tool layer applies only/except, changed and max_per_rule over its
 * findings and says so in the notes.
 */
export const FINDINGS_ONLY: Readonly<LinterCapabilities> = {
  inlineSource: false,
  ruleScope: false,
  contextual: false,
  explain: false,
  corrections: false,
};
