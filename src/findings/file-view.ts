/**
 * Seed 001's per-file view (`files[]` with `status`, `errorCount`, `warningCount`, `messages`, and the
 * `summary` totals), built from findings here only: counts and severities come from the findings, the
 * list is capped with the totals kept full, and files are named by the caller's display function.
 */
import { MAX_LISTED_FINDINGS } from "./views.js";
import { estimateTokens } from "./budget.js";
import type { Correction, Finding } from "./model.js";

/** A finding as one of a file's messages (ESLint's fields, snake_case as the core tools show them). */
export interface FileMessage {
  line: number;
  column: number;
  end_line?: number;
  end_column?: number;
  rule_id: string | null;
  severity: "error" | "warning";
  message: string;
  fixable: boolean;
  suggestions?: number;
  fatal?: boolean;
  message_id?: string;
  /** What a fix would still do (lint_fix's leftovers, as inspected offenses have it). */
  correction?: Correction;
  docs_url?: string;
}

export interface FileEntry<S extends string = string> {
  file: string;
  status: S;
  errorCount: number;
  warningCount: number;
  messages: FileMessage[];
  /** Rules that crashed on the file, correction loops (issue 16). */
  errors?: string[];
  /** Dry run: the file's unified diff. */
  diff?: string;
}

/** A file in the run's scope and its status (clean, fixable, fixed, ...), as the adapter judged it. */
export interface FileStatus<S extends string = string> {
  /** Absolute path. */
  file: string;
  status: S;
  errors?: string[];
  diff?: string;
}

export interface FilesViewOptions {
  /** compact leaves out clean files without messages; full lists every file in scope. */
  format: "compact" | "full";
  /** How a file is named (display path, or absolute for seed 001's drop-in). */
  show: (file: string) => string;
  /** Most files listed (default 500); totals stay full. */
  cap?: number;
  /** Only these findings appear as messages (a listing under a budget); counts stay full. */
  listed?: ReadonlySet<Finding>;
  /** Messages carry their correction and docs URL (the leftovers of a fix, shaped as offenses). */
  corrections?: boolean;
  /**
   * List only the files with listed messages (a page or a trimmed listing: the files of what is shown, on
   * every page), before the cap.
   */
  onlyListed?: boolean;
}

export interface FilesView<S extends string = string> {
  files: FileEntry<S>[];
  /** Files in scope (at least those with findings). */
  totalFiles: number;
  totalErrors: number;
  totalWarnings: number;
  capped: boolean;
}

export function fileMessage(f: Finding, corrections = false): FileMessage {
  const m: FileMessage = {
    line: f.line,
    column: f.column,
    rule_id: f.rule_id || null,
    severity: f.severity === "error" ? "error" : "warning",
    message: f.message,
    fixable: f.correctable === true,
  };
  if (f.end_line !== undefined) m.end_line = f.end_line;
  if (f.end_column !== undefined) m.end_column = f.end_column;
  if (f.suggestions) m.suggestions = f.suggestions;
  if (f.fatal) m.fatal = true;
  if (f.message_id !== undefined) m.message_id = f.message_id;
  if (corrections && f.correction) m.correction = f.correction;
  if (corrections && f.docs_url) m.docs_url = f.docs_url;
  return m;
}

/**
 * Per-file entries of `scope` in its order, each with its findings (info-level findings are not part of
 * seed 001's view); a file with findings but not in scope is added as `unfixable`.
 */
export function filesView<S extends string>(
  scope: readonly FileStatus<S>[],
  findings: readonly Finding[],
  options: FilesViewOptions,
): FilesView<S> {
  const entries = new Map<string, FileEntry<S>>();
  for (const s of scope)
    entries.set(s.file, {
      file: s.file,
      status: s.status,
      errorCount: 0,
      warningCount: 0,
      messages: [],
      ...(s.errors?.length && { errors: s.errors }),
      ...(s.diff && { diff: s.diff }),
    });
  let totalErrors = 0;
  let totalWarnings = 0;
  for (const f of findings) {
    if (f.severity === "info") continue;
    let entry = entries.get(f.file);
    if (!entry) {
      entry = { file: f.file, status: "unfixable" as S, errorCount: 0, warningCount: 0, messages: [] };
      entries.set(f.file, entry);
    }
    if (!options.listed || options.listed.has(f)) entry.messages.push(fileMessage(f, options.corrections));
    if (f.severity === "error") {
      entry.errorCount++;
      totalErrors++;
    } else {
      entry.warningCount++;
      totalWarnings++;
    }
  }
  const all = [...entries.values()];
  const shown = options.onlyListed
    ? all.filter((e) => e.messages.length > 0)
    : options.format === "full"
      ? all
      : all.filter((e) => e.errorCount + e.warningCount > 0 || e.status !== "clean");
  const cap = options.cap ?? MAX_LISTED_FINDINGS;
  return {
    files: shown.slice(0, cap).map((e) => ({ ...e, file: options.show(e.file) })),
    totalFiles: all.length,
    totalErrors,
    totalWarnings,
    capped: shown.length > cap,
  };
}

/** What a linter with a per-file view (ESLint) tells the views besides its findings. */
export interface PerFileScope<S extends string = string> {
  statuses: FileStatus<S>[];
  format: "compact" | "full";
  scope: "full" | "filtered";
  durationMs: number;
}

/** `files[]` and `summary` of a lint result with a per-file view. */
export function perFileFields<S extends string>(
  perFile: PerFileScope<S>,
  findings: readonly Finding[],
  show: (file: string) => string,
  listing?: { listed: readonly Finding[]; trimmed: boolean; paged?: boolean },
  /** Most files listed (default 500); the drop-in caps them itself, saying so. */
  cap?: number,
) {
  const view = filesView(perFile.statuses, findings, {
    format: perFile.format,
    show,
    cap,
    listed: listing && new Set(listing.listed),
    // Trimmed to a budget or paged, only the files with listed messages are listed (the summary counts them all).
    onlyListed: listing !== undefined && (listing.trimmed || listing.paged === true),
  });
  return {
    files: view.files,
    summary: {
      totalFiles: view.totalFiles,
      totalErrors: view.totalErrors,
      totalWarnings: view.totalWarnings,
      durationMs: perFile.durationMs,
      scope: perFile.scope,
    },
    capped: view.capped,
  };
}

/**
 * What one listed finding costs in a per-file view under a budget: its issue string, its message, and
 * (charged to every finding, to be safe) the entry of its file; a trimmed view lists only files with
 * listed messages.
 */
export function perFileListingCost(corrections = false) {
  return {
    cost: (f: Finding) => {
      const shown = f.path ?? f.file;
      return (
        estimateTokens(fileMessage(f, corrections)) +
        Math.ceil((2 * shown.length + f.message.length + 100) / 4)
      );
    },
  };
}
