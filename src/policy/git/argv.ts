/**
 * git's argv as git itself reads it (git.c's global options, then the subcommand's parse-options table in
 * options.json, generated from the installed git by scripts/git-options.mjs): `-C dir`, `-c key=value`,
 * `--config-env`, GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT; aliases from any of those, from earlier
 * `git config` commands of the line, or from the repository's configuration (builtins win over aliases, as
 * in git); unique prefixes of long options (`--no-verif`), bundled short options (`-anm msg`), `--no-X`
 * negations, and the last of `--no-verify` / `--verify` winning. Pure but for the config lookup it is given.
 * Here: git.c's global options, aliases and what config makes git run; the subcommand's options are read in
 * subcommand-options.ts, the run's configuration in run-config.ts, git's text formats in config-formats.ts.
 */
import path from "node:path";
import { configKey, splitAlias } from "./config-formats.js";
import type { GitInvocation, GitSurroundings, ConfigLookup, ParseState } from "./invocation.js";
import options from "./options.json" with { type: "json" };
import { readConfigFiles, readEnvConfig, setConfig } from "./run-config.js";
import { readSubcommand } from "./subcommand-options.js";

const BUILTINS = new Set(options.builtins);
/** Commands git runs without a table entry of their own (scripts, helpers). */
const KNOWN_COMMANDS = new Set([
  ...BUILTINS,
  "gui",
  "gitk",
  "citool",
  "instaweb",
  "p4",
  "svn",
  "send-email",
  "filter-branch",
  "request-pull",
  "subtree",
  "lfs",
  "mergetool",
  "web--browse",
  "submodule",
  "stash",
  "bisect",
  "difftool",
  "quiltimport",
  "archimport",
  "cvsimport",
  "cvsserver",
  "cvsexportcommit",
]);

/** Single-quotes a word for a shell. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const GLOBAL_WITH_VALUE = new Set([
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--attr-source",
  "--list-cmds",
]);
const GLOBAL_FLAGS = new Set([
  "-p",
  "--paginate",
  "-P",
  "--no-pager",
  "--bare",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--no-lazy-fetch",
  "--no-advice",
  "--html-path",
  "--man-path",
  "--info-path",
  "--exec-path",
  "-v",
  "--version",
  "-h",
  "--help",
]);
/** Configuration whose value git runs as a shell command. */
const SHELL_CONFIG =
  /^(core\.(editor|pager|sshcommand|fsmonitor)|sequence\.editor|pager\..+|diff\.external|diff\..+\.textconv|filter\..+\.(clean|smudge|process)|credential\.helper|gpg\.program|gpg\..+\.program)$/;
const SHELL_ENV = [
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_PAGER",
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_EXTERNAL_DIFF",
  "GIT_ASKPASS",
];
const MAX_ALIASES = 10;

/** git's argv (argv[0] is git) with which fields are dynamic, its environment and working directory. */
export function readGit(
  argv: string[],
  dynamic: boolean[],
  env: Record<string, string>,
  cwd: string | undefined,
  lineConfig: Map<string, string>,
  lookup: ConfigLookup,
  around: GitSurroundings = {},
): GitInvocation {
  const inv: GitInvocation = {
    subcommand: "",
    flags: [],
    values: {},
    operands: [],
    config: {},
    configSet: [],
    cwd,
    dynamicOption: false,
    aliases: [],
    shell: [],
    runs: [],
    unjudged: [],
    undecided: "",
  };
  const state: ParseState = { env, lookup, lineConfig, around };
  readEnvConfig(inv, env);
  let args = argv.slice(1);
  let dyn = dynamic.slice(1);
  for (let round = 0; ; round++) {
    const i = readGlobals(inv, args, dyn);
    const sub = args[i];
    // No subcommand, or an option git does not know (it stops with "unknown option"): nothing runs.
    if (sub === undefined || (sub.startsWith("-") && !dyn[i])) return finish(inv, state);
    if (dyn[i]) {
      inv.dynamicOption = true;
      inv.undecided = `git's subcommand is only known when the line runs (${sub})`;
      return finish(inv, state);
    }
    const rest = args.slice(i + 1);
    const restDyn = dyn.slice(i + 1);
    if (KNOWN_COMMANDS.has(sub)) {
      inv.subcommand = sub;
      readSubcommand(inv, sub, rest, restDyn, state);
      return finish(inv, state);
    }
    if (round >= MAX_ALIASES || inv.aliases.includes(sub)) {
      inv.undecided = `git alias ${sub} expands more than ${MAX_ALIASES} times or into itself`;
      return finish(inv, state);
    }
    const alias = aliasValue(inv, sub, state);
    if (alias === undefined) {
      inv.subcommand = sub;
      inv.undecided = `git ${sub} is not a builtin, and the repository's aliases could not be read to tell what it runs`;
      readSubcommand(inv, sub, rest, restDyn, state);
      return finish(inv, state);
    }
    if (alias === null) {
      // No alias: git runs the external `git-<sub>` from PATH; its options are its own.
      inv.subcommand = sub;
      readSubcommand(inv, sub, rest, restDyn, state);
      return finish(inv, state);
    }
    inv.aliases.push(sub);
    if (alias.startsWith("!")) {
      inv.shell.push([alias.slice(1), ...rest.map(shellQuote)].join(" "));
      inv.subcommand = sub;
      return finish(inv, state);
    }
    const words = splitAlias(alias);
    args = [...words, ...rest];
    dyn = [...words.map(() => false), ...restDyn];
  }
}

