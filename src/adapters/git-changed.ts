/**
 * Files git says changed, for `changed` scopes (lint, lint_fix, check --changed, lint_check): tracked files
 * that differ from a revision (HEAD by default) in the work tree or the index, plus untracked files that are
 * not ignored, or only the staged ones. Git runs through the bounded runner like every other tool.
 */
import path from "node:path";
import type { ToolContext } from "../engine/tool.js";
import { ToolError } from "../errors.js";
import { GIT_ENV, gitLines, gitSandbox } from "./git-sandbox.js";

export type ChangedScope = { kind: "since"; revision: string } | { kind: "staged" };

/** A revision must look like one: no option injection through `changed: "--output=x"`. */
export function checkRevision(revision: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/@{}^~-]*$/.test(revision) || revision.includes(".."))
    throw new ToolError("invalid_input", `changed: "${revision}" is not a git revision name`);
  return revision;
}

/** git argv for the tracked files that changed (deleted ones are left out: there is nothing to lint). */
export function diffArgv(scope: ChangedScope): string[] {
  return scope.kind === "staged"
    ? ["diff", "--cached", "--name-only", "--diff-filter=ACMR", "--"]
    : ["diff", "--name-only", "--diff-filter=ACMR", checkRevision(scope.revision), "--"];
}

/** ls-files names paths relative to the folder it runs in unless asked for top-level ones, as diff gives. */
export const UNTRACKED_ARGV = ["ls-files", "--others", "--exclude-standard", "--full-name", "--"];

/**
 * What git says of the index, handed over by a caller that has asked it already (the git pre-commit hook,
 * which lists the staged changes for its policies): the work tree's top, the staged files (added, copied,
 * modified or renamed; relative to the top, as git names them) and those whose work-tree copy differs from
 * the index. A run of this process then asks git nothing more for the staged scope.
 */
export interface StagedView {
  top: string;
  staged: readonly string[];
  differing: ReadonlySet<string>;
  /**
   * git's variables of the caller (a commit's GIT_INDEX_FILE...) for the git that reads a staged file, when
   * they are not this process's own (the check daemon runs a client's hook).
   */
  gitEnv?: Readonly<Record<string, string>>;
}

const STAGED_VIEW = "git-staged-view";

/** Registers `view` for every later call of this engine (`services` is the engine's). */
export function giveStagedView(services: ToolContext["services"], view: StagedView): void {
  services.get<{ view?: StagedView }>(STAGED_VIEW, () => ({})).view = view;
}

/** The staged view a caller gave for the work tree holding `dir`, if any. */
export function stagedViewFor(ctx: ToolContext, dir: string): StagedView | undefined {
  const view = ctx.services.get<{ view?: StagedView }>(STAGED_VIEW, () => ({})).view;
  return view && (dir === view.top || dir.startsWith(view.top + path.sep)) ? view : undefined;
}

/**
 * Absolute paths of the changed files under `dir` (a directory inside a git work tree), sorted.
 * Not a git work tree, or an unknown revision, is invalid_input with git's reason.
 */
export async function changedFiles(ctx: ToolContext, dir: string, scope: ChangedScope): Promise<string[]> {
  const inside = (abs: string) =>
    abs === dir || abs.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
  const view = scope.kind === "staged" ? stagedViewFor(ctx, dir) : undefined;
  if (view) return [...new Set(view.staged.map((rel) => path.resolve(view.top, rel)))].filter(inside).sort();
  // Every line is read (stdout itself is capped); core.quotepath=off keeps non-ASCII names unquoted.
  const git = async (args: string[]): Promise<string[]> => {
    const { lines, result: r } = await gitLines(ctx, dir, args);
    if (r.returncode !== 0)
      throw new ToolError(
        "invalid_input",
        `changed: git ${args[0]} failed: ${(r.stderr || r.stdout).trim()}`,
      );
    return lines.filter(Boolean);
  };
  const [top = dir] = await git(["rev-parse", "--show-toplevel"]);
  // A repository with no commit yet has no HEAD: what is staged is what changed (with the untracked files).
  const unborn =
    scope.kind === "since" &&
    scope.revision === "HEAD" &&
    (
      await ctx.run({
        program: "git",
        args: ["rev-parse", "--verify", "--quiet", "HEAD"],
        cwd: dir,
        sandbox: gitSandbox(ctx, dir),
        env: GIT_ENV,
      })
    ).returncode !== 0;
  const listed = await git(diffArgv(unborn ? { kind: "staged" } : scope));
  if (scope.kind === "since") listed.push(...(await git(UNTRACKED_ARGV)));
  return [...new Set(listed.map((rel) => path.resolve(top, rel)))].filter(inside).sort();
}
