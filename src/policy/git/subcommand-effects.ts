/**
 * What some git subcommands do beyond their options: `git config` writes (kept for the rest of the line),
 * the remote branches a push updates, the commits a command puts on a branch that no pre-commit hook judged,
 * and the commands rebase, bisect, submodule and the diff tools run.
 */
import path from "node:path";
import { configKey } from "./config-formats.js";
import type { GitInvocation, ParseState } from "./invocation.js";
import { readWorktreeAdd, rewriteSpec } from "./rewrites.js";

/**
 * The remote branches a push updates: each refspec's destination (`src:dst`, or the source's own name),
 * `HEAD` and `@` as the current branch, `*` for a pattern, `:` (matching) or --all/--mirror/--branches.
 */
function pushBranches(inv: GitInvocation, state: ParseState): string[] {
  const has = (...names: string[]) => names.some((n) => inv.flags.includes(n));
  const out: string[] = [];
  if (has("--all", "--branches", "--mirror")) out.push("*");
  const current = () => {
    const b = state.around.branch?.(inv.cwd);
    return b ?? "HEAD";
  };
  const short = (ref: string) => ref.replace(/^refs\/heads\//, "");
  for (const spec of inv.operands.slice(1)) {
    const s = spec.replace(/^\+/, "");
    if (s === ":" || s.includes("*")) {
      out.push("*");
      continue;
    }
    const colon = s.indexOf(":");
    const src = colon === -1 ? s : s.slice(0, colon);
    const dst = colon === -1 ? "" : s.slice(colon + 1);
    if (dst !== "") out.push(short(dst === "HEAD" || dst === "@" ? current() : dst));
    else if (colon === -1) out.push(src === "HEAD" || src === "@" ? current() : short(src));
  }
  // No refspec: push.default pushes the current branch.
  if (inv.operands.length < 2 && out.length === 0) out.push(current());
  return [...new Set(out)];
}

/** A stash's commits (`stash@{0}^2`, `refs/stash`): git made them without running pre-commit. */
const STASH = /^(refs\/)?stash($|@\{|[~^:])/;

/** The commits a revision range names (`A..B` → A's side is excluded, B counts; `A...B` both; `^A` none). */
function tips(rev: string): string[] {
  if (rev.startsWith("^")) return [];
  const three = rev.split("...");
  if (three.length === 2) return three.map((r) => r || "HEAD");
  const two = rev.split("..");
  if (two.length === 2) return [two[1] || "HEAD"];
  return [rev.replace(/\^[!@]$/, "").replace(/^-$/, "@{-1}")];
}

/**
 * Notes each revision the command puts on a branch that is not already history (gitHistoryLookup): a stash's
 * commits at once, without asking git (the line may make the stash first).
 */
function judgeRevs(inv: GitInvocation, revs: string[], state: ParseState): void {
  for (const rev of revs.flatMap(tips)) {
    // HEAD and its ancestors are history (HEAD only reaches a commit outside it through the commands judged here).
    if (/^(HEAD|@)([~^]\d*)*$/.test(rev)) continue;
    if (STASH.test(rev)) {
      inv.unjudged.push(rev);
      continue;
    }
    const where = state.around.history?.(rev, inv.cwd);
    if (where === "outside") inv.unjudged.push(rev);
    else if (where === undefined && state.around.history)
      inv.undecided ||= `git could not tell whether ${rev} is a commit of the repository's history`;
    // "unknown": git fails on it, or the line makes it first, and then only through what is judged here
    // (a branch, a tag, a stash, a local fetch) or blocked (update-ref, commit-tree).
  }
}

/** A remote as a local path (`.`, `../x`, `/srv/x`, `file://…`), from the operand or the remote's configured URL. */
/** The key under which the line's `git clone` records a clone's origin (never a config key: those have no NUL). */
const CLONED = "\u0000clone ";

/** `git clone SRC [DIR]` earlier in the line: DIR's origin is SRC, which the lookup cannot read before it runs. */
function recordClone(inv: GitInvocation, state: ParseState): void {
  const [src, dir] = inv.operands;
  if (src === undefined || inv.cwd === undefined) return;
  const target = path.resolve(inv.cwd, dir ?? path.basename(src.replace(/\/+$/, "")).replace(/\.git$/, ""));
  const local =
    /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(src) && !src.startsWith("file://")
      ? src
      : path.resolve(inv.cwd, src.replace(/^file:\/\//, ""));
  state.lineConfig.set(`${CLONED}${target}`, local);
}

/** The origin of a clone the line made, when `cwd` is in it. */
function clonedOrigin(cwd: string | undefined, state: ParseState): string | undefined {
  if (cwd === undefined) return undefined;
  for (const [key, src] of state.lineConfig)
    if (key.startsWith(CLONED)) {
      const dir = key.slice(CLONED.length);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) return src;
    }
  return undefined;
}

function localRemote(inv: GitInvocation, state: ParseState, forPush: boolean): string | null | undefined {
  const name = inv.operands[0] ?? "origin";
  const asPath = (url: string) => {
    const u = url.replace(/^file:\/\//, "");
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(u) || /^[^/]*:/.test(u)) return null; // a network URL or scp-like host:path
    if (path.isAbsolute(u)) return u;
    return inv.cwd === undefined ? undefined : path.resolve(inv.cwd, u);
  };
  if (/^(\.{1,2}($|\/)|\/|~|file:\/\/)/.test(name))
    return asPath(name.replace(/^~(?=\/|$)/, state.env.HOME ?? "~"));
  if (name.includes(":")) return null;
  const cloned = name === "origin" ? clonedOrigin(inv.cwd, state) : undefined;
  if (cloned !== undefined) return asPath(cloned);
  const url =
    (forPush ? state.lookup(`remote.${name}.pushurl`, inv.cwd, state.env) : null) ??
    state.lookup(`remote.${name}.url`, inv.cwd, state.env);
  // Not readable (no repository there yet, not one the line clones): git fails there.
  return url === undefined || url === null ? null : asPath(url);
}

/**
 * A push into (or a fetch or pull from) a repository on this machine that has a work tree: its commits were
 * made where this repository's pre-commit hook did not run (a fresh clone has no hooks), so a branch it writes
 * here, or the one it writes there, holds commits no hook judged.
 */
function judgeLocalTransfer(inv: GitInvocation, sub: string, state: ParseState): void {
  if (sub === "fetch" && !inv.operands.slice(1).some((r) => /:./.test(r))) return; // only remote-tracking refs
  const where = localRemote(inv, state, sub === "push");
  if (where === null) return;
  if (where === undefined) {
    inv.undecided ||= `git ${sub}'s remote is a path relative to a directory only known when the line runs`;
    return;
  }
  if (state.around.repoKind?.(where) === "work-tree")
    inv.unjudged.push(`${sub} ${sub === "push" ? "into" : "from"} the local repository ${where}`);
}

/** The key under which the line records that an earlier git command may have changed refs, the index or a stash. */
const GIT_CHANGED = "\u0000git changed";
/** Subcommands that change no ref, index entry or stash (a later rewrite's source is as git reads it now). */
const READS_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "rev-parse",
  "rev-list",
  "ls-files",
  "ls-tree",
  "cat-file",
  "config",
  "describe",
  "blame",
  "grep",
  "shortlog",
  "help",
  "version",
]);
/** Environment that points git at another repository, index or work tree than the lookup reads. */
const RELOCATES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"];

/**
 * The work-tree files the command rewrites from a revision, a stash or the index (rewrites.ts), as git
 * answers before the line runs; undecided when an earlier git command of the line may have changed them.
 */
function judgeRewrites(inv: GitInvocation, sub: string, args: string[], state: ParseState): void {
  const plan = rewriteSpec(inv, args);
  const changedBefore = state.lineConfig.get(GIT_CHANGED);
  const verb = sub === "stash" ? (inv.operands[0] ?? "push") : "";
  if (!READS_ONLY.has(sub) && !["list", "show"].includes(verb))
    state.lineConfig.set(
      GIT_CHANGED,
      sub === "stash" && ["push", "save"].includes(verb) ? "stash push" : sub,
    );
  if (plan === undefined || !state.around.rewrites) return;
  const relocated = RELOCATES.find((k) => state.env[k] !== undefined);
  if ("undecided" in plan) inv.rewrites = plan;
  // `git stash && git stash pop`: the stash the line just made of the work tree gives it back unchanged.
  else if (changedBefore === "stash push" && plan.source.kind === "stash" && plan.source.rev === "stash@{0}")
    inv.rewrites = { files: [] };
  else if (relocated) inv.rewrites = { undecided: `${relocated} points git elsewhere than the lookup reads` };
  else if (inv.dynamicOption) inv.rewrites = { undecided: "its options are only known when the line runs" };
  else if (changedBefore !== undefined)
    inv.rewrites = {
      undecided: `the git ${changedBefore} before it in the line changes what git ${sub} rewrites the files from`,
    };
  else inv.rewrites = state.around.rewrites(plan, inv.cwd);
}

/** What some subcommands do beyond their options: config writes, commands they run, commits they integrate. */
export function afterOptions(inv: GitInvocation, sub: string, args: string[], state: ParseState): void {
  judgeRewrites(inv, sub, args, state);
  const has = (...names: string[]) => names.some((n) => inv.flags.includes(n));
  if (sub === "config") {
    const ops = inv.operands;
    const verbs = ["set", "unset", "rename-section", "remove-section", "edit", "get", "list"];
    let key: string | undefined;
    let value: string | undefined;
    let writes = false;
    if (ops[0] && verbs.includes(ops[0])) {
      const verb = ops[0];
      writes = !["get", "list"].includes(verb);
      if (verb === "edit") inv.configSet.push("*");
      else if (verb.endsWith("section")) inv.configSet.push(...ops.slice(1).map((s) => `${configKey(s)}.*`));
      else [key, value] = [ops[1], ops[2]];
    } else if (has("--edit", "-e")) {
      inv.configSet.push("*");
    } else if (has("--rename-section", "--remove-section")) {
      inv.configSet.push(...ops.map((s) => `${configKey(s)}.*`));
    } else if (has("--unset", "--unset-all", "--replace-all", "--add")) {
      writes = true;
      [key, value] = [ops[0], ops[1]];
    } else if (
      !has(
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
        "--get-color",
        "--get-colorbool",
      ) &&
      ops.length >= 2
    ) {
      writes = true;
      [key, value] = [ops[0], ops[1]];
    }
    if (writes && key) {
      inv.configSet.push(configKey(key));
      if (value !== undefined) state.lineConfig.set(configKey(key), value);
    }
  } else if (sub === "push") {
    inv.pushBranches = pushBranches(inv, state);
    if (!has("--dry-run", "-n")) judgeLocalTransfer(inv, sub, state);
  } else if (sub === "clone") {
    recordClone(inv, state);
  } else if (sub === "tag") {
    // A tag is not history (it can name any commit), but `git tag t stash@{0}^2 && git merge t` would hide one.
    if (!has("-d", "--delete", "-l", "--list", "-v", "--verify") && inv.operands.length >= 2)
      judgeRevs(inv, inv.operands.slice(1), state);
  } else if (sub === "fetch" || sub === "pull") {
    if (!has("--dry-run")) judgeLocalTransfer(inv, sub, state);
  } else if (sub === "rebase") {
    for (const v of inv.values["--exec"] ?? []) inv.shell.push(v);
    if (!has("--abort", "--continue", "--skip", "--quit", "--edit-todo", "--show-current-patch"))
      judgeRevs(inv, [...inv.operands, ...(inv.values["--onto"] ?? [])], state);
  } else if (sub === "merge") {
    if (!has("--abort", "--continue", "--quit")) judgeRevs(inv, inv.operands, state);
  } else if (sub === "cherry-pick" || sub === "revert") {
    // git runs no pre-commit for either; a commit of history was judged when it was made.
    if (!has("--abort", "--continue", "--skip", "--quit", "--no-commit", "-n"))
      judgeRevs(inv, inv.operands, state);
  } else if (sub === "reset") {
    // `reset [mode] [commit]` moves the branch; `reset [tree] -- paths` only changes the index, which the next
    // commit's hook judges.
    if (!args.includes("--") && inv.operands.length === 1) judgeRevs(inv, inv.operands, state);
  } else if (sub === "branch") {
    const other =
      has("-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "--list", "-l") ||
      has("--show-current", "-a", "--all", "-r", "--remotes", "--edit-description", "--unset-upstream");
    if (!other && !has("--set-upstream-to", "-u") && inv.operands.length >= 2)
      judgeRevs(inv, inv.operands.slice(1), state);
  } else if (sub === "checkout" || sub === "switch") {
    // A new branch at a start point, or HEAD detached at a commit (which `checkout -B main` then names); a
    // path (`git checkout file`) names no commit and is left alone.
    if (!args.includes("--") && inv.operands.length >= 1) judgeRevs(inv, inv.operands.slice(0, 1), state);
  } else if (sub === "worktree") {
    // A new branch (or a detached HEAD) at the commit it checks out, as `branch NEW START` / `checkout`.
    const add = readWorktreeAdd(args);
    if (add?.rev !== undefined) judgeRevs(inv, [add.rev], state);
  } else if (sub === "symbolic-ref") {
    // `symbolic-ref HEAD refs/x` puts HEAD (and the next commit's parent) on whatever refs/x holds.
    if (!has("-d", "--delete") && inv.operands.length === 2) judgeRevs(inv, inv.operands.slice(1), state);
  } else if (sub === "bisect" && inv.operands[0] === "run") {
    const at = args.indexOf("run");
    if (at !== -1 && args.length > at + 1) inv.runs.push(args.slice(at + 1));
  } else if (sub === "submodule" && inv.operands[0] === "foreach") {
    const at = args.indexOf("foreach");
    const rest = args.slice(at + 1).filter((a) => a !== "--recursive" && a !== "-q" && a !== "--quiet");
    if (rest.length) inv.shell.push(rest.join(" "));
  } else if (sub === "difftool" || sub === "mergetool") {
    for (const v of [...(inv.values["--extcmd"] ?? []), ...(inv.values["-x"] ?? [])]) inv.shell.push(v);
  }
}
