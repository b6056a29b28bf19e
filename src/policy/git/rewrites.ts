/**
 * Which git commands rewrite work-tree files the line does not name, and from what: `stash pop|apply`,
 * `reset --hard|--keep|--merge [rev]`, `checkout [rev] -- paths`, `restore [--source=rev] paths`,
 * `read-tree -u`, `checkout-index`, `worktree add` (the new work tree's files). Pure: the files themselves are asked of git (rev-files.ts).
 */
import type { GitInvocation, RewriteSpec } from "./invocation.js";

export type { RewriteSource, RewriteSpec } from "./invocation.js";

/** `git worktree add [-f] [--detach] [--lock [--reason R]] [-b|-B NEW | --orphan] PATH [COMMIT-ISH]`. */
export interface WorktreeAdd {
  path: string;
  /** The commit it checks out (HEAD when none is given); undefined for `--orphan` or `--no-checkout`. */
  rev?: string;
  checkout: boolean;
}

/** `args` after `worktree`: the `add` it makes, or undefined for another verb. */
export function readWorktreeAdd(args: readonly string[]): WorktreeAdd | undefined {
  if (args[0] !== "add") return undefined;
  const ops: string[] = [];
  let checkout = true;
  let orphan = false;
  for (let i = 1; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      ops.push(...args.slice(i + 1));
      break;
    }
    if (a === "-b" || a === "-B" || a === "--reason") i++;
    else if (a === "--no-checkout") checkout = false;
    else if (a === "--checkout") checkout = true;
    else if (a === "--orphan") orphan = true;
    else if (!a.startsWith("-")) ops.push(a);
  }
  if (ops[0] === undefined) return undefined;
  return { path: ops[0], ...(orphan ? {} : { rev: ops[1] ?? "HEAD" }), checkout: checkout && !orphan };
}

export type RewritePlan = RewriteSpec | { undecided: string } | undefined;

/** A pathspec git expands itself (`*.json` in every folder, `:(glob)`, `:/`): not one path. */
const MAGIC = /[*?[]|^:/;

/** `git stash pop 1` is `stash@{1}`. */
const stashRev = (op: string | undefined) =>
  op === undefined ? "stash@{0}" : /^\d+$/.test(op) ? `stash@{${op}}` : op;

/**
 * The work-tree rewrite a git command makes (undefined: none). `args` is the subcommand's argv after it
 * (where `--` stood decides which operands are paths).
 */
export function rewriteSpec(inv: GitInvocation, args: readonly string[]): RewritePlan {
  const has = (...f: string[]) => f.some((x) => inv.flags.includes(x));
  const ops = inv.operands;
  const dashes = args.indexOf("--");
  const afterDashes = dashes === -1 ? undefined : args.length - dashes - 1;
  const plan = (spec: RewriteSpec): RewritePlan => {
    const magic = spec.paths.find((p) => MAGIC.test(p));
    if (magic !== undefined)
      return { undecided: `the files git ${inv.subcommand} ${magic} writes (git expands the pathspec)` };
    return spec;
  };
  if (inv.values["--pathspec-from-file"])
    return { undecided: `git ${inv.subcommand} reads the paths it writes from a file` };
  switch (inv.subcommand) {
    case "worktree": {
      const add = readWorktreeAdd(args);
      if (!add?.checkout || add.rev === undefined) return undefined;
      return plan({
        source: { kind: "tree", rev: add.rev },
        paths: [],
        deletes: false,
        overwrite: true,
        prefix: { text: `${add.path}/`, from: "cwd" },
      });
    }
    case "stash": {
      const verb = ops[0];
      if (verb !== "pop" && verb !== "apply") return undefined;
      return plan({
        source: { kind: "stash", rev: stashRev(ops[1]) },
        paths: [],
        deletes: false,
        overwrite: true,
      });
    }
    case "reset": {
      if (!has("--hard", "--keep", "--merge") || afterDashes !== undefined) return undefined;
      return plan({
        source: { kind: "tree", rev: ops[0] ?? "HEAD" },
        paths: [],
        deletes: true,
        overwrite: true,
      });
    }
    case "checkout": {
      if (has("-b", "-B", "--orphan")) return undefined;
      // `checkout REV -- paths`, `checkout -- paths`, or `checkout REV path…` (paths without `--`).
      const rev = afterDashes !== undefined ? ops.length > afterDashes : ops.length >= 2;
      const paths =
        afterDashes !== undefined ? ops.slice(ops.length - afterDashes) : ops.length >= 2 ? ops.slice(1) : [];
      if (paths.length === 0) return undefined; // a branch switch, or a path alone (the writes name it)
      return plan({
        source: rev ? { kind: "tree", rev: ops[0] as string } : { kind: "index" },
        ...(rev && afterDashes === undefined ? { revMayBePath: true } : {}),
        paths,
        deletes: has("--no-overlay"),
        overwrite: true,
      });
    }
    case "restore": {
      if (has("--staged", "-S") && !has("--worktree", "-W")) return undefined;
      const source = inv.values["--source"]?.at(-1) ?? inv.values["-s"]?.at(-1);
      if (ops.length === 0) return undefined;
      return plan({
        source: source !== undefined ? { kind: "tree", rev: source } : { kind: "index" },
        paths: ops,
        deletes: !has("--overlay"),
        overwrite: true,
      });
    }
    case "read-tree": {
      if (!has("-u") || has("--dry-run", "-n")) return undefined;
      const prefix = inv.values["--prefix"]?.at(-1);
      if (ops.length === 3) return { undecided: "git read-tree -u merges three trees into the work tree" };
      const rev = ops.at(-1);
      if (rev === undefined) return undefined;
      return plan({
        source: { kind: "tree", rev },
        paths: [],
        deletes: prefix === undefined,
        overwrite: true,
        ...(prefix !== undefined ? { prefix: { text: prefix, from: "top" as const } } : {}),
      });
    }
    case "checkout-index": {
      if (has("--stdin"))
        return { undecided: "git checkout-index --stdin reads the paths it writes from its input" };
      const prefix = inv.values["--prefix"]?.at(-1);
      if ((!has("-a", "--all") && ops.length === 0) || has("--temp")) return undefined;
      return plan({
        source: { kind: "index" },
        paths: has("-a", "--all") ? [] : ops,
        deletes: false,
        overwrite: has("-f", "--force"),
        ...(prefix !== undefined ? { prefix: { text: prefix, from: "cwd" as const } } : {}),
      });
    }
    default:
      return undefined;
  }
}
