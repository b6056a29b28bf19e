/**
 * Reads one key of the git configuration a command would see (the repository at its working directory, the
 * user's and the system's files, or the ones its GIT_CONFIG_GLOBAL / GIT_CONFIG_SYSTEM / GIT_DIR point at),
 * by asking git itself (`git config --get`), bounded and reused for one decision. Used for aliases: an alias can
 * make `git ci` mean `commit --no-verify`.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { safeGitArgs } from "../../exec/git-safety.js";
import { gitDirAt, readGitLink } from "../../paths/dot-git.js";
import type {
  BranchLookup,
  ConfigLookup,
  HistoryLookup,
  HooksOffLookup,
  RepoKindLookup,
} from "./invocation.js";

const PASSED_ENV = [
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_DIR",
  "GIT_CONFIG",
  "HOME",
  "XDG_CONFIG_HOME",
];
const cache = new Map<string, string | null | undefined>();

/**
 * How long an answer of git is reused: for the lookups of one decision (a command's aliases, its revisions),
 * never across a server's calls, where the configuration or the branches may have changed in between (a
 * long-lived server kept `core.hooksPath` unset after the repository set it, and let a Write of the hooks
 * folder it names through).
 */
const ANSWER_TTL_MS = 500;
const fresh = new Map<string, number>();

function cached<T>(store: Map<string, T>, id: string): { hit: true; value: T } | { hit: false } {
  const at = fresh.get(id);
  if (at === undefined || performance.now() - at > ANSWER_TTL_MS || !store.has(id)) return { hit: false };
  return { hit: true, value: store.get(id) as T };
}

function remember<T>(store: Map<string, T>, id: string, value: T): T {
  store.set(id, value);
  fresh.set(id, performance.now());
  return value;
}

/** The lookup the checks use: `git config --get KEY` in `cwd` (null: unset; undefined: git could not say). */
export const gitConfigLookup: ConfigLookup = (key, cwd, env) => {
  const passed = Object.fromEntries(
    PASSED_ENV.filter((k) => env[k] !== undefined).map((k) => [k, env[k] as string]),
  );
  const id = JSON.stringify(["config", key, cwd, passed]);
  const hit = cached(cache, id);
  if (hit.hit) return hit.value;
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_") || k === "GIT_EXEC_PATH"),
  );
  const run = spawnSync("git", ["config", "--get", key], {
    cwd: cwd ?? process.cwd(),
    env: { ...base, ...passed, GIT_TERMINAL_PROMPT: "0" },
    encoding: "utf8",
    timeout: 3000,
    stdio: ["ignore", "pipe", "ignore"],
    maxBuffer: 64 * 1024,
  });
  // 0: set; 1: not set (or not a repository: then only the user's and system's files count).
  const value = run.status === 0 ? run.stdout.replace(/\n$/, "") : run.status === 1 ? null : undefined;
  return remember(cache, id, value);
};

/** The folder holding a directory's `.git` (file or folder), walking up; undefined when there is none. */
export function repoTopOf(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, ".git"))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The current branch of the repository at `cwd`, read from its HEAD file (a linked worktree's `.git` file
 * names its git directory): null when HEAD is detached, undefined when there is no repository to read.
 */
export const gitBranchLookup: BranchLookup = (cwd) => {
  const top = repoTopOf(cwd ?? process.cwd());
  if (top === undefined) return undefined;
  try {
    const gitDir = gitDirAt(top);
    if (gitDir === undefined) return undefined;
    const head = fs.readFileSync(path.join(gitDir, "HEAD"), "utf8");
    const ref = /^ref:\s*refs\/heads\/(.+)$/m.exec(head);
    return ref ? (ref[1] as string).trim() : null;
  } catch {
    return undefined;
  }
};

const historyCache = new Map<string, ReturnType<HistoryLookup>>();

