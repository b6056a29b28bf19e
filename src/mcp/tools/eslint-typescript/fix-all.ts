/**
 * seed 001 `fix_all`: ESLint's fixes then tsc (no formatting step), in one transaction; when tsc fails
 * and autoRollback is on (default), every written file is restored byte for byte before the lock is released.
 */
import { z } from "zod";
import { WRITES_FILES } from "../../../engine/tool.js";
import { fixParams } from "./params.js";
import { seedFix } from "./seed-fix.js";
import { seedTool } from "./seed-result.js";

export const seedFixAllTool = () =>
  seedTool({
    name: "fix_all",
    description:
      "Run lint_fix then typecheck, as one transaction (project lock, snapshot, audit). Type errors introduced " +
      "or exposed by the fix are reported in the same result. When tsc fails and autoRollback is on (default), " +
      "every file ESLint wrote is restored byte for byte and success is false.",
    input: z.strictObject({
      ...fixParams(true),
      skipTypecheck: z.boolean().default(false).describe("Run lint_fix only, without the tsc verification"),
    }),
    annotations: { title: "ESLint --fix, then tsc", ...WRITES_FILES },
    handler: (args, ctx) => seedFix(ctx, "fix_all", args),
  });
