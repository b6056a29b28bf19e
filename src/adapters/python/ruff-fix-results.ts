/** What a ruff fix works on (its scope of files) and reports per file: the problems left, the files a diff names, each file's status. */
import path from "node:path";
import type { ToolContext } from "../../engine/tool.js";
import { type FileFixResult, type FixMessage, type FixRequest, type FixStatus } from "../fixers.js";
import { discoverPythonFiles } from "./python-files.js";
import { selectPythonFiles } from "./file-selection.js";
import { loadRuffSettings } from "./ruff-settings.js";
import type { Finding } from "../../findings/model.js";
import { parseRuffJsonLine } from "./ruff-cli.js";
import { diffBudget } from "../../findings/diff-caps.js";
import { unifiedDiff } from "./format.js";

/** The problems of ruff's json-lines output by absolute file, each with the correction ruff still has. */
export function problemsByFile(listing: string, cwd: string, unsafe: boolean): Map<string, FixMessage[]> {
  const out = new Map<string, FixMessage[]>();
  for (const line of listing.split("\n")) {
    const f = parseRuffJsonLine(line, cwd);
    if (f) out.set(f.file, [...(out.get(f.file) ?? []), leftMessage(f, () => false, unsafe)]);
  }
  return out;
}

/** Files named by `--- X` / `+++ X` headers of a unified diff, absolute. */
export function diffFiles(diff: string, cwd: string): string[] {
  const files = new Set<string>();
  const lines = diff.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^--- (.+?)(?:\t.*)?$/.exec(lines[i] as string);
    if (m && (lines[i + 1] ?? "").startsWith("+++ "))
      files.add(path.resolve(cwd, (m[1] as string).replace(/^a\//, "")));
  }
  return [...files];
}

/** The diff without ruff's closing "Would fix N errors" summary line. */
export function stripDiffSummary(diff: string): string {
  return diff.replace(/\n*(?:Would fix|No errors would be fixed)[^\n]*\n?$/, "\n").replace(/^\n$/, "");
}

/** Seed 001's per-file status from what happened to the file and what is left. */
export function fileStatus(changed: boolean, left: readonly FixMessage[], dryRun: boolean): FixStatus {
  if (left.some((m) => m.rule_id === "invalid-syntax")) return "error";
  if (dryRun) return changed ? "would-fix" : left.length ? "unfixable" : "clean";
  if (changed) return left.length ? "fixable" : "fixed";
  if (left.length === 0) return "clean";
  return left.some((m) => m.fixable) ? "fixable" : "unfixable";
}

export function fileResult(file: string, status: FixStatus, messages: FixMessage[]): FileFixResult {
  return {
    file,
    status,
    errorCount: messages.filter((m) => m.severity === "error").length,
    warningCount: messages.filter((m) => m.severity === "warning").length,
    messages,
  };
}

/** The Python files a request covers: everything ruff would check under target, or the `files` given. */
export function ruffScope(ctx: ToolContext, req: Pick<FixRequest, "target" | "files" | "config">): string[] {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const settings = loadRuffSettings(req.target, root, req.config, ctx.config.cwd);
  const listUnder = (dir: string) => discoverPythonFiles(dir, settings, root);
  if (!req.files?.length) return listUnder(req.target);
  return selectPythonFiles(ctx, req.target, req.files, listUnder, "ruff");
}

/** A left-over diagnostic as a fix message, with the correction ruff still has for it. */
export function leftMessage(f: Finding, heldBack: (rule: string) => boolean, unsafe: boolean): FixMessage {
  const applies = Boolean(f.correction) && (unsafe || f.correction!.safe) && !heldBack(f.rule_id);
  return {
    line: f.line,
    column: f.column,
    end_line: f.end_line,
    end_column: f.end_column,
    rule_id: f.rule_id,
    severity: f.severity === "warning" ? "warning" : "error",
    message: f.message,
    fixable: applies,
    correction: f.correction,
    docs_url: f.docs_url,
  };
}

/** A file's text before and after a fix (written, or only shown in a dry run). */
export interface SourceChange {
  file: string;
  before: string;
  after: string;
}

/** The diff of these changes as a result shows it: paths from the working directory, capped to the result's size. */
export function changesDiff(ctx: ToolContext, changes: SourceChange[]): string {
  return unifiedDiff(changes, ctx.config.cwd, diffBudget(ctx.config.maxResultBytes));
}

/**
 * What a fix that goes file by file (the stdin path, the embedded ruff) reports besides its command and
 * notes: each file's result, the files changed (or that would be), a dry run's diff of them, and exit 1
 * while problems are left, as `ruff check --fix` exits.
 */
export function perFileFixReport(
  ctx: ToolContext,
  files: FileFixResult[],
  changes: SourceChange[],
  dryRun: boolean,
): { files: FileFixResult[]; changed_files: string[]; diff: string | undefined; returncode: number } {
  return {
    files,
    changed_files: changes.map((c) => c.file),
    diff: dryRun ? changesDiff(ctx, changes) : undefined,
    returncode: files.some((f) => f.messages.length) ? 1 : 0,
  };
}
