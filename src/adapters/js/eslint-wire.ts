/**
 * What the ESLint worker sends back: per file, the problems (never the file's source) and, for a
 * fix, the fixed text. Shared by the worker and the adapter.
 */
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
}

export interface EslintFixParams extends EslintRequestParams {
  /** Also apply suggestions. */
  unsafe: boolean;
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
  fix?: unknown;
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
