/**
 * Bypass lines of the review, run for real in a scratch repository whose pre-commit hook is ours: each one
 * really gets a secret committed past the hook (or disables it, or force-pushes over main), which is why the
 * installed Claude Code hook must stop it before it runs. For each: the installed hook command line (as
 * Claude Code runs it, through `sh -c`) denies the line; then the line is run with bash and does what the
 * policy feared.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { gitEnv } from "../helpers/git-identity.js";

const env = gitEnv;
const SECRET = 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ha4Lm2b"\n';

let repo: string;
let hookCommand: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" });

beforeAll(async () => {
  repo = fs.realpathSync(tempDir("mcq-bypass-"));
  const remote = fs.realpathSync(tempDir("mcq-bypass-remote-"));
  execFileSync("git", ["init", "-q", "--bare", "-b", "main"], { cwd: remote });
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, "README.md"), "# demo\n");
  git("add", "README.md");
  git("commit", "-qm", "init");
  git("remote", "add", "origin", remote);
  git("push", "-q", "origin", "main");
  const { installPreCommit, installClaudeCode } = await import("../../src/hooks/install.js");
  installPreCommit(repo, `'${process.execPath}' '${path.join(REPO_ROOT, "dist", "hook.js")}' pre-commit`);
  installClaudeCode(repo, `'${process.execPath}' '${path.join(REPO_ROOT, "dist", "hook.js")}' claude-code`);
  const settings = JSON.parse(fs.readFileSync(path.join(repo, ".claude", "settings.json"), "utf8"));
  hookCommand = settings.hooks.PreToolUse[0].hooks[0].command as string;
  fs.writeFileSync(path.join(repo, ".gitignore"), ".claude/\n");
  // Our pre-commit hook refuses a plain commit of the secret: the lines below are how to get past it.
  fs.writeFileSync(path.join(repo, "settings.py"), SECRET);
  git("add", "settings.py");
  expect(spawnSync("git", ["commit", "-m", "secret"], { cwd: repo, env, encoding: "utf8" }).status).toBe(1);
});

/** The installed Claude Code hook's decision for a Bash line. */
function claude(line: string): string {
  const r = spawnSync("sh", ["-c", hookCommand], {
    input: JSON.stringify({ tool_name: "Bash", cwd: repo, tool_input: { command: line } }),
    env: { ...env, CLAUDE_PROJECT_DIR: repo },
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim() === "" ? "allow" : JSON.parse(r.stdout).hookSpecificOutput.permissionDecision;
}

/** Runs the line for real, as an agent's Bash tool would. */
const run = (line: string) =>
  spawnSync("bash", ["-c", line], { cwd: repo, env, encoding: "utf8", timeout: 120_000 });

const headHasSecret = () => git("show", "HEAD:settings.py").includes("AWS_SECRET_ACCESS_KEY");

function undo() {
  git("reset", "-q", "--soft", "HEAD~1");
  fs.writeFileSync(
    path.join(repo, ".git", "hooks", "pre-commit"),
    fs.readFileSync(path.join(repo, ".git", "hooks", "pre-commit.bak")),
  );
}

describe("bypasses that work when run: the installed hook denies each first", () => {
  beforeAll(() => {
    fs.copyFileSync(
      path.join(repo, ".git", "hooks", "pre-commit"),
      path.join(repo, ".git", "hooks", "pre-commit.bak"),
    );
  });

  const commits = [
    "git commit --no-verif -m bypass",
    "git -c alias.ci='commit --no-verify' ci -m bypass",
    'g"i"t commit${IFS}-n -m bypass',
    "GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='/dev/null'\" git commit -m bypass",
  ];
  for (const line of commits)
    it(`${line}`, () => {
      expect(claude(line)).toBe("deny");
      const r = run(line);
      expect(r.status, r.stderr).toBe(0);
      expect(headHasSecret()).toBe(true);
      undo();
    });

  it("echo 'exit 0' > .git/hooks/pre-commit, then a plain commit", () => {
    const line = "echo 'exit 0' > .git/hooks/pre-commit";
    expect(claude(line)).toBe("deny");
    expect(run(line).status).toBe(0);
    expect(run("git commit -m bypass").status).toBe(0);
    expect(headHasSecret()).toBe(true);
    undo();
  });

  it("git push --force over main", () => {
    git("stash", "-q");
    fs.writeFileSync(path.join(repo, "README.md"), "# rewritten\n");
    git("commit", "-qam", "local", "--no-verify");
    git("reset", "-q", "--hard", "HEAD~1");
    fs.writeFileSync(path.join(repo, "README.md"), "# other history\n");
    git("commit", "-qam", "other", "--no-verify");
    const line = "git push -qf origin main";
    expect(claude(line)).toBe("deny");
    const before = git("ls-remote", "origin", "main");
    expect(run(line).status).toBe(0);
    expect(git("ls-remote", "origin", "main")).not.toBe(before);
  });
});
