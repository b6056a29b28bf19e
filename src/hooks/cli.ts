/** The `policy` and `hook` subcommands of the command line. */
import fs from "node:fs";
import v8 from "node:v8";
import path from "node:path";
import {
  asksHelp,
  FlagError,
  HELP_FLAG,
  parseCommandLine,
  unknownCommand,
  UsageError,
  type Flag,
  type Parsed,
} from "../cli/args.js";
import { renderHelp } from "../cli/help.js";
import { compileBundle, PROJECT_POLICY_FILE, serializeBundle } from "../policy/compile.js";
import { hookDaemonChoice } from "../check/daemon/flags.js";
import { codePath } from "../package-root.js";

const PROJECT: Flag = {
  flag: "--project",
  value: "DIR",
  help: "the project (default: the working directory)",
};
const DAEMON: Flag = {
  flag: "--daemon",
  type: "boolean",
  help: "pre-commit: judge each commit in the warm check daemon (docs/policy.md)",
};
const COMMAND: Flag = {
  flag: "--command",
  value: "CMD",
  help: "the command line the hook runs (default: this program)",
};

/** `policy` and `hook`'s commands, each with its flags: parsed and listed in --help from here. */
const COMMANDS = {
  "policy compile": {
    flags: [
      { flag: "--source", value: "DIR", help: "the policy source folder (default: the bundled policy/)" },
      PROJECT,
      { flag: "--out", value: "FILE", help: "where to write it (default .mcp-cache/policy/bundle.json)" },
      {
        flag: "--policy-allow-loosening",
        type: "boolean",
        help: "let the project's policy file loosen the bundle",
      },
    ],
    call: "policy compile [options]",
    what: "validate the policy bundle (and the project's .mcp-code-quality/policy.yaml), verify every example, write it compiled",
  },
  "hook install claude-code": {
    flags: [
      PROJECT,
      {
        flag: "--local",
        type: "boolean",
        help: "claude-code: this machine's line in .claude/settings.local.json",
      },
      COMMAND,
    ],
    call: "hook install claude-code [--project DIR] [--local] [--command CMD]",
    what: "add the PreToolUse hook to .claude/settings.json (--local: .claude/settings.local.json)",
  },
  "hook install pre-commit": {
    flags: [PROJECT, COMMAND, DAEMON],
    call: "hook install pre-commit [--project DIR] [--command CMD] [--daemon]",
    what: "add the git pre-commit hook (.git/hooks/pre-commit, husky's .husky/pre-commit), or print the pre-commit framework's config when the repository uses it; --daemon: a hook that asks the warm check daemon to judge each commit (docs/policy.md)",
  },
  "hook claude-code": {
    flags: [],
    call: "hook claude-code",
    what: "the Claude Code hook (a PreToolUse payload on stdin)",
  },
  "hook pre-commit": {
    flags: [
      { flag: "--files", type: "boolean", help: "pre-commit: the FILEs as they are in the work tree" },
      // Before --files, read by hookDaemonChoice (src/check/daemon/flags.ts): the last one wins.
      DAEMON,
      {
        flag: "--no-daemon",
        type: "boolean",
        help: "pre-commit: judge the commit in this process (the default)",
      },
    ],
    positionals: true,
    call: "hook pre-commit [--daemon] [--files FILE...]",
    what: "the git hook: the staged changes, or with --files the FILEs as they are in the work tree (as the pre-commit framework passes them); --daemon first (or MCP_CODE_QUALITY_CHECK_DAEMON=1): in the check daemon, in this process when it cannot serve",
  },
} satisfies Record<string, { flags: Flag[]; positionals?: boolean; call: string; what: string }>;

type CommandName = keyof typeof COMMANDS;

function usage(): string {
  const all = Object.values(COMMANDS);
  return renderHelp({
    usage: ["mcp-code-quality hook|policy COMMAND [options]"],
    commands: all.map((c) => [`mcp-code-quality ${c.call}`, c.what] as const),
    groups: [
      {
        title: "Options",
        flags: [...new Map(all.flatMap((c) => c.flags).map((f) => [f.flag, f])).values(), HELP_FLAG],
      },
    ],
    footer: ["Docs: docs/policy.md in the package."],
  });
}

/** The command the words name (`hook install pre-commit`), and the arguments after them. */
function commandOf(argv: readonly string[]): { name: CommandName; rest: string[] } | undefined {
  for (const words of [3, 2]) {
    const name = argv.slice(0, words).join(" ");
    if (name in COMMANDS) return { name: name as CommandName, rest: argv.slice(words) };
  }
  return undefined;
}

/**
 * Parses the command's arguments. The pre-commit framework passes file names after `--files`: they are
 * files whatever they look like, so they are read as positionals.
 */
function parse(name: CommandName, rest: string[]): Parsed {
  const c: { flags: Flag[]; positionals?: boolean } = COMMANDS[name];
  const files = name === "hook pre-commit" ? rest.indexOf("--files") : -1;
  const args = files === -1 ? rest : [...rest.slice(0, files + 1), "--", ...rest.slice(files + 1)];
  const parsed = parseCommandLine(
    { name: `mcp-code-quality ${name}`, flags: [...c.flags, HELP_FLAG], positionals: c.positionals },
    args,
  );
  if (name === "hook pre-commit" && parsed.positionals.length && parsed.values.files !== true)
    throw new UsageError(
      `${JSON.stringify(parsed.positionals[0])}: unexpected argument; give --files FILE... or nothing (the staged changes)`,
    );
  return parsed;
}

