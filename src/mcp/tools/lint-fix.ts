import { z } from "zod";
import { BY_LANGUAGE_DOC, CONFIG_DOC, FILES_DOC, PATH_DOC } from "./arg-docs.js";
import { displayPaths } from "../../findings/display-path.js";
import { OUTPUT_ARG } from "./sarif-output.js";
import { LISTING_ARGS } from "./listing.js";
import type { FixOptions } from "../../adapters/lint-options.js";
import { AGENT_ARGS, filesFrom } from "./lint-scope.js";
import { defineTool, type ToolContext, WRITES_FILES, PATH_AND_CONFIG } from "../../engine/tool.js";
import { fixerNames, type FixerAdapter, type FixRequest } from "../../adapters/fixers.js";
import { hasFilesOf, type ProjectLanguage } from "../../adapters/project-languages.js";
import { DIFF_OFFSET_ARG, lintFixResult } from "./pipeline/fix-result.js";
import {
  applyLintFix,
  applyLintFixes,
  fixRequestOf,
  prepareFix,
  type LintFixArgs,
} from "./pipeline/run-fix.js";
import { fixerOfCall, type FixerPlacement } from "./pipeline/choose.js";
import { nothingChecked, nothingToFix } from "./pipeline/nothing-checked.js";

/** The arguments lint_fix and fix_all share. */
export function fixArguments(fixers: string[]) {
  return {
    path: z.string().describe(PATH_DOC),
    linter: z
      .enum(fixers as [string, ...string[]])
      .optional()
      .describe(BY_LANGUAGE_DOC),
    files: z.array(z.string()).optional().describe(FILES_DOC),
    safety: z.enum(["safe", "unsafe"]).default("safe").describe("unsafe: also unsafe fixes"),
    dry_run: z.boolean().default(false).describe("Write nothing; return diffs"),
    config: z.string().optional().describe(CONFIG_DOC),
    output: OUTPUT_ARG,
    ...LISTING_ARGS,
    diff_offset: DIFF_OFFSET_ARG,
  };
}

/** Listed only once a fixer is registered. */
export const lintFixTool = () => {
  const names = fixerNames();
  if (names.length === 0) return undefined;
  return defineTool({
    name: "lint_fix",
    description: "Apply lint fixes as a transaction (undo: rollback); lists the problems left.",
    input: z.strictObject({
      ...fixArguments(names),
      ...AGENT_ARGS,
      contextual: z.boolean().optional().describe("false: hold back unused-code removals"),
    }),
    annotations: { title: "Apply lint fixes", ...WRITES_FILES },
    paths: [{ arg: "path", kind: "any", mayBeMissing: true }, PATH_AND_CONFIG[1]!],
    async handler(args, ctx) {
      // Choose: the fixer named or the project's, at each project under the path (tool-choice.ts).
      const picked = fixerOfCall(
        args.path,
        args.linter,
        args.source_code !== undefined,
        ctx.allowlist.rootOf(args.path),
      );
      if (!picked.fixer) return nothingToFix(args.dry_run, picked.notes, picked.nothing);
      if (picked.placements) return fixProjects(ctx, args, picked.placements, picked.notes);
      const fixer = picked.fixer;
      const started = performance.now();
      // Scope: the agent arguments resolved into the fixer's request.
      const prepared = await prepareFix(ctx, args, fixer);
      const notes = [...picked.notes, ...prepared.notes];
      // Inline code has no files to look for; otherwise a fixer with no file of its languages fixes nothing.
      if (args.source_code === undefined && !fixesFilesUnder(fixer, args.path))
        return nothingToFix(
          args.dry_run,
          notes,
          `${fixer.name} fixes ${fixer.languages.join(", ")} and there are no such files under ${args.path}`,
        );
      if (args.contextual !== undefined && !fixer.capabilities?.contextual)
        notes.push(`${fixer.name} has no corrections it holds back: contextual changes nothing`);
      if (prepared.nothingChanged)
        return nothingChecked({ dry_run: args.dry_run, changed_files: [] as string[] }, [
          ...notes,
          "no file changed",
        ]);
      const { request } = prepared;
      const options = request.options as FixOptions;
      // Run: inline code is corrected in memory (no transaction, nothing written, the text comes back);
      // files in a transaction of lint_fix.
      const fix = options.source
        ? { outcome: await fixer.fix(ctx, { ...request, dryRun: true }), transaction: undefined, txNotes: [] }
        : await applyLintFix(ctx, fixer, request);
      // View and budget.
      return lintFixResult(
        ctx,
        args,
        fix,
        { request, options, notes, started, sarifTool: fixer.name },
        options.source
          ? {
              corrected_source: fix.outcome.correctedSource,
              corrected: fix.outcome.correctedSource !== options.source.code,
            }
          : {},
      );
    },
  });
};

/**
 * lint_fix on a path holding several projects: each project's fixer at its own root with its own
 * configuration, all in one transaction on the path (one rollback undoes them all); the result is one
 * lint_fix result over them, `projects` saying which fixer ran where.
 */
async function fixProjects(
  ctx: ToolContext,
  args: LintFixArgs,
  placements: readonly FixerPlacement[],
  pickNotes: string[],
) {
  const started = performance.now();
  const notes = [...pickNotes];
  const runs: { fixer: FixerAdapter; request: FixRequest }[] = [];
  for (const { fixer, target } of placements) {
    const files = filesFrom(args.files, args.path, target);
    if (files?.length === 0 || !fixesFilesUnder(fixer, target)) continue;
    const prepared = await prepareFix(ctx, { ...args, path: target, files }, fixer);
    notes.push(...prepared.notes);
    if (!prepared.nothingChanged) runs.push({ fixer, request: prepared.request });
  }
  if (runs.length === 0)
    return nothingToFix(args.dry_run, notes, "nothing to fix in the projects under the path");
  const fix = await applyLintFixes(ctx, runs, args.path, args.dry_run);
  const display = displayPaths(args.path, ctx.allowlist.roots.effective);
  return lintFixResult(
    ctx,
    args,
    fix,
    {
      request: fixRequestOf(args),
      options: runs[0]?.request.options ?? {},
      notes,
      started,
      sarifTool: "lint_fix",
    },
    { projects: runs.map((r) => ({ path: display.show(r.request.target) || ".", linter: r.fixer.name })) },
  );
}

/** A fixer with files of its languages under `target`. */
function fixesFilesUnder(fixer: FixerAdapter, target: string): boolean {
  return fixer.languages.some((l) => hasFilesOf(target, l as ProjectLanguage));
}
