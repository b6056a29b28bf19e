/**
 * git's sandbox: the call's, plus the repository's git data read-only when it lies above the allowed root
 * (a root that is a subfolder of a work tree). git reads it to list what changed or what is staged; the work
 * tree outside the root stays hidden.
 */
import fs from "node:fs";
import path from "node:path";
import type { SandboxRun, ToolContext } from "../engine/tool.js";
import { ToolError } from "../errors.js";
import { gitFileTarget, readGitLink } from "../paths/dot-git.js";

/** In the sandbox the root is a mount of its own under the work tree: git must look past it for `.git`. */
export const GIT_ENV = { GIT_DISCOVERY_ACROSS_FILESYSTEM: "1" };

export function gitSandbox(ctx: ToolContext, dir: string): SandboxRun {
  const sandbox = ctx.sandbox();
  const gitData = gitDataOf(dir, sandbox.request.roots);
  if (gitData.length === 0) return sandbox;
  return {
    ...sandbox,
    request: { ...sandbox.request, readOnly: [...(sandbox.request.readOnly ?? []), ...gitData] },
  };
}

/**
 * The git data above or beside `dir` that git reads and the allowed roots do not show: the `.git` folder of a
 * work tree the roots lie in, or for a linked work tree its `.git` file, git dir and common dir. A `.git` file
 * or `commondir` inside the roots is the project's to write, so what it names outside them is bound only when
 * git itself registered it (the git dir's `gitdir` file names this `.git` file back); anything else is refused:
 * a forged `.git` file named the check daemon's folder (` /tmp/mcq-daemon-0`, which git reads relative and
 * this read absolute after a trim), and `/root`, and both were bound into git's sandbox.
 */
export function gitDataOf(dir: string, roots: readonly string[]): string[] {
  const shown = (p: string) => roots.some((r) => p === r || p.startsWith(r.endsWith("/") ? r : `${r}/`));
  const outside = (paths: string[]) => [...new Set(paths)].filter((p) => !shown(p));
  for (let d = dir; ; d = path.dirname(d)) {
    const dotGit = path.join(d, ".git");
    const st = fs.lstatSync(dotGit, { throwIfNoEntry: false });
    if (st?.isDirectory()) return outside([dotGit]);
    if (st?.isFile()) {
      const named = gitFileTarget(dotGit);
      const gitDir = named && realOrUndefined(named);
      // Not a repository to git either: it fails and says so.
      if (!gitDir) return [];
      const registered = readGitLink(path.join(gitDir, "gitdir"), gitDir);
      const trusted =
        !shown(dotGit) ||
        (registered !== undefined && realOrUndefined(registered) === realOrUndefined(dotGit));
      if (!trusted && !shown(gitDir)) throw refused(dotGit, gitDir, roots);
      const commonNamed = readGitLink(path.join(gitDir, "commondir"), gitDir);
      const common = commonNamed && realOrUndefined(commonNamed);
      if (common && !trusted && !shown(common)) throw refused(path.join(gitDir, "commondir"), common, roots);
      return outside([dotGit, gitDir, ...(common ? [common] : [])]);
    }
    if (path.dirname(d) === d) return [];
  }
}

function realOrUndefined(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined;
  }
}

function refused(file: string, target: string, roots: readonly string[]): ToolError {
  return new ToolError(
    "path_validation",
    `git: ${file} names ${target}, outside the allowed paths (${roots.join(", ")}), and git did not register it as a work tree of that repository: refused (the project's files may not show git anything outside the allowed paths)`,
  );
}

/**
 * Every line git prints on stdout for `args` in `dir` (stdout itself is capped), sandboxed as every git call
 * is; core.quotepath=off keeps non-ASCII names unquoted. With the run's result, for its exit code and stderr.
 */
export async function gitLines(
  ctx: ToolContext,
  dir: string,
  args: readonly string[],
  /** git's variables of a caller other than this process (StagedView.gitEnv). */
  env: Readonly<Record<string, string>> = {},
) {
  const lines: string[] = [];
  const result = await ctx.run({
    program: "git",
    args: ["-c", "core.quotepath=off", ...args],
    cwd: dir,
    sandbox: gitSandbox(ctx, dir),
    env: { ...env, ...GIT_ENV },
    onStdoutLine: (line) => void lines.push(line),
  });
  return { lines, result };
}

/** git's stdout lines for `args` in `dir`, or undefined when it fails. */
export async function gitOutput(
  ctx: ToolContext,
  dir: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
) {
  const { lines, result } = await gitLines(ctx, dir, args, env);
  return result.returncode === 0 ? lines : undefined;
}
