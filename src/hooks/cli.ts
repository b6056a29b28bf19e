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

const PROJECT: Flag = {
  flag: "--project",
  value: "DIR",
  help: "the project (default: the working directory)",
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
    flags: [PROJECT, COMMAND],
    call: "hook install pre-commit [--project DIR] [--command CMD]",
    what: "add the git pre-commit hook (.git/hooks/pre-commit, husky's .husky/pre-commit), or print the pre-commit framework's config when the repository uses it",
  },
  "hook claude-code": {
    flags: [],
    call: "hook claude-code",
    what: "the Claude Code hook (a PreToolUse payload on stdin)",
  },
  "hook pre-commit": {
    flags: [{ flag: "--files", type: "boolean", help: "pre-commit: the FILEs as they are in the work tree" }],
    positionals: true,
    call: "hook pre-commit [--files FILE...]",
    what: "the git hook: the staged changes, or with --files the FILEs as they are in the work tree (as the pre-commit framework passes them)",
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
  const args =
    name === "hook pre-commit" && rest[0] === "--files" ? ["--files", "--", ...rest.slice(1)] : rest;
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
    if (name === "hook pre-commit")
      return exitWith(
        await (
          await import("./pre-commit.js")
        ).runPreCommitHook(process.env, values.files === true ? ["--files", ...positionals] : []),
      );
    const install = await import("./install.js");
    const dir = install.existingProject(path.resolve(text(values, "project") ?? process.cwd()));
    const given = text(values, "command");
    if (name === "hook install pre-commit") {
      process.stdout.write(install.installPreCommit(dir, given) + "\n");
      return 0;
    }
    process.stdout.write(installClaude(install, dir, given, values.local === true) + "\n");
    return 0;
  } catch (err) {
    process.stderr.write(`mcp-code-quality: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
}
