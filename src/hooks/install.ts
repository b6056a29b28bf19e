/**
 * `hook install claude-code` and `hook install pre-commit`: add this server's hooks without clobbering
 * what is there (other Claude Code hooks, an existing git hook, husky or the pre-commit framework), so that
 * they run, and fail closed whatever happens to the installation later:
 * - the Claude Code command line turns any failure of the hook (a crash, a missing dist/ or node_modules,
 *   node gone) into exit 2, Claude Code's blocking code (exit 1 would let the call through);
 * - the line in the shared .claude/settings.json names no path of this machine: it runs the project's own
 *   devDependency under $CLAUDE_PROJECT_DIR, else `mcp-code-quality` on PATH, else blocks and says what to
 *   install; `--local` writes this machine's fastest line (absolute paths, the start-up snapshot) into
 *   .claude/settings.local.json, which is not shared;
 * - the git hook's line goes where it runs (first, after the shebang: an existing hook's `exit 0` cannot skip
 *   it), and the installed hook is run once to prove it reaches the line.
 * Files are written to a temporary name and renamed into place.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { codePath } from "../package-root.js";
import { cliSnapshotBlobPath } from "../cli-snapshot-blob.js";
import { ensureSnapshotBlob, snapshotCommand } from "./hook-snapshot.js";

export const MARKER = "mcp-code-quality hook pre-commit";
const CLAUDE_MARKER = "mcp-code-quality-hook";
const HOOK_ENTRY = codePath("hook.js");
/** The native front of check and of the daemon's hook (scripts/build-native.mjs). */
const NATIVE_FRONT = codePath("native", "check-front");
/** The Claude Code hook as one bundled file (scripts/bundle-hook.mjs): it runs on every tool call. */
const CLAUDE_HOOK_ENTRY = codePath("bundle", "hook.cjs");
/** Claude Code's own timeout for the hook (seconds); the hook answers `ask` well before it. */
const CLAUDE_TIMEOUT_SECONDS = 60;

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** How a hook is started: this node and this package's hook entry, quoted for a shell. */
export function defaultCommand(sub: string): string {
  return `${q(process.execPath)} ${q(sub === "claude-code" ? CLAUDE_HOOK_ENTRY : HOOK_ENTRY)} ${sub}`;
}

/**
 * The git hook as installed by default: from the command line's start-up snapshot (src/cli-snapshot.ts) when
 * `npm run build` made one for this Node and this Node is still the one at its path (an upgrade at the same
 * path runs the modules), else the hook's own entry. One shell command, whose status is the hook's.
 */
export function preCommitCommand(blob = cliSnapshotBlobPath()): string {
  const plain = defaultCommand("pre-commit");
  if (!fs.existsSync(blob)) return plain;
  const node = q(process.execPath);
  return `if [ -f ${q(blob)} ] && [ "$(${node} --version)" = ${process.version} ]; then ${node} --snapshot-blob ${q(blob)} hook pre-commit; else ${plain}; fi`;
}

/**
 * The git hook of `hook install pre-commit --daemon`: first the native client (native/check/daemon.go,
 * dist/native/check-front where `npm run build` had Go), which asks a daemon that runs and exits 75 for
 * anything else; then, or without it, the hook's small entry, which starts the daemon, asks it to judge the
 * commit (src/check/daemon/client.ts) and judges it itself when the daemon cannot. One shell command, whose
 * status is the hook's.
 */
export function daemonPreCommitCommand(front = NATIVE_FRONT): string {
  const plain = `${defaultCommand("pre-commit")} --daemon`;
  if (!fs.existsSync(front)) return plain;
  return (
    `if [ -x ${q(front)} ]; then ${q(front)} hook pre-commit --daemon; mcq_rc=$?; else mcq_rc=75; fi; ` +
    `if [ "$mcq_rc" = 75 ]; then ${plain}; else (exit "$mcq_rc"); fi`
  );
}

export const PRE_COMMIT_NOT_INSTALLED =
  "mcp-code-quality: this repository's pre-commit hook runs mcp-code-quality, which is not installed on this machine, " +
  "so the commit is refused. Install it: npm install (the project lists mcp-code-quality as a devDependency), or " +
  "npm install -g mcp-code-quality (or: npm install --save-dev mcp-code-quality). To commit without the check, " +
  "that is your call: git commit --no-verify.";

/**
 * The git hook for a hook file inside the work tree (husky's .husky/pre-commit, a core.hooksPath such as
 * .githooks): that file is committed and every clone runs it, so it names no path of this machine. The
 * project's devDependency (git runs hooks at the top of the work tree), else `mcp-code-quality` on PATH,
 * else the commit is refused with what to install: a guard that passes when it is missing guards nothing,
 * and the human who reads the message may still choose `--no-verify`.
 */
