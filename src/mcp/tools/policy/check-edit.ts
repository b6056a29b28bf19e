import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineTool, READ_ONLY, type ToolContext } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { isWithin } from "../../../paths/allowlist.js";
import { readFileIn } from "../../../paths/safe-fs.js";
import { agentRemediation } from "../../../policy/checks.js";
import type { EditInput } from "../../../policy/edit-context.js";
import { policyRuntime } from "./runtime.js";

const MAX_TEXT = 2 * 1024 * 1024;

/** Where an edit lands: its canonical path inside an allowed root, or outside (never read). */
export function locateEdit(ctx: Pick<ToolContext, "allowlist">, input: string) {
  try {
    const canonical = ctx.allowlist.resolvePossiblyMissing(input, { label: "path" });
    const root = ctx.allowlist.rootOf(canonical) as string;
    return { canonical, root, relative: path.relative(root, canonical).split(path.sep).join("/") };
  } catch (err) {
    if (err instanceof ToolError && err.errorType === "path_validation") return undefined;
    throw err;
  }
}

/** The git work tree (or the allowed root) a diff's paths are relative to. */
function diffBase(file: string, root: string): string {
  let dir = path.dirname(file);
  while (isWithin(root, dir)) {
    if (fs.existsSync(path.join(dir, ".git"))) return dir;
    if (dir === root) break;
    dir = path.dirname(dir);
  }
  return root;
}

export const policyCheckEditTool = () =>
  defineTool({
    name: "policy_check_edit",
    description: "Check a file edit against policy before making it.",
    input: z.strictObject({
      path: z.string().min(1).describe("File the edit writes; relative to cwd"),
      before: z.string().max(MAX_TEXT).optional().describe("Its text now (default: read)"),
      after: z.string().max(MAX_TEXT).optional().describe("Its whole new text"),
      diff: z.string().max(MAX_TEXT).optional().describe("Or a unified diff"),
    }),
    annotations: { title: "Check an edit against policy", ...READ_ONLY },
    async handler(args, ctx) {
      if (args.diff !== undefined && (args.after !== undefined || args.before !== undefined))
        throw new ToolError("invalid_input", "give after (and before) or diff, not both");
      if (args.diff === undefined && args.after === undefined)
        throw new ToolError("invalid_input", "give after (and optionally before) or diff");
      const runtime = await policyRuntime(ctx);
      const where = locateEdit(ctx, args.path);
      const absolute = where?.canonical ?? path.resolve(ctx.config.cwd, args.path);
      const edit: EditInput = where
        ? { path: where.relative, before: args.before, after: args.after, diff: args.diff }
        : {
            path: absolute,
            after: args.after,
            diff: args.diff,
            before: args.before,
            outsideAllowedPaths: true,
          };
      // Inside the allowlist, the current file is the "before" of an edit given only its new text.
      if (where && args.before === undefined && args.after !== undefined) {
        try {
          const current = readFileIn(where.root, where.canonical);
          if (current && current.content.length <= MAX_TEXT) edit.before = current.content.toString("utf8");
        } catch {
          // A link (followed by the checks, never read through) or an unreadable file: judged without its text.
        }
      }
      const bundle = runtime.bundleFor(where?.canonical, ctx.allowlist);
      const roots = [...ctx.allowlist.roots.effective];
      const options = { absolute, roots, deadline: Date.now() + runtime.deadlineMs };
      // Off the event loop, within the deadline: a huge diff or a costly condition holds up no other call.
      const outcome =
        args.diff !== undefined
          ? await runtime.checkDiff(
              bundle,
              { ...edit, diff: args.diff },
              where ? diffBase(where.canonical, where.root) : path.dirname(absolute),
              options,
            )
          : await runtime.checkEdit(bundle, edit, options);
      return {
        success: true,
        path: edit.path,
        ...outcome,
        agent_remediation: agentRemediation(bundle, outcome, { kind: "edit", path: edit.path }),
        bundle_hash: bundle.hash,
      };
    },
  });
