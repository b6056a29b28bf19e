/** The `policy` and `hook` subcommands of the command line. */
import fs from "node:fs";
import v8 from "node:v8";
import path from "node:path";
import { compileBundle, PROJECT_POLICY_FILE, serializeBundle } from "../policy/compile.js";

const USAGE = [
  "Usage:",
  "  mcp-code-quality policy compile [--source DIR] [--project DIR] [--out FILE] [--policy-allow-loosening]",
  "      validate the policy bundle (and the project's .mcp-code-quality/policy.yaml), verify every example,",
  "      write it compiled (default .mcp-cache/policy/bundle.json)",
  "  mcp-code-quality hook install claude-code [--project DIR] [--local] [--command CMD]",
  "      add the PreToolUse hook to .claude/settings.json (--local: .claude/settings.local.json)",
  "  mcp-code-quality hook install pre-commit [--project DIR] [--command CMD]",
  "      add the git pre-commit hook (.git/hooks/pre-commit, husky's .husky/pre-commit), or print the",
  "      pre-commit framework's config when the repository uses it",
  "  mcp-code-quality hook claude-code           the Claude Code hook (a PreToolUse payload on stdin)",
  "  mcp-code-quality hook pre-commit [FILE...]  the git hook: the staged changes, or the FILEs as they are",
  "      in the work tree (as the pre-commit framework passes them)",
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
    if (group === "hook" && action === "pre-commit")
      return exitWith(await (await import("./pre-commit.js")).runPreCommitHook());
    if (group === "hook" && action === "install" && (target === "claude-code" || target === "pre-commit")) {
      const { defaultClaudeCommand, installClaudeCode, installPreCommit } = await import("./install.js");
      const dir = path.resolve(option(argv, "--project") ?? process.cwd());
      const given = option(argv, "--command");
      if (target === "pre-commit") {
        process.stdout.write(installPreCommit(dir, given) + "\n");
        return 0;
      }
      const { command, note } = given !== undefined ? { command: given, note: "" } : defaultClaudeCommand();
      process.stdout.write(installClaudeCode(dir, command) + (note ? `\n${note}` : "") + "\n");
      return 0;
    }
  } catch (err) {
    process.stderr.write(`mcp-code-quality: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  process.stderr.write(USAGE + "\n");
  return 2;
}
