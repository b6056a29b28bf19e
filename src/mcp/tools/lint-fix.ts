import { z } from "zod";
import { ToolError } from "../../errors.js";
import { displayPaths, rebaseDiff } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { findingsView } from "../../findings/views.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { filesView, perFileListingCost } from "../../findings/file-view.js";
import { LISTING_ARGS, listingFields, listingOf } from "./listing.js";
import { defineTool, type ToolContext, WRITES_FILES, PATH_AND_CONFIG } from "../../engine/tool.js";
import {
  findFixer,
  fixerNames,
  type FixerAdapter,
  type FixOutcome,
  type FixRequest,
} from "../../adapters/fixers.js";
import { runTransaction, type TransactionReport } from "../../fix/transaction.js";

/**
 * A lint fix: a dry run computes it without a lock; otherwise it runs as a transaction of `tool`.
 * Shared by the core `lint_fix` and the eslint-typescript drop-in.
 */
export async function applyLintFix(
  ctx: ToolContext,
  fixer: FixerAdapter,
  request: FixRequest,
  tool = "lint_fix",
): Promise<{ outcome: FixOutcome; transaction?: TransactionReport; txNotes: string[] }> {
  if (request.dryRun) {
    const outcome = await fixer.fix(ctx, request);
    return { outcome, txNotes: [] };
  }
  const tx = await runTransaction(ctx, {
    tool,
    target: request.target,
    candidates: () => fixer.candidates(ctx, request),
    work: async (handle) => {
      const outcome = await fixer.fix(ctx, request);
      await handle.afterWriteStep();
      return outcome;
    },
  });
  return { outcome: tx.value, transaction: tx.transaction, txNotes: tx.notes };
}

/** The problems a fix left (or would leave), as findings of the fixer (the command's program). */
export function leftoverFindings(outcome: FixOutcome): Finding[] {
  const tool = outcome.command.split(" ")[0] ?? "";
  return outcome.files.flatMap((f) =>
    f.messages.map((m) => {
      const finding: Finding = {
        tool,
        file: f.file,
        line: m.line,
        column: m.column,
        rule_id: m.rule_id ?? "",
        severity: m.severity,
        message: m.message,
        correctable: m.fixable,
      };
      // ESLint's messages say more (see adapters/js/eslint-wire.ts); the files[] view shows it.
      const more = m as Partial<
        Pick<Finding, "end_line" | "end_column" | "message_id" | "suggestions" | "fatal">
      >;
      for (const key of ["end_line", "end_column", "message_id", "suggestions", "fatal"] as const)
        if (more[key] !== undefined) Object.assign(finding, { [key]: more[key] });
      return finding;
    }),
  );
}

/**
 * The lint_fix part of a result (also fix_all's): per-file statuses, summary, problems left. Files are
 * shown by their display paths, unless `show` says otherwise (seed 001's drop-in: absolute).
 */
export function lintFixFields(
  ctx: ToolContext,
  outcome: FixOutcome,
  request: FixRequest,
  started: number,
  show?: (file: string) => string,
) {
  const display = displayPaths(request.target, ctx.allowlist.roots.effective);
  const leftovers = leftoverFindings(outcome);
  // The drop-in (show given) keeps seed 001's shape: no budget fields.
  const listing = show ? undefined : listingOf(ctx, request.args, perFileListingCost());
  const remaining = findingsView(leftovers, { display, listing });
  const trimmed = remaining.listing?.trimmed === true;
  // The fixer already chose which files to list (compact or full); trimmed, only those with listed problems.
  const view = filesView(outcome.files, leftovers, {
    format: "full",
    show: show ?? display.show,
    listed: listing && new Set(remaining.listed),
  });
  const files = { ...view, files: trimmed ? view.files.filter((f) => f.messages.length > 0) : view.files };
  return {
    passed: remaining.count === 0,
    command: outcome.command,
    files: files.files,
    summary: {
      totalFiles: outcome.filesInScope ?? outcome.files.length,
      totalErrors: files.totalErrors,
      totalWarnings: files.totalWarnings,
      // Files the fix changed (or would change), whether or not problems are left in them.
      fixedFiles: outcome.changed_files.length,
      durationMs: Math.round(performance.now() - started),
      scope: outcome.scope ?? (request.files ? ("filtered" as const) : ("full" as const)),
      dryRun: request.dryRun,
    },
    changed_files: outcome.changed_files,
    diff: outcome.diff && rebaseDiff(outcome.diff, ctx.config.cwd, display),
    issues: remaining.issues,
    issue_count: remaining.count,
    returncode: outcome.returncode,
    truncated: outcome.truncated || files.capped || remaining.capped,
    ...(listing && listingFields(outcome.command.split(" ")[0] ?? "", remaining)),
  };
}

