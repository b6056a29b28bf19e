import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BY_LANGUAGE_DOC, CONFIG_DOC, FILES_DOC, PATH_DOC } from "./arg-docs.js";
import { LISTING_ARGS } from "./listing.js";
import { OUTPUT_ARG } from "./sarif-output.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG, type ToolContext } from "../../engine/tool.js";
import { linterNames } from "../../adapters/linters.js";
import { ToolError } from "../../errors.js";
import { AGENT_ARGS } from "./lint-scope.js";
import { runLinters, type RanLint } from "./pipeline/run-lint.js";
import { failedLints, mergedResult, nothingLinted, singleResult } from "./pipeline/lint-result.js";
import { everyProjectFailed } from "./project-failures.js";
import { lintersForCall, namedLinter } from "./pipeline/choose.js";

const LINT_INPUT = z.strictObject({
  path: z.string().describe(PATH_DOC),
  linter: z.enum(linterNames()).optional().describe(BY_LANGUAGE_DOC),
  config: z.string().optional().describe(CONFIG_DOC),
  files: z.array(z.string()).optional().describe(FILES_DOC),
  format: z.enum(["compact", "full"]).optional().describe("ESLint; full: also offenses with corrections"),
  output: OUTPUT_ARG,
  ...LISTING_ARGS,
  ...AGENT_ARGS,
});

type LintArgs = z.infer<typeof LINT_INPUT>;

export const lintTool = () =>
  defineTool({
    name: "lint",
    description:
      "Lint files or inline code (ruff, flake8, eslint, go vet, clippy, rubocop): findings and fixes.",
    input: LINT_INPUT,
    annotations: { title: "Lint", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any", mayBeMissing: true }, PATH_AND_CONFIG[1]!],
    async handler(args, ctx) {
      const base = lintBase(ctx, args);
      // Choose: the linter named or one per language, at each project under the path (tool-choice.ts).
      const choice = args.linter
        ? { ...namedLinter(ctx, args.linter, base, args.source_code !== undefined), nothing: undefined }
        : lintersForCall(ctx, base, args);
      if (choice.picks.length === 0)
        return nothingLinted(
          ctx,
          args,
          base,
          [...choice.notes, `checked nothing: ${choice.nothing}`],
          undefined,
        );
      // Run, or serve from the result cache; each run scoped to the call's rules, files and changes.
      const runs = await runLinters(ctx, args, choice.picks);
      const ran = runs.filter((r): r is RanLint => r.outcome !== undefined);
      const failed = failedLints(ctx, args, runs);
      // View and budget: one linter's own shape, or several linters' findings under one budget.
      if (runs.length === 1 && ran.length === 1 && ran[0]?.path === args.path)
        return singleResult(ctx, args, ran[0] as RanLint, choice.notes);
      // Linters that failed and none that ran is the call's failure, never "nothing checked".
      if (ran.length === 0 && failed.length) throw everyProjectFailed(failed, "linters");
      if (ran.length === 0)
        return nothingLinted(
          ctx,
          args,
          args.path,
          [...choice.notes, ...runs.flatMap((r) => r.notes)],
          runs.map((r) => r.linter.name),
        );
      return mergedResult(
        ctx,
        args,
        ran,
        [...choice.notes, ...runs.filter((r) => !r.outcome).flatMap((r) => r.notes)],
        failed,
      );
    },
  });

/** The folder a call lints: its path, or inline code's folder when the file named does not exist. */
function lintBase(ctx: ToolContext, args: LintArgs): string {
  const inline = args.source_code !== undefined;
  if (!inline && !existsSync(args.path))
    throw new ToolError("path_validation", `path does not exist: ${args.path}`, {
      allowed_paths: ctx.allowlist.roots.effective,
    });
  return inline && !existsSync(args.path) ? path.dirname(args.path) : args.path;
}
