/**
 * git's sandbox: the call's, plus the repository's git data read-only when it lies above the allowed root
 * (a root that is a subfolder of a work tree). git reads it to list what changed or what is staged; the work
 * tree outside the root stays hidden.
 */
import fs from "node:fs";
import path from "node:path";
import type { SandboxRun, ToolContext } from "../engine/tool.js";

/** In the sandbox the root is a mount of its own under the work tree: git must look past it for `.git`. */
export const GIT_ENV = { GIT_DISCOVERY_ACROSS_FILESYSTEM: "1" };

export function gitSandbox(ctx: ToolContext, dir: string): SandboxRun {
  const sandbox = ctx.sandbox();
  const gitData = gitDataOf(dir);
  if (gitData.length === 0) return sandbox;
  return {
    ...sandbox,
    request: { ...sandbox.request, readOnly: [...(sandbox.request.readOnly ?? []), ...gitData] },
  };
}

/** The `.git` folder above `dir`, or for a linked work tree its git dir and the common dir. */
function gitDataOf(dir: string): string[] {
  for (let d = dir; ; d = path.dirname(d)) {
    const dotGit = path.join(d, ".git");
    const st = fs.lstatSync(dotGit, { throwIfNoEntry: false });
    if (st?.isDirectory()) return [dotGit];
    if (st?.isFile()) {
      const m = /^gitdir: (.+)$/m.exec(fs.readFileSync(dotGit, "utf8"));
      if (!m?.[1]) return [];
      const gitDir = path.resolve(d, m[1].trim());
      const common = path.join(gitDir, "commondir");
      const shared = fs.existsSync(common)
        ? [path.resolve(gitDir, fs.readFileSync(common, "utf8").trim())]
        : [];
      return [dotGit, gitDir, ...shared];
    }
    if (path.dirname(d) === d) return [];
  }
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