const text = (values: Parsed["values"], name: string) =>
  typeof values[name] === "string" ? (values[name] as string) : undefined;

/** Flushes stdout and stderr, then exits with `code`. */
async function exitWith(code: number): Promise<never> {
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write("", () => resolve()));
  process.exit(code);
}

/**
 * `hook install claude-code`: the shared settings get the line that works on every teammate's machine; with
 * --local (or --command) the personal settings get this machine's. The line is run once before it is
 * written: one that cannot answer here would block every call.
 */
function installClaude(
  install: typeof import("./install.js"),
  dir: string,
  given: string | undefined,
  local: boolean,
): string {
  const file = install.claudeSettingsFile(dir, local);
  const { command, note } =
    given !== undefined
      ? { command: given, note: "" }
      : local
        ? install.defaultClaudeCommand()
        : {
            command: install.portableClaudeCommand(),
            note: "the line runs the project's devDependency (node_modules/mcp-code-quality) or mcp-code-quality on PATH on each machine, and blocks with what to install where neither is",
          };
  const problem = install.claudeLineProblem(install.claudeCommandLine(command), dir);
  if (problem)
    throw new Error(
      given !== undefined || local
        ? `the hook line does not answer in ${dir} (${problem}); nothing was installed`
        : `the shared hook line does not answer in ${dir}: neither ${path.join(dir, "node_modules", "mcp-code-quality")} nor mcp-code-quality on PATH (${problem}). Add it to the project (npm install --save-dev mcp-code-quality) or install it globally (npm install -g mcp-code-quality), or write this machine's own line with --local; nothing was installed`,
    );
  return install.installClaudeCode(dir, command, file) + (note ? `\n${note}` : "");
}

export async function runSubcommand(argv: string[]): Promise<number> {
  const command = commandOf(argv);
  if (!command) {
    // `hook`, `policy`, `hook install` alone or with --help: the help; any other word is not a command.
    const words = argv.filter((a) => a !== "--help" && a !== "-h");
    const parent = words[0] === "hook" && words[1] === "install" ? "hook install" : (words[0] ?? "hook");
    const unknown = words[parent.split(" ").length];
    if (unknown === undefined) {
      const asked = asksHelp(argv);
      (asked ? process.stdout : process.stderr).write(usage() + "\n");
      return asked ? 0 : 2;
    }
    const error = unknown.startsWith("-")
      ? new FlagError(unknown, `unknown flag (see mcp-code-quality ${parent} --help)`)
      : unknownCommand(unknown, `mcp-code-quality ${parent}`);
    process.stderr.write(`mcp-code-quality ${parent}: ${error.message}\n`);
    return 2;
  }
  const { name, rest } = command;
  let values: Parsed["values"];
  let positionals: string[];
  try {
    ({ values, positionals } = parse(name, rest));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`mcp-code-quality ${name}: ${err.message}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(usage() + "\n");
    return 0;
  }
  try {
    if (name === "policy compile") {
      const project = path.resolve(text(values, "project") ?? process.cwd());
      const source = text(values, "source");
      const bundle = await compileBundle({
        sourceDir: source ? path.resolve(source) : undefined,
        projectFile: path.join(project, PROJECT_POLICY_FILE),
        allowLoosening: values["policy-allow-loosening"] === true,
        verifyExamples: true,
      });
      const out = path.resolve(
        text(values, "out") ?? path.join(project, ".mcp-cache", "policy", "bundle.json"),
      );
      fs.mkdirSync(path.dirname(out), { recursive: true });
      const tmp = `${out}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, serializeBundle(bundle), { flag: "wx" });
      fs.renameSync(tmp, out);
      process.stdout.write(
        `compiled policy bundle ${bundle.hash}: ${bundle.data.policies.length} policies, ${bundle.data.skills.length} skills → ${out}\n`,
      );
      return 0;
    }
    // A hook process ends as soon as it has answered: nothing it loaded may keep it waiting. V8 finishes
    // optimising the shell parser's WebAssembly before it exits (seconds on a busy machine); a one-shot
    // parse needs no optimising, so the hooks keep to the baseline compiler.
    if (name.startsWith("hook ")) v8.setFlagsFromString("--liftoff-only");
    if (name === "hook claude-code")
      return exitWith(await (await import("./claude-code.js")).runClaudeCodeHook());
    if (name === "hook pre-commit") {
      const hookArgs = values.files === true ? ["--files", ...positionals] : [];
      const served = hookDaemonChoice(rest, process.env).daemon
        ? await (
            await import("../check/daemon/client.js")
          ).preCommitThroughDaemon(hookArgs, codePath("cli.js"))
        : undefined;
      if (served !== undefined) return exitWith(served);
      return exitWith(await (await import("./pre-commit.js")).runPreCommitHook(process.env, hookArgs));
    }
    const install = await import("./install.js");
    const dir = install.existingProject(path.resolve(text(values, "project") ?? process.cwd()));
    const given = text(values, "command");
    if (name === "hook install pre-commit") {
      process.stdout.write(install.installPreCommit(dir, given, values.daemon === true) + "\n");
      return 0;
    }
    process.stdout.write(installClaude(install, dir, given, values.local === true) + "\n");
    return 0;
  } catch (err) {
    process.stderr.write(`mcp-code-quality: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
}
