/**
 * `hook install claude-code` and `hook install pre-commit`: add this server's hooks without clobbering
 * what is there (other Claude Code hooks, an existing git hook, husky or the pre-commit framework).
 * Files are written to a temporary name and renamed into place.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MARKER = "mcp-code-quality hook pre-commit";
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../cli.js");

/** How the hook is started: this node and this package's CLI, quoted for a shell. */
export function defaultCommand(sub: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `${q(process.execPath)} ${q(CLI)} hook ${sub}`;
}

function writeAtomic(file: string, text: string, mode = 0o644): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { flag: "wx", mode });
  fs.renameSync(tmp, file);
}

/** Adds the PreToolUse hook to .claude/settings.json, keeping every other setting and hook. */
export function installClaudeCode(projectDir: string, command = defaultCommand("claude-code")): string {
  const file = path.join(projectDir, ".claude", "settings.json");
  let settings: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    if (fs.lstatSync(file).isSymbolicLink()) throw new Error(`${file} is a symbolic link; not changed`);
    try {
      settings = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`${file} is not valid JSON (${(err as Error).message}); not changed`, { cause: err });
    }
  }
  const hooks = (settings.hooks ??= {}) as Record<string, unknown[]>;
  const pre = (hooks.PreToolUse ??= []) as {
    matcher?: string;
    hooks?: { type: string; command: string }[];
  }[];
  const present = pre.some((m) => m.hooks?.some((h) => h.command.includes("hook claude-code")));
  if (present) return `${file}: the mcp-code-quality hook is already installed`;
  pre.push({ matcher: "Bash|Write|Edit|MultiEdit", hooks: [{ type: "command", command }] });
  writeAtomic(file, JSON.stringify(settings, null, 2) + "\n");
  return `${file}: added a PreToolUse hook for Bash|Write|Edit|MultiEdit (${command})`;
}

/** Installs the git pre-commit hook beside whatever is there. */
export function installPreCommit(repoDir: string, command = defaultCommand("pre-commit")): string {
  const git = (args: string[]) => execFileSync("git", args, { cwd: repoDir, encoding: "utf8" }).trim();
  const top = git(["rev-parse", "--show-toplevel"]);
  if (fs.existsSync(path.join(top, ".pre-commit-config.yaml")))
    return [
      "This repository uses the pre-commit framework; add this hook to .pre-commit-config.yaml:",
      "  - repo: local",
      "    hooks:",
      "      - id: mcp-code-quality",
      "        name: mcp-code-quality policy",
      `        entry: ${command}`,
      "        language: system",
      "        pass_filenames: false",
      "        always_run: true",
    ].join("\n");
  const hooksDir = path.resolve(top, git(["rev-parse", "--git-path", "hooks"]));
  const huskyDir = path.join(top, ".husky");
  // husky (core.hooksPath .husky/_): the project's own hook script lives in .husky/pre-commit.
  const target = hooksDir.startsWith(huskyDir)
    ? path.join(huskyDir, "pre-commit")
    : path.join(hooksDir, "pre-commit");
  const existing = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : undefined;
  if (existing?.includes(MARKER)) return `${target}: the mcp-code-quality hook is already installed`;
  const line = `${command} || exit $?  # ${MARKER}\n`;
  if (existing === undefined) {
    writeAtomic(target, `#!/bin/sh\n${line}`, 0o755);
    return `${target}: installed`;
  }
  if (/^\s*exec\s/m.test(existing)) {
    // A hook that ends in exec would never reach an appended line: run the old one first, then ours.
    const kept = `${target}.pre-mcp-code-quality`;
    fs.renameSync(target, kept);
    writeAtomic(
      target,
      `#!/bin/sh\n"$(dirname "$0")/${path.basename(kept)}" "$@" || exit $?\n${line}`,
      0o755,
    );
    return `${target}: installed; the previous hook runs first from ${kept}`;
  }
  writeAtomic(target, existing.replace(/\n?$/, "\n") + line, fs.statSync(target).mode & 0o777);
  return `${target}: appended to the existing hook`;
}
