/**
 * Seed 001's parameters (camelCase), with the original server's names, types, ranges and enums,
 * and how the pipeline canonicalizes `cwd`.
 */
import { z } from "zod";
import type { PathArgument } from "../../../engine/tool.js";

export const cwdParam = z
  .string()
  .optional()
  .describe("Working directory (default: the server's cwd). Must be inside the allowed roots.");

const filesParam = z
  .array(z.string())
  .optional()
  .describe('Files or globs to scope to, relative to cwd (default ["src/"]; "." when there is no src/)');

const formatParam = z
  .enum(["full", "compact"])
  .default("compact")
  .describe("compact omits files with no problems; full returns every file in scope");

/** lint and typecheck. */
export const readParams = { cwd: cwdParam, files: filesParam, format: formatParam };

/** lint_fix (fix_all adds skipTypecheck and verifies by default). */
export function fixParams(verifyByDefault: boolean) {
  return {
    cwd: cwdParam,
    files: filesParam,
    dryRun: z
      .boolean()
      .default(false)
      .describe("Compute ESLint's fixes without writing them; changed files report would-fix"),
    verify: z
      .boolean()
      .default(verifyByDefault)
      .describe(
        `Type-check with tsc after the fix (default ${verifyByDefault}); with autoRollback, a failed check undoes the fix`,
      ),
    autoRollback: z
      .boolean()
      .default(true)
      .describe("Restore every written file when the tsc verification fails (default true)"),
    format: formatParam,
  };
}

/** `cwd` defaults to the server's working directory and must be an allowed directory. */
export const CWD_PATH: PathArgument[] = [{ arg: "cwd", kind: "directory", default: "." }];
