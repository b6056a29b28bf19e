/** Seed 001's common parameters (camelCase) and how the pipeline canonicalizes `cwd`. */
import { z } from "zod";
import type { PathArgument } from "../../../engine/tool.js";

export const cwdParam = z
  .string()
  .optional()
  .describe("Working directory (default: the server's cwd). Must be inside the allowed roots.");

export const commonParams = {
  cwd: cwdParam,
  files: z
    .array(z.string())
    .optional()
    .describe('Files or globs to scope to, relative to cwd (default ["src/"]; "." when there is no src/)'),
  format: z
    .enum(["compact", "full"])
    .default("compact")
    .describe("compact omits files with no problems; full returns every file in scope"),
  dryRun: z
    .boolean()
    .default(false)
    .describe("Compute ESLint fixes without writing them (ESLint-only); reports would-fix status"),
};

/** `cwd` defaults to the server's working directory and must be an allowed directory. */
export const CWD_PATH: PathArgument[] = [{ arg: "cwd", kind: "directory", default: "." }];
