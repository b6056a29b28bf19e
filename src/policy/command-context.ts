/**
 * A simple command → the CEL context command policies see: program, options (short clusters expanded),
 * operands, git's own reading of a git command (git/argv.ts: subcommand after aliases, canonical options,
 * configuration in effect and written), the environment it runs with, what it runs as code, the files it
 * writes, and why it cannot be decided when it cannot. Pure.
 */
import path from "node:path";
import type { CelContext } from "./cel.js";
import type { SimpleCommand } from "./shell.js";
import { destroyed, unpinned, type Critical } from "./shell/deletions.js";

export interface CommandSite {
  cwd: string;
  projectRoot: string;
  home: string;
  parseError: boolean;
  /** Why the line as a whole cannot be decided (budget, nesting). */
  undecided?: string[];
}

/** Options that take the next argument, per program, so their values are not operands (git has its own table). */
const VALUE_OPTIONS: Record<string, string[]> = {
  chmod: ["--reference"],
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
  wget: ["-O", "--output-document", "-P", "--directory-prefix", "-U", "--user-agent"],
  dd: [],
};

interface SplitArgs {
  flags: string[];
  operands: string[];
}

function splitOptions(args: string[], key: string): SplitArgs {
  const valueOptions = VALUE_OPTIONS[key] ?? [];
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
        if (valueOptions.includes(`-${letter}`)) {
          // The rest of the cluster is this option's value; with nothing left, the next argument is.
          if (j === a.length - 1 && valueOptions.includes(`-${letter}`)) i++;
          break;
        }
      }
    } else out.operands.push(a);
  }
  return out;
}

/** What the checks know of where a command runs. */
export interface CommandContextExtras {
  /** The files it writes, as the edit policies name them (relative to the project, absolute outside). */
  writes: string[];
}

/** The CEL context of one simple command. */
export function commandContext(
  command: SimpleCommand,
  site: CommandSite,
  extras: CommandContextExtras = { writes: [] },
): CelContext {
  const program = command.argv[0] ? path.basename(command.argv[0]) : "";
  const args = command.argv.slice(1);
  let subcommand: string;
  let flags: string[];
  let operands: string[];
  let gitConfig: Record<string, string> = {};
  let gitConfigSet: string[] = [];
  if (program === "git" && command.git) {
    subcommand = command.git.subcommand;
    flags = command.git.flags;
    operands = command.git.operands;
    gitConfig = command.git.config;
    gitConfigSet = command.git.configSet;
  } else {
    const split = splitOptions(args, program);
    subcommand = split.operands[0] ?? "";
    flags = split.flags;
    operands = split.operands;
  }
  const places: Critical = { root: "/", home: site.home, project: site.projectRoot, cwd: site.cwd };
  const deletes = command.deletes ?? [];
  const destroys = [...new Set(deletes.flatMap((d) => destroyed(d, places)))];
  const unknown = deletes.map((d) => unpinned(d, places, command.cwd)).find(Boolean);
  const undecided = [command.undecided, unknown, ...(site.undecided ?? [])].filter(Boolean).join("; ");
  return {
    program,
    args,
    subcommand,
    flags,
    operands,
    env: command.env,
    git_config: gitConfig,
    git_config_set: gitConfigSet,
    stdin_from: command.stdinFrom,
    code_from: command.codeFrom.filter(Boolean),
    via: command.via,
    from_script: command.script ?? "",
    writes: extras.writes,
    deletes: deletes.filter((d) => !d.dynamic).map((d) => d.path),
    destroys,
    uploads: command.uploads ?? [],
    push_branches: command.git?.pushBranches ?? [],
    unjudged_commits: program === "git" ? (command.git?.unjudged ?? []) : [],
    text: command.text,
    cwd: command.cwd ?? site.cwd,
    project_root: site.projectRoot,
    home: site.home,
    parse_error: site.parseError,
    dynamic_options:
      command.git?.dynamicOption ??
      command.dynamic.slice(1).some((d, i) => d && /^$|^[-$`]/.test(args[i] as string)),
    undecided,
  };
}