export function portablePreCommitCommand(daemon = false): string {
  const sub = `hook pre-commit${daemon ? " --daemon" : ""}`;
  return [
    `if [ -x ./node_modules/.bin/mcp-code-quality ]; then ./node_modules/.bin/mcp-code-quality ${sub};`,
    `elif command -v mcp-code-quality >/dev/null 2>&1; then mcp-code-quality ${sub};`,
    `else echo ${q(PRE_COMMIT_NOT_INSTALLED)} >&2; exit 1; fi`,
  ].join(" ");
}

/** A hook file in the work tree (not under a .git folder, not outside it) is one that gets committed. */
export function committedHookFile(top: string, file: string): boolean {
  const rel = path.relative(top, file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) && rel.split(path.sep)[0] !== ".git";
}

/**
 * The Claude Code hook as installed by default: through its start-up snapshot when one can be built for
 * this Node (src/hooks/hook-snapshot.ts), the bundled hook otherwise and as the snapshot's fallback.
 */
export function defaultClaudeCommand(): { command: string; note: string } {
  const plain = defaultCommand("claude-code");
  const { blob, reason } = ensureSnapshotBlob();
  return blob
    ? { command: snapshotCommand(process.execPath, blob, plain), note: `start-up snapshot ${blob}` }
    : { command: plain, note: `no start-up snapshot (${reason}); the bundled hook runs alone` };
}

/** The package as a project's dependency installs it, under the project Claude Code runs in. */
const PROJECT_HOOK = '"$CLAUDE_PROJECT_DIR/node_modules/mcp-code-quality/dist/bundle/hook.cjs"';
export const NOT_INSTALLED_MESSAGE =
  "mcp-code-quality: the policy hook of this project is not installed on this machine, so the call is blocked. " +
  "Install it: npm install (the project lists mcp-code-quality as a devDependency), or npm install -g mcp-code-quality " +
  "(or: npm install --save-dev mcp-code-quality).";

/**
 * The hook as the shared .claude/settings.json runs it on every teammate's machine: the project's own
 * devDependency (its bundled hook, with the teammate's node), else the `mcp-code-quality` command on PATH,
 * else a block (exit 2) whose message says what to install.
 */
export function portableClaudeCommand(): string {
  return [
    `if [ -f ${PROJECT_HOOK} ]; then node ${PROJECT_HOOK} claude-code;`,
    "elif command -v mcp-code-quality >/dev/null 2>&1; then mcp-code-quality hook claude-code;",
    `else echo ${q(NOT_INSTALLED_MESSAGE)} >&2; exit 2; fi`,
  ].join(" ");
}

/**
 * The Claude Code command line: the hook, and whatever way it fails that is not its own answer (an exit
 * other than 0 or 2: a crash, a missing file, no node) becomes exit 2 with the reason on stderr.
 */
export function claudeCommandLine(command: string): string {
  return `{ ${command}; } || { rc=$?; [ "$rc" -eq 2 ] || echo "mcp-code-quality: the policy hook failed (exit $rc), so the call is blocked" >&2; exit 2; }  # ${CLAUDE_MARKER}`;
}

function writeAtomic(file: string, text: string, mode = 0o644): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, text, { flag: "wx", mode });
  fs.renameSync(tmp, file);
}

interface HookEntry {
  matcher?: string;
  hooks?: { type: string; command: string; timeout?: number }[];
}

/** The settings file: the shared one, or with `local` the personal one (Claude Code's settings.local.json). */
export function claudeSettingsFile(projectDir: string, local = false): string {
  return path.join(projectDir, ".claude", local ? "settings.local.json" : "settings.json");
}

/** Refuses a project folder that does not exist (a typo would otherwise get a new .claude/ of its own). */
export function existingProject(dir: string): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw new Error(`--project ${dir}: no such folder; nothing was installed`);
  }
  if (!st.isDirectory()) throw new Error(`--project ${dir}: not a folder; nothing was installed`);
  return dir;
}

/**
 * Runs a Claude Code command line as Claude Code would, in `projectDir`, with a payload for a tool no policy
 * checks: a working hook answers nothing and exits 0. The reason it does not, or undefined.
 */
export function claudeLineProblem(line: string, projectDir: string): string | undefined {
  const r = spawnSync("sh", ["-c", line], {
    cwd: projectDir,
    input: JSON.stringify({
      hook_event_name: "PreToolUse",
      tool_name: "Read",
      tool_input: {},
      cwd: projectDir,
    }),
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, CLAUDE_PROJECT_DIR: projectDir },
  });
  if (r.status === 0 && r.stdout === "") return undefined;
  return `exit ${r.status ?? r.signal}: ${(r.stderr || r.stdout || r.error?.message || "").trim().slice(-400)}`;
}