/** The arguments lint_fix and fix_all share. */
export function fixArguments(fixers: string[]) {
  return {
    path: z.string().describe("Project directory or file"),
    linter: z
      .enum(fixers as [string, ...string[]])
      .default(fixers[0] as string)
      .describe("Linter whose fixes to apply"),
    files: z.array(z.string()).optional().describe("Files or globs under path"),
    safety: z.enum(["safe", "unsafe"]).default("safe").describe("safe (default) or unsafe fixes too"),
    dry_run: z.boolean().default(false).describe("Diff only, write nothing"),
    config: z.string().optional().describe("Linter config file"),
    output: OUTPUT_ARG.describe("json, or sarif (SARIF of the problems left)"),
    ...LISTING_ARGS,
  };
}

/** `{sarif}` of the problems a fix left, when asked for. */
export async function leftoverSarif(
  ctx: ToolContext,
  output: "json" | "sarif",
  fixer: string,
  outcome: FixOutcome,
  target: string,
) {
  if (output !== "sarif") return {};
  const display = displayPaths(target, ctx.allowlist.roots.effective);
  const view = findingsView(leftoverFindings(outcome), { display, fingerprints: true });
  return sarifField(ctx, output, display, [
    { tool: fixer, findings: view.all, notes: outcome.notes, command: outcome.command },
  ]);
}

/** The fixer request of validated lint_fix / fix_all arguments. */
export function fixRequestOf(args: {
  path: string;
  files?: string[];
  safety: FixRequest["safety"];
  dry_run: boolean;
  config?: string;
}): FixRequest {
  return {
    target: args.path,
    files: args.files,
    safety: args.safety,
    dryRun: args.dry_run,
    config: args.config,
    args,
  };
}

/** The registered fixer of that name, or invalid_input. */
export function requireFixer(name: string): FixerAdapter {
  const fixer = findFixer(name);
  if (!fixer) throw new ToolError("invalid_input", `unknown linter ${name}`);
  return fixer;
}

/** Listed only once a fixer is registered. */
export const lintFixTool = () => {
  const names = fixerNames();
  if (names.length === 0) return undefined;
  return defineTool({
    name: "lint_fix",
    description:
      "Apply a linter's automatic fixes as a transaction (undo with `rollback`) and report the problems left. `dry_run: true` only returns the diff; safety unsafe adds unsafe fixes and suggestions.",
    input: z.strictObject(fixArguments(names)),
    annotations: { title: "Apply lint fixes", ...WRITES_FILES },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const fixer = requireFixer(args.linter);
      const started = performance.now();
      const request = fixRequestOf(args);
      const fix = await applyLintFix(ctx, fixer, request);
      return {
        success: true,
        dry_run: args.dry_run,
        ...lintFixFields(ctx, fix.outcome, request, started),
        transaction: fix.transaction,
        notes: [...fix.outcome.notes, ...fix.txNotes],
        ...(await leftoverSarif(ctx, args.output, fixer.name, fix.outcome, request.target)),
      };
    },
  });
};
