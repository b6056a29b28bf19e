/** seed 001 `lint_fix`: ESLint's fixes as a transaction (lock, snapshot, audit); dryRun writes nothing. */
import { z } from "zod";
import { WRITES_FILES } from "../../../engine/tool.js";
import { fixParams } from "./params.js";
import { seedFix } from "./seed-fix.js";
import { seedTool } from "./seed-result.js";

export const seedLintFixTool = () =>
  seedTool({
    name: "lint_fix",
    description:
      "Run ESLint with --fix (or --fix-dry-run when dryRun: true). Per-file status: fixed (modified, now clean), " +
      "would-fix (dry run), fixable (problems left after the fix), unfixable (no auto-fixable problems), " +
      "error (ESLint could not lint the file). Runs as a transaction: project lock, snapshot, audit (undo with " +
      "rollback). verify: true type-checks with tsc afterwards; with autoRollback (default) a failure undoes the fix.",
    input: z.strictObject(fixParams(false)),
    annotations: { title: "ESLint --fix", ...WRITES_FILES },
    handler: (args, ctx) => seedFix(ctx, "lint_fix", args),
  });