/** Subcommands that run the commit hooks (pre-commit, pre-merge-commit, commit-msg) or pre-push, by hook. */
const HOOKS_RUN: Readonly<Record<string, readonly string[]>> = {
  commit: ["pre-commit", "commit-msg"],
  merge: ["pre-merge-commit", "commit-msg"],
  am: ["pre-applypatch", "applypatch-msg"],
  "cherry-pick": ["commit-msg"],
  revert: ["commit-msg"],
  rebase: ["pre-rebase"],
  push: ["pre-push"],
  pull: ["pre-merge-commit", "commit-msg"],
};

function finish(inv: GitInvocation, state: ParseState): GitInvocation {
  const env = state.env;
  readConfigFiles(inv, env, inv.cwd, state);
  // A repository whose own configuration already points its hooks at nothing (set by hand, or by a bypass
  // that got through): /dev/null, a missing or empty folder, or one without the hook .git/hooks holds. A
  // plain `git commit` there runs no hook at all.
  const hooks = Object.hasOwn(HOOKS_RUN, inv.subcommand) ? HOOKS_RUN[inv.subcommand] : undefined;
  if (hooks && !("core.hookspath" in inv.config)) {
    const onDisk = state.lookup("core.hookspath", inv.cwd, env);
    if (
      typeof onDisk === "string" &&
      (onDisk === "/dev/null" || state.around.hooksOff?.(onDisk, hooks, inv.cwd) !== undefined)
    )
      inv.config["core.hookspath"] = onDisk;
  }
  for (const [key, value] of Object.entries(inv.config))
    if (SHELL_CONFIG.test(key) && value) inv.shell.push(value.replace(/^!/, ""));
  for (const name of SHELL_ENV) if (env[name]) inv.shell.push(env[name] as string);
  if (Object.keys(inv.config).some((k) => k === "include.path" || /^includeif\..+\.path$/.test(k)))
    inv.undecided ||=
      "git -c include.path reads configuration from another file, which is not read before it runs";
  return inv;
}

/** git.c's options before the subcommand; returns the subcommand's index. */
function readGlobals(inv: GitInvocation, args: string[], dyn: boolean[]): number {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (dyn[i]) {
      inv.dynamicOption = true;
      return i;
    }
    if (!a.startsWith("-")) return i;
    if (a === "-C") {
      const dir = args[++i];
      if (dir === undefined) return i;
      inv.cwd = dyn[i]
        ? undefined
        : inv.cwd === undefined && !path.isAbsolute(dir)
          ? undefined
          : path.resolve(inv.cwd ?? "/", dir);
    } else if (a === "-c") {
      const pair = args[++i];
      if (pair !== undefined) setConfig(inv, pair);
    } else if (a.startsWith("--config-env")) {
      const value = a.includes("=") ? a.slice(a.indexOf("=") + 1) : args[++i];
      if (value) {
        const eq = value.indexOf("=");
        const key = eq === -1 ? value : value.slice(0, eq);
        const variable = value.slice(eq + 1);
        inv.config[configKey(key)] = inv.config[configKey(key)] ?? `$${variable}`;
      }
    } else if (a.includes("=") && GLOBAL_WITH_VALUE.has(a.slice(0, a.indexOf("=")))) continue;
    else if (GLOBAL_WITH_VALUE.has(a)) i++;
    else if (GLOBAL_FLAGS.has(a) || a.startsWith("--exec-path=")) continue;
    else return i; // git stops at an unknown option ("unknown option"): nothing runs
  }
  return i;
}

/** An alias's value: command line, then the line's earlier `git config`, then the repository; null: none. */
function aliasValue(inv: GitInvocation, sub: string, state: ParseState): string | null | undefined {
  const key = configKey(`alias.${sub}`);
  if (key in inv.config) return inv.config[key] as string;
  if (state.lineConfig.has(key)) return state.lineConfig.get(key) as string;
  return state.lookup(key, inv.cwd, state.env);
}