/**
 * Where a revision stands in the repository at `cwd` (see HistoryLookup): git resolves it (`rev-parse
 * --verify REV^{commit}`), then lists what it reaches beyond HEAD, the local and the remote-tracking branches.
 * A local branch only gets commits through `git commit` (which runs pre-commit) or the commands the policies
 * gate; a remote-tracking one holds the remote's, others' reviewed work. Anything else (a stash's commits,
 * `git stash create`, `commit-tree`) was never judged by a pre-commit hook.
 */
export const gitHistoryLookup: HistoryLookup = (rev, cwd) => {
  if (rev === "" || rev.startsWith("-")) return undefined;
  const id = JSON.stringify(["history", rev, cwd]);
  const hit = cached(historyCache, id);
  if (hit.hit) return hit.value;
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_") || k === "GIT_EXEC_PATH"),
    ),
    GIT_TERMINAL_PROMPT: "0",
  };
  const opts = {
    cwd: cwd ?? process.cwd(),
    env,
    encoding: "utf8" as const,
    timeout: 3000,
    maxBuffer: 64 * 1024,
  };
  let value: ReturnType<HistoryLookup>;
  // The repository's config may name programs (core.fsmonitor...): none runs (src/exec/git-safety.ts).
  const parsed = spawnSync("git", safeGitArgs(["rev-parse", "-q", "--verify", `${rev}^{commit}`]), {
    ...opts,
    stdio: ["ignore", "pipe", "ignore"],
  });
  if (parsed.status === 1 || parsed.status === 128) value = "unknown";
  else if (parsed.status !== 0) value = undefined;
  else {
    const sha = parsed.stdout.trim();
    const beyond = spawnSync(
      "git",
      safeGitArgs([
        "rev-list",
        "--max-count=1",
        "--ignore-missing",
        sha,
        "--not",
        "HEAD",
        "--branches",
        "--remotes",
        "--",
      ]),
      { ...opts, stdio: ["ignore", "pipe", "ignore"] },
    );
    value = beyond.status !== 0 ? undefined : beyond.stdout.trim() === "" ? "history" : "outside";
  }
  return remember(historyCache, id, value);
};

/** A local path as a remote: a work tree (it holds `.git`, or it is a non-bare repository's `.git`), bare, or none. */
export const gitRepoKind: RepoKindLookup = (dir) => {
  try {
    if (fs.existsSync(path.join(dir, ".git"))) return "work-tree";
    if (path.basename(dir) === ".git" && fs.existsSync(path.join(dir, "HEAD"))) return "work-tree";
    if (fs.existsSync(path.join(dir, "HEAD")) && fs.existsSync(path.join(dir, "objects"))) return "bare";
  } catch {
    return "none";
  }
  return "none";
};

const runnable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/**
 * Why the hooks folder `hooksPath` (a `core.hooksPath` value) runs none of `hooks` where the repository's own
 * `.git/hooks` would: it is missing, empty or /dev/null, or it lacks a hook installed there (git runs only
 * the configured folder's). undefined: it runs them (or there is no repository to compare with).
 */
export const gitHooksOff: HooksOffLookup = (hooksPath, hooks, cwd) => {
  if (hooksPath === "/dev/null") return "it is /dev/null";
  const top = repoTopOf(cwd ?? process.cwd());
  if (top === undefined) return undefined;
  const dir = path.resolve(top, hooksPath.replace(/^~(?=\/|$)/, process.env.HOME ?? "~"));
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return `${dir} is not a folder there`;
  }
  if (entries.length === 0) return `${dir} is empty`;
  const gitDir = gitDirAt(top);
  if (gitDir === undefined) return undefined;
  const common = readGitLink(path.join(gitDir, "commondir"), gitDir) ?? gitDir;
  const installed = path.join(common, "hooks");
  if (path.resolve(installed) === dir) return undefined;
  const lost = hooks.find((h) => runnable(path.join(installed, h)) && !runnable(path.join(dir, h)));
  return lost === undefined ? undefined : `${dir} has no ${lost} hook, which .git/hooks has`;
};
