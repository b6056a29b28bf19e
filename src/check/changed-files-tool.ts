/**
 * `--changed`'s file lists through the engine like every other call (allowlist, audit, the bounded runner
 * for git). Only check's own engine has this tool; it is not an MCP tool.
 */
import { z } from "zod";
import { changedFiles } from "../adapters/git-changed.js";
import { defineTool, READ_ONLY } from "../engine/tool.js";

export const CHANGED_FILES_TOOL = "check_changed_files";

export const changedFilesTool = () =>
  defineTool({
    name: CHANGED_FILES_TOOL,
    description: "Files git says changed under a directory since a revision (tracked and untracked).",
    input: z.strictObject({ path: z.string(), revision: z.string() }),
    annotations: { title: "Changed files", ...READ_ONLY },
    paths: [{ arg: "path", kind: "directory" }],
    async handler(args, ctx) {
      const files = await changedFiles(ctx, args.path, { kind: "since", revision: args.revision });
      return { success: true, files };
    },
  });
