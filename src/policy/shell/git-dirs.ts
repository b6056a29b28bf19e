/**
 * What `git rev-parse --git-dir`, `--absolute-git-dir`, `--git-common-dir` and `--git-path X` print, read
 * from the filesystem as git reads it (a `.git` folder, or a `.git` file naming a linked worktree's folder,
 * whose `commondir` names the shared one). These are the repository's fixed places, so a write to
 * `$(git rev-parse --git-dir)/hooks/pre-commit` is judged like one to `.git/hooks/pre-commit`.
 */
import path from "node:path";
import { repoTopOf } from "../git/config-lookup.js";
import { gitDirAt, readGitLink } from "../../paths/dot-git.js";

export interface GitDirs {
  top: string;
  gitDir: string;
  commonDir: string;
}

/** The git folders of the work tree holding `cwd`; undefined when there is none or it cannot be read. */
export function gitDirsOf(cwd: string): GitDirs | undefined {
  const top = repoTopOf(cwd);
  if (top === undefined) return undefined;
  try {
    const gitDir = gitDirAt(top);
    if (gitDir === undefined) return undefined;
    const commonDir = readGitLink(path.join(gitDir, "commondir"), gitDir) ?? gitDir;
    return { top, gitDir: path.resolve(gitDir), commonDir: path.resolve(commonDir) };
  } catch {
    return undefined;
  }
}

/** Paths under the git folder that linked worktrees share (git's path.c common_list), less its exceptions. */
const COMMON =
  /^(branches|common|config|hooks|info|logs|lost-found|objects|packed-refs|refs|remotes|rr-cache|shallow|svn|worktrees)(\/|$)/;
const PER_WORKTREE =
  /^(logs\/HEAD|info\/sparse-checkout|refs\/bisect|refs\/worktree|refs\/rewritten|logs\/refs\/bisect)(\/|$)/;

/**
 * What `git [-C dir] rev-parse <one of those options>` prints, as an absolute path (the same place as git's
 * relative answer); undefined for anything else. `hooks` honours `core.hooksPath` (`hooksPath` gives it).
 */
export function gitPathPrinted(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  hooksPath: (cwd: string) => string | null | undefined,
): string | undefined {
  let at = 1;
  let dir = cwd;
  while (argv[at] === "-C" && argv[at + 1] !== undefined) {
    dir = path.resolve(dir, argv[at + 1] as string);
    at += 2;
  }
  if (argv[at] !== "rev-parse") return undefined;
  // The environment can move every one of them.
  if (Object.keys(env).some((k) => /^GIT_(DIR|COMMON_DIR|WORK_TREE|CONFIG.*)$/.test(k))) return undefined;
  const args = argv.slice(at + 1);
  const dirs = gitDirsOf(dir);
  if (dirs === undefined) return undefined;
  if (args.length === 1 && (args[0] === "--git-dir" || args[0] === "--absolute-git-dir")) return dirs.gitDir;
  if (args.length === 1 && args[0] === "--git-common-dir") return dirs.commonDir;
  if (args.length === 2 && args[0] === "--git-path") {
    const rel = path.posix.normalize(args[1] as string).replace(/^\.\/|\/$/g, "");
    if (/^hooks(\/|$)/.test(rel)) {
      const configured = hooksPath(dir);
      if (configured === undefined) return undefined;
      if (configured !== null && configured !== "")
        return path.join(path.resolve(dirs.top, configured), rel.slice("hooks".length));
    }
    const base = COMMON.test(rel) && !PER_WORKTREE.test(rel) ? dirs.commonDir : dirs.gitDir;
    return path.join(base, rel);
  }
  return undefined;
}
