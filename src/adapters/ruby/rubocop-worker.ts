/**
 * The warm RuboCop worker: a long-lived Ruby process per project root (ruby/rubocop_worker.rb, shipped with the
 * server) in the same pool as the ESLint and TypeScript workers (idle TTL, count cap, group kill on timeout). It
 * is retired when .rubocop.yml, a file it inherits from, or Gemfile.lock changes.
 */
import fs from "node:fs";
import path from "node:path";
import { refuseLinksInArgs } from "../../paths/outside-links.js";
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";
import { findExecutable } from "../../exec/which.js";
import { warmRequest } from "../js/warm.js";
import { packagePath } from "../../package-root.js";
import { yaml } from "../../yaml-lazy.js";
import { isDirectory, nearestMarkerDir } from "../marker-dir.js";
import { projectScratchDir } from "../../exec/sandbox/scratch.js";

export const RUBOCOP_WORKER_SCRIPT = packagePath("ruby", "rubocop_worker.rb");

/** The project root of a Ruby target: the nearest directory with .rubocop.yml, else Gemfile, up to the allowed root. */
export function rubyProjectRoot(target: string, allowedRoot: string): string {
  for (const marker of [".rubocop.yml", "Gemfile"]) {
    const dir = nearestMarkerDir(target, allowedRoot, marker);
    if (dir) return dir;
  }
  return isDirectory(target) ? target : path.dirname(target);
}

/** .rubocop.yml and the local files it inherits from (inherit_from, one level of nesting followed per file). */
export function watchedConfigs(root: string, allowedRoot: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !file.startsWith(allowedRoot + path.sep)) return;
    seen.add(file);
    let doc: unknown;
    try {
      doc = yaml().parse(fs.readFileSync(file, "utf8"));
    } catch {
      return; // missing or broken: RuboCop reports it; the file is still watched
    }
    const inherit = (doc as { inherit_from?: unknown } | null)?.inherit_from;
    for (const entry of Array.isArray(inherit) ? inherit : inherit ? [inherit] : [])
      if (typeof entry === "string" && !/^https?:/.test(entry))
        visit(path.resolve(path.dirname(file), entry));
  };
  visit(path.join(root, ".rubocop.yml"));
  return [...seen, path.join(root, "Gemfile.lock")];
}

/** The rubocop version a Gemfile.lock pins, when it has one. */
export function lockedRubocop(root: string): string | undefined {
  try {
    return /^ {4}rubocop \(([^)]+)\)$/m.exec(fs.readFileSync(path.join(root, "Gemfile.lock"), "utf8"))?.[1];
  } catch {
    return undefined;
  }
}

interface Runtime {
  runtime: { program: string; args: string[] };
  note: string;
}

/** The project's RuboCop through Bundler when its Gemfile.lock pins one and bundler is installed; else the installed one. */
export function rubocopRuntime(root: string, command: string): Runtime {
  const ruby = findExecutable("ruby");
  if (!ruby)
    throw new ToolError(
      "tool_not_found",
      "ruby is not installed, so RuboCop cannot run (install ruby and rubocop)",
      {
        command,
      },
    );
  const locked = lockedRubocop(root);
  const bundle = locked ? findExecutable("bundle") : undefined;
  if (locked && bundle)
    return {
      runtime: { program: bundle, args: ["exec", ruby] },
      note: `the project's rubocop ${locked} through Bundler (Gemfile.lock)`,
    };
  return {
    runtime: { program: ruby, args: [] },
    note: locked
      ? `the project's Gemfile.lock pins rubocop ${locked}, but bundler is not installed: used the installed rubocop`
      : "the installed rubocop (the project's Gemfile.lock pins none)",
  };
}

export interface RubocopFileRun {
  status: number;
  /** `rubocop --format json` for the one file. */
  report: string;
  /** The corrected source, when autocorrection was asked for. */
  corrected: string | null;
  stderr: string;
  /** Each correctable offense's own edits (asked with `corrections: true`). */
  corrections?: RubocopCorrection[];
}

export interface RubocopCorrection {
  cop: string;
  line: number;
  column: number;
  safe: boolean;
  edits: { line: number; column: number; end_line: number; end_column: number; text: string }[];
}

export interface RubocopRunParams {
  autocorrect?: "safe" | "all";
  only?: string[];
  except?: string[];
  config?: string;
  /** Also compute each offense's correction edits (an extra investigation; nothing applied). */
  corrections?: boolean;
}

/**
 * The project's folder of compiled Ruby (ruby/iseq_cache.rb): the server's, per project, since the worker runs
 * the project's custom cops and could leave anything there. None when it cannot be made: the worker compiles.
 */
function iseqCacheDir(root: string): string | undefined {
  return scratchOrNone("rubocop-iseq", root);
}

/**
 * Where a batch inspection keeps RuboCop's own result cache for the length of one run (ruby/rubocop_worker.rb):
 * RuboCop inspects in parallel only with its cache on, and a cache made and removed per batch can never
 * answer for a file or a custom cop changed since. None when it cannot be made: the batch runs serially.
 */
function parallelCacheDir(root: string): string | undefined {
  return scratchOrNone("rubocop-parallel", root);
}

function scratchOrNone(name: string, root: string): string | undefined {
  try {
    return projectScratchDir(name, root);
  } catch {
    return undefined;
  }
}

/** One request to the project's warm RuboCop worker. */
export async function rubocopRequest<T>(
  ctx: ToolContext,
  target: string,
  method: "targets" | "run" | "version" | "explain",
  params: unknown,
  command: string,
): Promise<{ result: T; notes: string[]; root: string }> {
  // No process starts for a warm request, so the engine's link check is made here: RuboCop reads the
  // files under its target, and a link there leading out of the allowed paths is refused.
  refuseLinksInArgs([target], ctx.allowlist);
  const allowedRoot = ctx.allowlist.rootOf(target) ?? target;
  const root = rubyProjectRoot(target, allowedRoot);
  const { runtime, note } = rubocopRuntime(root, command);
  const iseqs = iseqCacheDir(root);
  const parallel = iseqs && parallelCacheDir(root);
  const reply = await warmRequest<T>(
    ctx,
    {
      tool: "rubocop",
      root,
      script: RUBOCOP_WORKER_SCRIPT,
      watch: watchedConfigs(root, allowedRoot),
      runtime,
      ...(iseqs ? { args: parallel ? [iseqs, parallel] : [iseqs] } : {}),
    },
    method,
    params,
    command,
    "RuboCop failed",
  );
  return { result: reply.result, notes: [note, reply.note], root };
}
