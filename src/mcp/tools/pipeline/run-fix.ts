/** Running a lint fix: its request, a dry run without a lock or a transaction of the tool, several projects' outcomes as one. */
import { type ToolContext } from "../../../engine/tool.js";
import { type FixerAdapter, type FixOutcome, type FixRequest } from "../../../adapters/fixers.js";
import type { TransactionReport } from "../../../fix/transaction.js";
import { runWriteStep } from "../../../fix/write-step.js";
import { ToolError } from "../../../errors.js";
import type { FixOptions } from "../../../adapters/lint-options.js";
import type { ListingArgs } from "../listing.js";
import { changedAsFiles, resolveAgentArgs } from "../lint-scope.js";

/**
 * A lint fix: a dry run computes it without a lock; otherwise it runs as a transaction of `tool`.
 * Shared by the core `lint_fix` and the eslint-typescript drop-in.
 */
export async function applyLintFix(
  ctx: ToolContext,
  fixer: FixerAdapter,
  request: FixRequest,
  tool = "lint_fix",
): Promise<AppliedFix> {
  const tx = await runWriteStep(ctx, {
    tool,
    target: request.target,
    dryRun: request.dryRun,
    candidates: () => fixer.candidates(ctx, request),
    write: () => fixer.fix(ctx, request),
  });
  return { outcome: tx.value, transaction: tx.transaction, txNotes: tx.notes };
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

/** Fix outcomes of several projects as one (each file's results are its own fixer's). */
export function mergeFixOutcomes(outcomes: readonly FixOutcome[]): FixOutcome {
  const diffs = outcomes.map((o) => o.diff).filter(Boolean);
  return {
    files: outcomes.flatMap((o) => o.files),
    filesInScope: outcomes.reduce((n, o) => n + (o.filesInScope ?? o.files.length), 0),
    scope: outcomes.every((o) => o.scope !== "filtered") ? "full" : "filtered",
    changed_files: outcomes.flatMap((o) => o.changed_files),
    ...(diffs.length && { diff: diffs.join("") }),
    command: outcomes.map((o) => o.command).join(" && "),
    returncode: Math.max(...outcomes.map((o) => o.returncode ?? 0)),
    truncated: outcomes.some((o) => o.truncated),
    notes: outcomes.flatMap((o) => o.notes),
  };
}

/** A lint fix's outcome, with its transaction when it wrote. */
export interface AppliedFix {
  outcome: FixOutcome;
  transaction?: TransactionReport;
  txNotes: string[];
}

/** A lint_fix call's arguments, as validated (what the pipeline's steps read of them). */
export type LintFixArgs = {
  path: string;
  files?: string[];
  safety: FixRequest["safety"];
  dry_run: boolean;
  config?: string;
  output: "json" | "sarif";
  contextual?: boolean;
  max_per_rule?: number;
  source_code?: string;
} & ListingArgs &
  Record<string, unknown>;

/** Fixers whose `files` scope their fixes (how `changed` reaches them). */
const FIXERS_TAKING_FILES = new Set(["ruff", "eslint"]);

/**
 * One fixer's request for a call at its path: the agent arguments resolved (inline code, rule scope, the
 * changed files), `nothingChanged` when `changed` left nothing to fix.
 */
export async function prepareFix(
  ctx: ToolContext,
  args: LintFixArgs,
  fixer: FixerAdapter,
): Promise<{ request: FixRequest; notes: string[]; nothingChanged?: boolean }> {
  const agent = await resolveAgentArgs(ctx, args, fixer, {
    fixing: true,
    takesFiles: FIXERS_TAKING_FILES.has(fixer.name),
  });
  const options: FixOptions = { ...agent.options, contextual: args.contextual };
  const request: FixRequest = { ...fixRequestOf(args), options };
  if (options.changedFiles && !agent.nothingChanged) {
    // Fixers that take `files` get the changed ones; RuboCop's and clippy's adapters read
    // options.changedFiles themselves; any other would fix more than was changed, so it is refused.
    if (FIXERS_TAKING_FILES.has(fixer.name)) request.files = changedAsFiles(args.path, options.changedFiles);
    else if (fixer.name !== "rubocop" && fixer.name !== "clippy")
      throw new ToolError("invalid_input", `${fixer.name} cannot limit its fixes to the changed files`);
  }
  return { request, notes: agent.notes, nothingChanged: agent.nothingChanged };
}

/**
 * Several projects' fixes as one: a dry run computes them without a lock; otherwise all in one transaction
 * on `target` (one rollback undoes them all); their outcomes merged.
 */
export async function applyLintFixes(
  ctx: ToolContext,
  runs: readonly { fixer: FixerAdapter; request: FixRequest }[],
  target: string,
  dryRun: boolean,
): Promise<AppliedFix> {
  const fixAll = async () => {
    const outcomes: FixOutcome[] = [];
    for (const r of runs) outcomes.push(await r.fixer.fix(ctx, r.request));
    return mergeFixOutcomes(outcomes);
  };
  const tx = await runWriteStep(ctx, {
    tool: "lint_fix",
    target,
    dryRun,
    candidates: async () => (await Promise.all(runs.map((r) => r.fixer.candidates(ctx, r.request)))).flat(),
    write: fixAll,
  });
  return { outcome: tx.value, transaction: tx.transaction, txNotes: tx.notes };
}
