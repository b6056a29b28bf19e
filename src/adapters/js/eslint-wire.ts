/**
 * What the ESLint worker sends back: per file, the problems (never the file's source) and, for a
 * fix, the fixed text. Shared by the worker and the adapter.
 */
import type { RuleScope } from "../lint-options.js";
import type { FixMessage } from "../fixers.js";

export interface WireMessage extends FixMessage {
  end_line?: number;
  end_column?: number;
  /** How many suggestions ESLint offers (applied only with safety "unsafe"). */
  suggestions?: number;
  /** A parse error or other fatal problem: the file could not be linted. */
  fatal?: boolean;
  /** The rule's message id, when the rule reports with one. */
  message_id?: string;
}

export interface WireFileReport {
  file: string;
  messages: WireMessage[];
  errorCount: number;
  warningCount: number;
  fatal: boolean;
  /** The fixed text, when a fix changed the file. */
  output?: string;
  /** A rule that crashed on the file, a fix loop (the other rules' results are still there). */
  errors?: string[];
  /** Per message (same index), its fix and suggestions as line/column edits; sent by `lint` only. */
  corrections?: WireCorrections[];
}

/** 1-based line/column (UTF-16) edit, end exclusive. */
export interface WireEdit {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  text: string;
}

export interface WireCorrections {
  fix?: WireEdit;
  suggestions?: { desc?: string; edit: WireEdit }[];
}

/** What a config reads besides the files it lints (the worker's `configInputs`). */
export interface WireConfigInputs {
  /**
   * Modules and files the worker's project code loaded or read so far, besides this server's own: the config,
   * what it imports (plugins in node_modules too), the files that code read (during linting too).
   */
  modules: string[];
  /** Why the list is not complete (then results are not cached), if it is not. */
  incomplete?: string;
  /** Its objects' `files` patterns; null when they cannot be known. */
  patterns: string[] | null;
}

export interface EslintRequestParams {
  /** Entry file of the ESLint module to load (the project's or the bundled one). */
  entry: string;
  /** ESLint's cwd (the project root). */
  cwd: string;
  /** The flat config file; null means the bundled default config. */
  configFile: string | null;
  /** Files or globs, relative to cwd. */
  patterns: string[];
  /** Folders left out (ESLint's ignorePatterns, relative to cwd): packages linted with their own configs. */
  ignore?: string[];
  /** Send each message's fix and suggestions as line/column edits (for SARIF; costs a little). */
  corrections?: boolean;
}

export interface EslintFixParams extends EslintRequestParams {
  /** Also apply suggestions. */
  unsafe: boolean;
  /** Rules whose suggestions are held back (contextual: false). */
  holdBack?: string[];
  /** only/except: the rules whose fixes and suggestions apply (the others are left as problems). */
  fixRules?: RuleScope;
}

/** ESLint's message object, as far as we read it. */
export interface EslintMessage {
  ruleId: string | null;
  severity: number;
  message: string;
  messageId?: string;
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  fatal?: boolean;
  fix?: { range: [number, number]; text: string };
  suggestions?: { desc?: string; fix: { range: [number, number]; text: string } }[];
}

/** Our message from ESLint's (1-based lines and columns; 0 when ESLint gave none). */
export function toWireMessage(m: EslintMessage): WireMessage {
  const out: WireMessage = {
    line: m.line ?? 0,
    column: m.column ?? 0,
    rule_id: m.ruleId ?? null,
    severity: m.severity === 2 || m.fatal ? "error" : "warning",
    message: m.message,
    fixable: Boolean(m.fix),
  };
  if (m.endLine !== undefined) out.end_line = m.endLine;
  if (m.endColumn !== undefined) out.end_column = m.endColumn;
  if (m.suggestions?.length) out.suggestions = m.suggestions.length;
  if (m.fatal) out.fatal = true;
  if (m.messageId) out.message_id = m.messageId;
  return out;
}

/** 1-based line and column of a character offset, given the offsets where lines start. */
function positionOf(lineStarts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lineStarts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (lineStarts[lo] as number) + 1 };
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function wireEdit(starts: readonly number[], fix: { range: [number, number]; text: string }): WireEdit {
  const start = positionOf(starts, fix.range[0]);
  const end = positionOf(starts, fix.range[1]);
  return {
    line: start.line,
    column: start.column,
    end_line: end.line,
    end_column: end.column,
    text: fix.text,
  };
}

/** A message's fix and suggestions (character ranges in the source) as line/column edits. */
export function toWireCorrections(m: EslintMessage, starts: readonly number[]): WireCorrections {
  const out: WireCorrections = {};
  if (m.fix) out.fix = wireEdit(starts, m.fix);
  if (m.suggestions?.length)
    out.suggestions = m.suggestions.map((s) => ({ desc: s.desc, edit: wireEdit(starts, s.fix) }));
  return out;
}
