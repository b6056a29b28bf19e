/**
 * What git's reading of a command yields (GitInvocation) and what the reading is handed: the config and
 * branch lookups of the repository, the files the line wrote, and the state one reading carries. Types only.
 */

export interface GitInvocation {
  /** The subcommand after aliases ("" when none); an unknown name is kept (git runs `git-<name>`). */
  subcommand: string;
  /** Options in effect: the canonical `--long` and, when it has one, the `-s` short form; negated ones removed. */
  flags: string[];
  /** Option values by canonical name (`--message`, `-X` for short-only). */
  values: Record<string, string[]>;
  operands: string[];
  /** Configuration in effect for this run (command line and environment), keys lower case. */
  config: Record<string, string>;
  /** Keys this command writes to a config file (`git config …`), lower case; `section.*` for a whole section, `*` for --edit. */
  configSet: string[];
  /** The working directory after `-C`. */
  cwd: string | undefined;
  /** An option position holds text only known when the line runs (it could be any option). */
  dynamicOption: boolean;
  /** Aliases expanded, outermost first. */
  aliases: string[];
  /** Shell text git runs for this command (a `!` alias, `rebase --exec`, `core.pager`, ...). */
  shell: string[];
  /** Argv git runs for this command (`bisect run`). */
  runs: string[][];
  /** Why git's reading of the command cannot be known ("" when it can). */
  undecided: string;
  /**
   * Commits this command puts on a branch (moves a branch to, copies onto one) that no pre-commit hook judged:
   * each revision as written, or what the command does (a push into a local repository's branches).
   */
  unjudged: string[];
  /**
   * Work-tree files it rewrites from a revision, a stash or the index (`reset --hard`, `stash pop`,
   * `checkout REV -- paths`, `read-tree -u`, …), as git answers; undefined when it rewrites none.
   */
  rewrites?: RewriteAnswer;
  /** For a push: the branches it updates on the remote (`HEAD` and `@` resolved to the current branch; `*` for a pattern, `:` or `--all`). */
  pushBranches?: string[];
}

/** The current branch of the repository at a directory (null: detached or none; undefined: unknown). */
export type BranchLookup = (cwd: string | undefined) => string | null | undefined;

/**
 * Where a revision stands: "history" (reachable from HEAD, a local branch or a remote-tracking branch),
 * "outside" (a commit only a stash, a tag, a dangling object or another ref reaches), "unknown" (it names no
 * commit now); undefined when git could not say.
 */
export type HistoryLookup = (
  rev: string,
  cwd: string | undefined,
) => "history" | "outside" | "unknown" | undefined;

/** A local path as a git remote: a repository with a work tree, a bare one, or none (yet). */
export type RepoKindLookup = (dir: string) => "work-tree" | "bare" | "none";

/** What else git reads that the line decides: files the line wrote (a config), the current branch. */
export interface GitSurroundings {
  /** Files written earlier in the line, by absolute path: their text when static. */
  files?: ReadonlyMap<string, { text?: string; producer: string }>;
  branch?: BranchLookup;
  history?: HistoryLookup;
  repoKind?: RepoKindLookup;
  rewrites?: RewriteLookup;
  hooksOff?: HooksOffLookup;
}

/** Why a `core.hooksPath` value runs none of these hooks at `cwd` (undefined: it runs them). */
export type HooksOffLookup = (
  hooksPath: string,
  hooks: readonly string[],
  cwd: string | undefined,
) => string | undefined;

/** A config lookup in the repository at `cwd`: the value, null when unset, undefined when it cannot be read. */
export type ConfigLookup = (
  key: string,
  cwd: string | undefined,
  env: Record<string, string>,
) => string | null | undefined;

export interface ParseState {
  env: Record<string, string>;
  lookup: ConfigLookup;
  lineConfig: Map<string, string>;
  around: GitSurroundings;
}

/** Where the rewritten files' new content comes from. */
export type RewriteSource =
  /** A tree-ish: its files under the paths (all when none). */
  | { kind: "tree"; rev: string }
  /** The index: its files under the paths. */
  | { kind: "index" }
  /** A stash: what it changed against its base, and its untracked files. */
  | { kind: "stash"; rev: string };

export interface RewriteSpec {
  source: RewriteSource;
  /** Paths as written (relative to the command's directory); none: the whole tree. */
  paths: string[];
  /** Tracked files under the paths that the source lacks are removed (reset --hard, restore, read-tree). */
  deletes: boolean;
  /** False: a file already there is kept (checkout-index without -f). */
  overwrite: boolean;
  /**
   * Prepended to each file's path (`read-tree --prefix`: from the work tree's top; `checkout-index
   * --prefix` and a new worktree's folder: from the command's directory).
   */
  prefix?: { text: string; from: "top" | "cwd" };
  /** `checkout A B` without `--`: when A names no commit, git takes it as one more path from the index. */
  revMayBePath?: boolean;
}

/** One file a rewrite changes: its absolute path, and the text it gets (undefined: binary or too large). */
export interface RewrittenFile {
  path: string;
  kind: "write" | "delete";
  text?: string;
}

export type RewriteAnswer = { files: RewrittenFile[] } | { undecided: string };

export type RewriteLookup = (spec: RewriteSpec, cwd: string | undefined) => RewriteAnswer;
