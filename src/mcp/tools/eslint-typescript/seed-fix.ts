/**
 * lint_fix and fix_all of seed 001: ESLint's fixes as one transaction (lock, snapshot, audit), then, when
 * verifying, tsc; as the original does, any tsc failure after the fix rolls it back when autoRollback is on.
 */
import { findFixer, type FixRequest } from "../../../adapters/fixers.js";
import { findTypeChecker } from "../../../adapters/type-checkers.js";
import { ToolError } from "../../../errors.js";
import type { ToolContext } from "../../../engine/tool.js";
import { fileFilter } from "../file-filter.js";
import { runFixAll } from "../pipeline/fix-steps.js";
import { lintFixFields } from "../pipeline/fix-result.js";
import {
  addFindings,
  afterFixStatus,
  defaultConfigNotes,
  seedFile,
  seedNote,
  totalsOf,
  type SeedResult,
} from "./seed-result.js";

export interface SeedFixArgs {
  cwd?: string;
  files?: string[];
  dryRun: boolean;
  verify: boolean;
  autoRollback: boolean;
  format: "full" | "compact";
  skipTypecheck?: boolean;
}

export async function seedFix(
  ctx: ToolContext,
  tool: "lint_fix" | "fix_all",
  args: SeedFixArgs,
): Promise<SeedResult> {
  const started = performance.now();
  const fixer = findFixer("eslint");
  const tsc = findTypeChecker("tsc");
  if (!fixer || !tsc)
    throw new ToolError("tool_not_found", "ESLint or TypeScript is not available in this build");
  const cwd = args.cwd as string;
  const wantsCheck = args.verify && args.skipTypecheck !== true;
  const request: FixRequest = {
    target: cwd,
    files: args.files,
    safety: "safe",
    dryRun: args.dryRun,
    // seed 001 documents src/ as the default scope.
    args: { format: args.format, default_scope: "seed" },
  };
  const run = await runFixAll(ctx, {
    fixer,
    checker: wantsCheck ? tsc : undefined,
    request,
    autoRollback: args.autoRollback,
    tool,
  });
  // seed 001 names files by their absolute paths.
  const fields = lintFixFields(ctx, run.lint, request, started, (file) => file);
  const filter = fileFilter(ctx, cwd, args.files);
  const shownTypeErrors = (run.typeCheckOutcome?.findings ?? []).filter((f) => !filter || filter(f.file));
  // Statuses after a real fix as the original gives them (problems left: fixable or unfixable).
  const merged = addFindings(fields.files.map(seedFile), shownTypeErrors);
  const files = args.dryRun ? merged : merged.map(afterFixStatus);

  const tx = run.transaction;
  const failed = tx?.verification?.passed === false;
  const rolledBack = tx?.result === "rollback";
  const notes = [...defaultConfigNotes(run.lint.notes), ...(run.txNotes ?? [])];
  if (args.dryRun)
    notes.push(
      wantsCheck
        ? "dry run: nothing was written and the type check was not run"
        : "dry run: nothing was written, locked or snapshotted",
    );
  else if (tool === "fix_all" && !wantsCheck)
    notes.push(
      `type check skipped (${args.skipTypecheck ? "skipTypecheck" : "verify: false"}): the fix was not verified`,
    );
  // A failed check with autoRollback off is already in the transaction's notes.
  if (rolledBack)
    notes.push(
      `rolled back: ${tx?.rollback_reason}`,
      `every file ESLint wrote was restored (${tx?.restored_files?.length ?? 0}); ` +
        "the statuses and type errors above describe the undone fix",
    );
  return {
    tool,
    // The fix stands and is verified (or verification was not asked for).
    success: !failed,
    workingDirectory: cwd,
    files,
    summary: {
      ...totalsOf(files, fields.summary.totalFiles),
      fixedFiles: rolledBack ? 0 : fields.summary.fixedFiles,
      durationMs: Math.round(performance.now() - started),
      scope: fields.summary.scope,
      dryRun: args.dryRun,
    },
    ...(rolledBack ? { error: `Transaction rolled back: ${tx?.rollback_reason}` } : {}),
    note: seedNote(notes),
  };
}
