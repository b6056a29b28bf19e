/**
 * The formatter registry behind format_check and autoformat: one adapter per (language, formatter).
 * Language modules register theirs; the tools' enums are built from what is registered.
 */
import type { ToolContext } from "../engine/tool.js";

export interface FormatCheckOutcome {
  formatted: boolean;
  /** Files that would change, as the formatter names them. */
  unformatted_files: string[];
  command: string;
  returncode?: number | null;
  /** The diff (when asked for) or the formatter's output. */
  output?: string;
  truncated?: boolean;
  notes: string[];
  /** How much of the result came from the result cache (absent: not cached). */
  cache?: { cached: number; total: number; uncached?: string };
  /**
   * The first changed line of each unformatted file (absolute path), where the formatter knows it without
   * a diff: SARIF and `check` place their findings there instead of asking for the whole diff again.
   */
  first_lines?: ReadonlyMap<string, number>;
  /** The formatter's version, when the adapter knows it (a bundled or in-process one): SARIF's driver. */
  version?: string;
}

export interface FormatWriteOutcome {
  /** Files the formatter changed (or would change, in a dry run). */
  changed_files: string[];
  command: string;
  returncode?: number | null;
  output?: string;
  /** Unified diff of the changes (dry runs). */
  diff?: string;
  truncated?: boolean;
  notes: string[];
}

export interface FormatRequest {
  /** Canonical path (file or directory) inside the allowlist. */
  target: string;
  diff: boolean;
  config?: string;
  /**
   * The project's scope rather than the language's files: every file the formatter handles under the
   * target (Prettier: all it formats, JSON and CSS too, as `prettier --check .`). Formatters of one
   * language ignore it.
   */
  all?: boolean;
}

export interface FormatterAdapter {
  language: string;
  formatter: string;
  /** Files the formatter would change under target (what a transaction must snapshot). */
  check(ctx: ToolContext, request: FormatRequest): Promise<FormatCheckOutcome>;
  /** Rewrites files in place, or only computes the diff when dryRun. */
  write(ctx: ToolContext, request: FormatRequest & { dryRun: boolean }): Promise<FormatWriteOutcome>;
}

export const LANGUAGES = ["python", "javascript", "typescript", "go", "rust", "ruby"] as const;
export type Language = (typeof LANGUAGES)[number];

const adapters: FormatterAdapter[] = [];
const defaults = new Map<string, string>();

export function registerFormatter(adapter: FormatterAdapter, isDefaultForLanguage = false): void {
  adapters.push(adapter);
  if (isDefaultForLanguage) defaults.set(adapter.language, adapter.formatter);
}

export function formatterNames(): [string, ...string[]] {
  return [...new Set(adapters.map((a) => a.formatter))] as [string, ...string[]];
}

export function formatterLanguages(): [string, ...string[]] {
  return [...new Set(adapters.map((a) => a.language))] as [string, ...string[]];
}

/** The adapter for a language and an optional formatter; undefined when the pair is unsupported. */
export function findFormatter(language: string, formatter: string | undefined): FormatterAdapter | undefined {
  const name = formatter ?? defaults.get(language);
  return adapters.find((a) => a.language === language && a.formatter === name);
}

export function formattersFor(language: string): string[] {
  return adapters.filter((a) => a.language === language).map((a) => a.formatter);
}

/**
 * The write of a CLI formatter that names what it will change in a check: a dry run (or a tree with nothing
 * to change) stops after the check and returns its diff; otherwise `rewrite` runs the formatter's write
 * command and the check's file list is what changed.
 */
export async function writeAfterCheck(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
  check: (ctx: ToolContext, req: FormatRequest) => Promise<FormatCheckOutcome>,
  /** Given the check that named what changes (a formatter may write exactly those files). */
  rewrite: (checked: FormatCheckOutcome) => Promise<{ command: string; notes?: string[] }>,
): Promise<FormatWriteOutcome> {
  const checked = await check(ctx, { ...req, diff: req.dryRun });
  if (req.dryRun || checked.unformatted_files.length === 0)
    return {
      changed_files: checked.unformatted_files,
      command: checked.command,
      returncode: checked.returncode,
      diff: req.dryRun ? checked.output : undefined,
      truncated: checked.truncated,
      notes: checked.notes,
    };
  const written = await rewrite(checked);
  return {
    changed_files: checked.unformatted_files,
    command: written.command,
    returncode: 0,
    notes: written.notes ?? checked.notes,
  };
}
