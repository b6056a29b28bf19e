/**
 * The rubocop toolset's shared arguments (seed 003's names) and how they become a RuboCop job: the path (or
 * the file inline code is linted as), only/except, changed files through git.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { changedFiles } from "../../../adapters/git-changed.js";
import type { FixOptions } from "../../../adapters/lint-options.js";
import type { RubocopJob } from "../../../adapters/ruby/rubocop-types.js";
import type { ToolContext } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";

export const scopeParams = {
  path: z
    .string()
    .optional()
    .describe(
      "File or directory (default: the working directory); with source_code, the file name it is linted as",
    ),
  source_code: z
    .string()
    .optional()
    .describe("Ruby code to check instead of files (as example.rb unless path is given)"),
  only: z.array(z.string()).optional().describe("Cops or departments to run (--only)"),
  except: z.array(z.string()).optional().describe("Cops or departments to skip (--except)"),
  changed: z
    .union([z.boolean(), z.string()])
    .optional()
    .describe("Only files git says changed: true (since HEAD) or a revision"),
  max_offenses_per_cop: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("At most this many offenses per cop; the rest are counted"),
};

export interface ScopeArgs {
  path?: string;
  source_code?: string;
  only?: string[];
  except?: string[];
  changed?: boolean | string;
  max_offenses_per_cop?: number;
}

/** An `only` entry that an `except` entry also names (itself or its department) can never run. */
export function scopeContradiction(only: string[] = [], except: string[] = []): string | undefined {
  for (const name of only) {
    const dropped = except.find((e) => e === name || name.startsWith(`${e}/`));
    if (dropped) return `only: ${name} is also excluded by except: ${dropped}`;
  }
  return undefined;
}

/** Where a call without `path` looks: the working directory when it is allowed, else the first allowed root. */
export function defaultPath(ctx: ToolContext): string {
  const cwd = ctx.config.cwd;
  return ctx.allowlist.rootOf(cwd) ? ctx.allowlist.resolve(cwd) : (ctx.allowlist.roots.effective[0] ?? cwd);
}

/** The job of validated arguments (paths resolved through the allowlist); contradictions are invalid_input. */
export async function jobOf(ctx: ToolContext, args: ScopeArgs, maxDefault?: number): Promise<RubocopJob> {
  const contradiction = scopeContradiction(args.only, args.except);
  if (contradiction) throw new ToolError("invalid_input", contradiction);
  const options: FixOptions = {
    rules: args.only || args.except ? { only: args.only, except: args.except } : undefined,
    maxPerRule: args.max_offenses_per_cop ?? maxDefault,
  };
  if (args.source_code !== undefined) {
    if (args.changed !== undefined && args.changed !== false)
      throw new ToolError("invalid_input", "changed: applies to files; it cannot be used with source_code");
    const given = args.path ? ctx.allowlist.resolvePossiblyMissing(args.path, { label: "path" }) : undefined;
    const isDir = given !== undefined && fs.existsSync(given) && fs.statSync(given).isDirectory();
    const file = given && !isDir ? given : path.join(given ?? defaultPath(ctx), "example.rb");
    return { target: file, options: { ...options, source: { code: args.source_code, path: file } } };
  }
  const target = args.path ? ctx.allowlist.resolve(args.path, { label: "path" }) : defaultPath(ctx);
  if (args.changed !== undefined && args.changed !== false) {
    const dir = fs.statSync(target).isDirectory() ? target : path.dirname(target);
    const revision = args.changed === true ? "HEAD" : args.changed;
    options.changedFiles = await changedFiles(ctx, dir, { kind: "since", revision });
  }
  return { target, options };
}
