/**
 * A simple command → the CEL context command policies see: program, options (short clusters expanded),
 * operands, the git subcommand with git's global options (`-c key=value`, `-C dir`) taken apart, and the
 * environment the command runs with. Pure.
 */
import path from "node:path";
import type { CelContext } from "./cel.js";
import type { SimpleCommand } from "./shell.js";

export interface CommandSite {
  cwd: string;
  projectRoot: string;
  home: string;
  parseError: boolean;
}

/** Options that take the next argument, per program (and git subcommand), so their values are not operands. */
const VALUE_OPTIONS: Record<string, string[]> = {
  "git commit": [
    "-m",
    "-F",
    "-c",
    "-C",
    "-t",
    "--message",
    "--file",
    "--author",
    "--date",
    "--template",
    "--cleanup",
    "--fixup",
    "--squash",
    "--trailer",
    "--reuse-message",
    "--reedit-message",
  ],
  "git push": ["-o", "--push-option", "--receive-pack", "--exec", "--repo"],
  "git merge": ["-m", "-F", "-s", "-X", "--strategy", "--strategy-option"],
  "git config": ["--file", "-f", "--blob", "--type", "--default"],
  "git clean": ["-e", "--exclude"],
  "git reset": [],
  chmod: ["--reference"],
  rm: [],
  curl: [
    "-o",
    "-O",
    "-H",
    "-d",
    "-X",
    "-u",
    "-A",
    "-e",
    "--output",
    "--header",
    "--data",
    "--request",
    "--user",
  ],
};
/** Short options whose value may be attached (`-mmessage`), which end a cluster. */
const ATTACHED_VALUE_SHORTS: Record<string, string> = { "git commit": "mFcCt", "git merge": "mFsX" };
/** git's global options that take a value. */
const GIT_GLOBAL_VALUE = [
  "-c",
  "-C",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
  "--super-prefix",
  "--exec-path",
];

interface SplitArgs {
  flags: string[];
  operands: string[];
}

function splitOptions(args: string[], key: string): SplitArgs {
  const valueOptions = VALUE_OPTIONS[key] ?? [];
  const attached = ATTACHED_VALUE_SHORTS[key] ?? "";
  const out: SplitArgs = { flags: [], operands: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq === -1 ? a : a.slice(0, eq);
      out.flags.push(name);
      if (eq === -1 && valueOptions.includes(name)) i++;
    } else if (a.startsWith("-") && a.length > 1 && !/^-\d+$/.test(a)) {
      for (let j = 1; j < a.length; j++) {
        const letter = a[j] as string;
        out.flags.push(`-${letter}`);
        if (attached.includes(letter) || valueOptions.includes(`-${letter}`)) {
          // The rest of the cluster is this option's value; with nothing left, the next argument is.
          if (j === a.length - 1 && valueOptions.includes(`-${letter}`)) i++;
          break;
        }
      }
    } else out.operands.push(a);
  }
  return out;
}

/** The CEL context of one simple command. */
export function commandContext(command: SimpleCommand, site: CommandSite): CelContext {
  const program = command.argv[0] ? path.basename(command.argv[0]) : "";
  const args = command.argv.slice(1);
  const gitConfig: Record<string, string> = {};
  // GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n set configuration like `git -c` does.
  for (const [name, value] of Object.entries(command.env)) {
    const m = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    if (m) gitConfig[value.toLowerCase()] = command.env[`GIT_CONFIG_VALUE_${m[1]}`] ?? "";
  }
  let subcommand: string;
  let split: SplitArgs;
  if (program === "git") {
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i] as string;
      if (!a.startsWith("-")) break;
      const eq = a.indexOf("=");
      const name = a.startsWith("--") && eq !== -1 ? a.slice(0, eq) : a;
      const value =
        name !== a ? a.slice(eq + 1) : GIT_GLOBAL_VALUE.includes(a) ? (args[++i] ?? "") : undefined;
      if (name === "-c" && value !== undefined) {
        const kv = value.indexOf("=");
        gitConfig[(kv === -1 ? value : value.slice(0, kv)).toLowerCase()] =
          kv === -1 ? "true" : value.slice(kv + 1);
      } else if (name === "--config-env" && value !== undefined) {
        const kv = value.indexOf("=");
        gitConfig[(kv === -1 ? value : value.slice(0, kv)).toLowerCase()] = `$${value.slice(kv + 1)}`;
      }
    }
    subcommand = args[i] ?? "";
    split = splitOptions(args.slice(i + 1), `git ${subcommand}`);
  } else {
    split = splitOptions(args, program);
    subcommand = split.operands[0] ?? "";
  }
  return {
    program,
    args,
    subcommand,
    flags: split.flags,
    operands: split.operands,
    env: command.env,
    git_config: gitConfig,
    stdin_from: command.stdinFrom,
    via: command.via,
    text: command.text,
    cwd: site.cwd,
    project_root: site.projectRoot,
    home: site.home,
    parse_error: site.parseError,
  };
}