/** Adds the PreToolUse hook to .claude/settings.json, keeping every other setting and hook. */
export function installClaudeCode(
  projectDir: string,
  command = defaultCommand("claude-code"),
  file = claudeSettingsFile(projectDir),
): string {
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
  const pre = (hooks.PreToolUse ??= []) as HookEntry[];
  const line = claudeCommandLine(command);
  const ours = (h: { command: string }) =>
    h.command.includes(CLAUDE_MARKER) || /hook(\.c?js'?)? claude-code/.test(h.command);
  const existing = pre.find((m) => m.hooks?.some(ours));
  if (existing?.hooks?.some((h) => h.command === line))
    return `${file}: the mcp-code-quality hook is already installed`;
  if (existing) {
    // An older install (no fail-closed wrapper, another path): replaced in place.
    existing.hooks = existing.hooks?.map((h) =>
      ours(h) ? { type: "command", command: line, timeout: CLAUDE_TIMEOUT_SECONDS } : h,
    );
    writeAtomic(file, JSON.stringify(settings, null, 2) + "\n");
    return `${file}: updated the PreToolUse hook for Bash|Write|Edit|MultiEdit|NotebookEdit (${line})`;
  }
  pre.push({
    matcher: "Bash|Write|Edit|MultiEdit|NotebookEdit",
    hooks: [{ type: "command", command: line, timeout: CLAUDE_TIMEOUT_SECONDS }],
  });
  writeAtomic(file, JSON.stringify(settings, null, 2) + "\n");
  return `${file}: added a PreToolUse hook for Bash|Write|Edit|MultiEdit|NotebookEdit (${line})`;
}

const SHELL_SHEBANG = /^#!\s*(\/usr)?\/bin\/(env\s+)?(sh|bash|dash|zsh|ksh)\b/;

/** The hook's text with our line inserted where it runs first: after a shell shebang (and husky's own line). */
export function insertLine(existing: string, line: string): string | undefined {
  const lines = existing.split("\n");
  const first = lines[0] ?? "";
  if (first.startsWith("#!")) {
    if (!SHELL_SHEBANG.test(first)) return undefined;
    let at = 1;
    // husky v4-v8 scripts source their helper first.
    if (/husky\.sh/.test(lines[1] ?? "")) at = 2;
    lines.splice(at, 0, line);
    return lines.join("\n");
  }
  // No shebang: a husky (v9) script, run by sh.
  return `${line}\n${existing}`;
}

/** Runs the installed hook as git would, with the probe set: it must reach our line (exit 3, the nonce). */
function verify(hook: string, top: string): string | undefined {
  const nonce = randomBytes(8).toString("hex");
  const r = spawnSync(hook, [], {
    cwd: top,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, MCP_CODE_QUALITY_HOOK_PROBE: nonce },
  });
  if (r.status === 3 && r.stderr.includes(`probe ${nonce}`)) return undefined;
  return `running ${hook} did not reach the mcp-code-quality line (exit ${r.status ?? r.signal}${r.error ? `: ${r.error.message}` : ""}; ${(r.stderr || r.stdout).trim().slice(-300)})`;
}

/** The languages `check` checks, as the pre-commit framework's file types name them (identify's tags). */
const CHECKED_TYPES = ["python", "pyi", "javascript", "jsx", "ts", "tsx", "go", "rust", "ruby", "markdown"];

/**
 * For a repository that uses the pre-commit framework: its two hooks as a `repo: local` entry to add under
 * `repos:` in .pre-commit-config.yaml (YAML that `pre-commit validate-config` accepts), run from the
 * `mcp-code-quality` on PATH (or `command`): the policy's content checks and `check`, on the files
 * pre-commit passes. This repository's .pre-commit-hooks.yaml offers the same hooks as a `repo:`. With
 * `daemon`, both ask the warm check daemon (`--daemon` before `--files`: after it, every word is a file).
 */
export function preCommitFrameworkSnippet(command?: string, daemon = false): string {
  // A JSON string is a YAML double-quoted scalar: any command line stays one valid value.
  const yamlString = (text: string) => JSON.stringify(text);
  const files = daemon ? "--daemon --files" : "--files";
  const policyEntry =
    command !== undefined ? `${command} ${files}` : `mcp-code-quality hook pre-commit ${files}`;
  const checkEntry =
    command !== undefined
      ? command.replace(/\bhook pre-commit$/, `check ${files}`)
      : `mcp-code-quality check ${files}`;
  const checkHook =
    command === undefined || checkEntry !== command
      ? [
          "      - id: mcp-code-quality-check",
          "        name: mcp-code-quality check (format, lint, types)",
          `        entry: ${yamlString(checkEntry)}`,
          "        language: system",
          `        types_or: [${CHECKED_TYPES.join(", ")}]`,
          "        require_serial: true",
        ]
      : [];
  return [
    "This repository uses the pre-commit framework; add this entry under `repos:` in .pre-commit-config.yaml",
    "(mcp-code-quality must be on PATH: npm install -g mcp-code-quality; or use this project's repository as",
    "a `repo:`, whose .pre-commit-hooks.yaml has the same hooks):",
    "",
    "  - repo: local",
    "    hooks:",
    "      - id: mcp-code-quality-policy",
    "        name: mcp-code-quality policy (secrets, broad suppressions, weakened configs)",
    `        entry: ${yamlString(policyEntry)}`,
    "        language: system",
    "        types: [text]",
    "        require_serial: true",
    ...checkHook,
  ].join("\n");
}

