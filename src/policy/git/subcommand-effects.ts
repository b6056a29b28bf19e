/**
 * What some git subcommands do beyond their options: `git config` writes (kept for the rest of the line),
 * the remote branches a push updates, and the commands rebase, bisect, submodule and the diff tools run.
 */
import { configKey } from "./config-formats.js";
import type { GitInvocation, ParseState } from "./invocation.js";

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

/** What some subcommands do beyond their options: config writes, commands they run. */
export function afterOptions(inv: GitInvocation, sub: string, args: string[], state: ParseState): void {
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
  } else if (sub === "rebase") {
    for (const v of inv.values["--exec"] ?? []) inv.shell.push(v);
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
