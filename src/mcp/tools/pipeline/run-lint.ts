/** Running a linter: its agent arguments resolved, and its outcome through the result cache (one place for every finding tool). */
import type { ListingArgs } from "../listing.js";
import { type ToolContext } from "../../../engine/tool.js";
import {
  findLinter,
  type LinterAdapter,
  type LintOutcome,
  type LintRequest,
} from "../../../adapters/linters.js";
import {
  cachedWholeCall,
  keyArgs,
  RUN_NOTE,
  toolIdentity,
  wholeLanguageOf,
} from "../../../adapters/whole-program.js";
import { ToolError } from "../../../errors.js";
import { resultCacheOf } from "../../../cache/service.js";
import type { LintOptions } from "../../../adapters/lint-options.js";
import { hasFilesOf, type ProjectLanguage } from "../../../adapters/project-languages.js";
import { type AgentArgs, changedAsFiles, filesFrom, resolveAgentArgs } from "../lint-scope.js";

/** Linters whose `files` argument takes paths relative to `path` (how `changed` reaches them). */

/** A lint call's arguments, as the lint tools validate them (what the pipeline's steps read of them). */
export type LintArgs = AgentArgs &
  ListingArgs & {
    linter?: string;
    config?: string;
    files?: string[];
    format?: "compact" | "full";
    output: "json" | "sarif";
  } & Record<string, unknown>;

export const TAKES_FILES = new Set(["ruff", "flake8", "eslint"]);

export interface LintRun {
  linter: LinterAdapter;
  /** Where it ran: the call's path or a project below it. */
  path: string;
  notes: string[];
  outcome?: LintOutcome;
  options?: LintOptions;
  /** Its failure, when it ran among others (reported beside their results). */
  error?: ToolError;
}

export type RanLint = Required<Omit<LintRun, "error">>;

/**
 * A linter's outcome, through the result cache: adapters that cache per file do it themselves; the others
 * (go vet, staticcheck, golint, clippy, flake8) are kept per project input set here. Inline code is not cached.
 */
export async function lintThroughCache(
  ctx: ToolContext,
  linter: LinterAdapter,
  request: LintRequest,
): Promise<LintOutcome> {
  ctx.progress?.({ message: `linting with ${linter.name}` });
  const cache = resultCacheOf(ctx);
  const language = wholeLanguageOf(linter.languages);
  if (!cache || linter.cachesPerFile || !language || request.options?.source)
    return linter.lint(ctx, request);
  const root = ctx.allowlist.rootOf(request.target) ?? request.target;
  type Stored = Omit<LintOutcome, "version" | "issueText"> & { versionText?: string };
  const { value, cache: marker } = await cachedWholeCall<Stored>({
    ctx,
    cache,
    kind: `lint ${linter.name}`,
    language,
    target: request.target,
    root,
    identity: {
      tool: await toolIdentity(ctx, linter.name, request.target),
      args: keyArgs(request.args, root),
      options: keyArgs({ ...request.options }, root),
    },
    async run() {
      const { version, issueText: _own, ...rest } = await linter.lint(ctx, request);
      return { ...rest, versionText: await version?.() };
    },
    onHit: (o) => ({ ...o, notes: o.notes.filter((n) => !RUN_NOTE.test(n)) }),
    toolClosure: linter.closure?.(ctx, request),
  });
  const { versionText, ...outcome } = value;
  return { ...outcome, version: () => Promise.resolve(versionText), cache: marker };
}

/** One linter's run over the call's target, or the notes saying why it checked nothing there. */
export async function runLinter(ctx: ToolContext, args: LintArgs, name: string): Promise<LintRun> {
  const linter = findLinter(name);
  if (!linter) throw new ToolError("invalid_input", `unknown linter ${name}`);
  const inline = args.source_code !== undefined;
  const agent = await resolveAgentArgs(ctx, args, linter, {
    fixing: false,
    takesFiles: TAKES_FILES.has(linter.name),
  });
  const nothingThere = !inline && !linter.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage));
  if (nothingThere || agent.nothingChanged)
    return {
      linter,
      path: args.path,
      notes: [
        ...agent.notes,
        nothingThere
          ? `checked nothing: ${linter.name} lints ${linter.languages.join(", ")} and there are no such files under ${args.path}`
          : "checked nothing: no file changed",
      ],
    };
  const options = agent.options;
  const lintArgs =
    options.changedFiles && TAKES_FILES.has(linter.name)
      ? { ...args, files: changedAsFiles(args.path, options.changedFiles) }
      : args;
  const outcome = await lintThroughCache(ctx, linter, {
    target: args.path,
    config: args.config,
    args: lintArgs,
    options,
  });
  return { linter, path: args.path, notes: agent.notes, outcome, options };
}

/**
 * Each linter chosen at its place (the call's path, or a project below it with the call's `files` that
 * reach it): its outcome, or the notes saying why it checked nothing there. Among several, one's failure
 * (a nested module go cannot load, a crate cargo refuses) is its run's `error`, so the others' results stand.
 */
export async function runLinters(
  ctx: ToolContext,
  args: LintArgs,
  picks: readonly { name: string; target?: string }[],
): Promise<LintRun[]> {
  const runs: LintRun[] = [];
  for (const { name, target } of picks) {
    const files = target ? filesFrom(args.files, args.path, target) : args.files;
    if (files?.length === 0) continue;
    const own = target ? { ...args, path: target, files } : args;
    try {
      runs.push(await runLinter(ctx, own, name));
    } catch (err) {
      const linter = findLinter(name);
      if (picks.length < 2 || !linter || !(err instanceof ToolError)) throw err;
      runs.push({ linter, path: own.path, notes: [], error: err });
    }
  }
  return runs;
}