/** Installs the git pre-commit hook beside whatever is there, where it runs, and proves it runs. */
export function installPreCommit(repoDir: string, given?: string, daemon = false): string {
  const git = (args: string[]) => execFileSync("git", args, { cwd: repoDir, encoding: "utf8" }).trim();
  const top = git(["rev-parse", "--show-toplevel"]);
  if (fs.existsSync(path.join(top, ".pre-commit-config.yaml")))
    return preCommitFrameworkSnippet(given, daemon);
  const hooksDir = path.resolve(top, git(["rev-parse", "--git-path", "hooks"]));
  const huskyDir = path.join(top, ".husky");
  // husky (core.hooksPath .husky/_): the project's own hook script lives in .husky/pre-commit.
  const husky = hooksDir.startsWith(huskyDir);
  const target = husky ? path.join(huskyDir, "pre-commit") : path.join(hooksDir, "pre-commit");
  // What git runs: husky's generated wrapper, or the hook itself.
  const runs = husky ? path.join(hooksDir, "pre-commit") : target;
  const existing = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : undefined;
  // .git/hooks is this machine's: its fastest line, with absolute paths. A committed file is every clone's.
  const portable = given === undefined && committedHookFile(top, target);
  const command =
    given ??
    (portable ? portablePreCommitCommand(daemon) : daemon ? daemonPreCommitCommand() : preCommitCommand());
  const line = `${command} || exit $?  # ${MARKER}`;
  let message: string;
  if (existing?.includes(MARKER)) {
    const text = existing
      .split("\n")
      .filter((l) => !l.includes(MARKER))
      .join("\n");
    const placed = insertLine(text, line);
    if (placed === existing || placed === undefined)
      message = `${target}: the mcp-code-quality hook is already installed`;
    else {
      writeAtomic(target, placed, fs.statSync(target).mode & 0o777);
      message = `${target}: the mcp-code-quality line moved to where it runs first`;
    }
  } else if (existing === undefined) {
    writeAtomic(target, `#!/bin/sh\n${line}\n`, 0o755);
    message = `${target}: installed`;
  } else {
    const placed = insertLine(existing, line);
    if (placed !== undefined) {
      writeAtomic(target, placed, fs.statSync(target).mode & 0o777 || 0o755);
      message = `${target}: inserted into the existing hook, before its own commands`;
    } else {
      // Not a shell script (python, node, a binary): kept aside and run after ours by a small wrapper.
      const kept = `${target}.pre-mcp-code-quality`;
      fs.renameSync(target, kept);
      writeAtomic(target, `#!/bin/sh\n${line}\nexec "$(dirname "$0")/${path.basename(kept)}" "$@"\n`, 0o755);
      message = `${target}: installed; the previous hook runs after it from ${kept}`;
    }
  }
  if (!husky) fs.chmodSync(target, fs.statSync(target).mode | 0o111);
  if (!fs.existsSync(runs))
    return `${message}\nnote: ${runs} does not exist yet (husky creates it on install); not verified`;
  const failed = verify(runs, top);
  if (failed)
    throw new Error(
      `${message}, but ${failed}` +
        (portable
          ? `\n${path.relative(top, target)} is committed, so it names no path of this machine: it runs ./node_modules/.bin/mcp-code-quality, else mcp-code-quality on PATH. Add the devDependency (npm install --save-dev mcp-code-quality) or install it globally (npm install -g mcp-code-quality), then install again.`
          : ""),
    );
  if (portable)
    message += `\nnote: ${path.relative(top, target)} is committed, so its line names no path of this machine: ./node_modules/.bin/mcp-code-quality, else mcp-code-quality on PATH, else the commit is refused saying what to install`;
  return `${message}\nverified: running ${runs} reaches the mcp-code-quality hook${given === undefined && !daemon ? `\n${DAEMON_TIP}` : ""}`;
}

/** What the in-process hook costs and how to get the warm one (npm run bench -- pre-commit, docs/policy.md). */
const DAEMON_TIP =
  "tip: `hook install pre-commit --daemon` installs a hook that asks a warm daemon instead (a one-file Python commit: ~2.4× faster here; the daemon stops after 15 idle minutes)";
