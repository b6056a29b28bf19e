/** The `policy` and `hook` subcommands of the command line. */
import fs from "node:fs";
import v8 from "node:v8";
import path from "node:path";
import { compileBundle, PROJECT_POLICY_FILE, serializeBundle } from "../policy/compile.js";
import { hookDaemonChoice } from "../check/daemon/flags.js";
import { codePath } from "../package-root.js";

const USAGE = [
  "Usage:",
  "  mcp-code-quality policy compile [--source DIR] [--project DIR] [--out FILE] [--policy-allow-loosening]",
  "      validate the policy bundle (and the project's .mcp-code-quality/policy.yaml), verify every example,",
  "      write it compiled (default .mcp-cache/policy/bundle.json)",
  "  mcp-code-quality hook install claude-code [--project DIR] [--local] [--command CMD]",
  "      add the PreToolUse hook to .claude/settings.json (--local: .claude/settings.local.json)",
  "  mcp-code-quality hook install pre-commit [--project DIR] [--command CMD] [--daemon]",
  "      add the git pre-commit hook (.git/hooks/pre-commit, husky's .husky/pre-commit), or print the",
  "      pre-commit framework's config when the repository uses it; --daemon: a hook that asks the warm",
  "      check daemon to judge each commit (docs/policy.md)",
  "  mcp-code-quality hook claude-code           the Claude Code hook (a PreToolUse payload on stdin)",
  "  mcp-code-quality hook pre-commit [--daemon] [--files FILE...]  the git hook: the staged changes, or the FILEs as they are",
  "      in the work tree (as the pre-commit framework passes them); --daemon first (or",
  "      MCP_CODE_QUALITY_CHECK_DAEMON=1): in the check daemon, in this process when it cannot serve",
  "",
  "Docs: docs/policy.md in the package.",
].join("\n");

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

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
  const [group, action, target] = argv;
  const asksHelp =
    action === undefined ||
    action === "--help" ||
    action === "-h" ||
    ((action === "install" || action === "compile") && (argv.includes("--help") || argv.includes("-h")));
  if (asksHelp) {
    (action === undefined ? process.stderr : process.stdout).write(USAGE + "\n");
    return action === undefined ? 2 : 0;
  }
  try {
    if (group === "policy" && action === "compile") {
      const project = path.resolve(option(argv, "--project") ?? process.cwd());
      const bundle = await compileBundle({
        sourceDir: option(argv, "--source") ? path.resolve(option(argv, "--source") as string) : undefined,
        projectFile: path.join(project, PROJECT_POLICY_FILE),
        allowLoosening: argv.includes("--policy-allow-loosening"),
        verifyExamples: true,
      });
      const out = path.resolve(
        option(argv, "--out") ?? path.join(project, ".mcp-cache", "policy", "bundle.json"),
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
    if (group === "hook") v8.setFlagsFromString("--liftoff-only");
    if (group === "hook" && action === "claude-code")
      return exitWith(await (await import("./claude-code.js")).runClaudeCodeHook());
    if (group === "hook" && action === "pre-commit") {
      const choice = hookDaemonChoice(argv.slice(2), process.env);
      const served = choice.daemon
        ? await (
            await import("../check/daemon/client.js")
          ).preCommitThroughDaemon(choice.argv, codePath("cli.js"))
        : undefined;
      if (served !== undefined) return exitWith(served);
      return exitWith(await (await import("./pre-commit.js")).runPreCommitHook(process.env, choice.argv));
    }
    if (group === "hook" && action === "install" && (target === "claude-code" || target === "pre-commit")) {
      const install = await import("./install.js");
      const dir = install.existingProject(path.resolve(option(argv, "--project") ?? process.cwd()));
      const given = option(argv, "--command");
      if (target === "pre-commit") {
        process.stdout.write(install.installPreCommit(dir, given, argv.includes("--daemon")) + "\n");
        return 0;
      }
      process.stdout.write(installClaude(install, dir, given, argv.includes("--local")) + "\n");
      return 0;
    }
  } catch (err) {
    process.stderr.write(`mcp-code-quality: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  process.stderr.write(USAGE + "\n");
  return 2;
}
