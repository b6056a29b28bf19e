/**
 * `hook install pre-commit` into a hook file that gets committed (core.hooksPath .githooks in the work tree):
 * the line names no path of this machine, so a teammate's clone runs it. Through real `git commit`s in a real
 * clone: without mcp-code-quality the commit is refused with what to install; with the project's
 * node_modules/.bin/mcp-code-quality (npm's link to the package's bin) a staged secret is refused and a clean
 * commit passes. .git/hooks (not committed) keeps this machine's fastest line.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const SECRET = 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ha4Lm2b"\n';
const env = {
  ...process.env,
  // A teammate's machine: node and git, no mcp-code-quality on PATH.
  PATH: [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", env });
const commit = (cwd: string, message: string, extra: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync("git", ["commit", "-m", message], {
    cwd,
    encoding: "utf8",
    env: { ...env, ...extra },
    timeout: 300_000,
  });
  return { code: r.status, output: r.stdout + r.stderr };
};
/** What `npm install` of the devDependency gives: node_modules/.bin/mcp-code-quality, a link to its bin. */
const linkDevDependency = (dir: string) => {
  fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
  fs.symlinkSync(
    path.join(REPO_ROOT, "bin", "mcp-code-quality"),
    path.join(dir, "node_modules", ".bin", "mcp-code-quality"),
  );
};

describe.skipIf(missing("git"))("hook install pre-commit into a committed hook file", () => {
  it("writes a line with no path of this machine, which a teammate's clone runs", () => {
    const origin = tempDir("mcq-committed-hook-");
    git(origin, "init", "-q", "-b", "main");
    git(origin, "config", "core.hooksPath", ".githooks");
    fs.writeFileSync(path.join(origin, ".gitignore"), "node_modules/\n");
    fs.writeFileSync(path.join(origin, "README.md"), "# demo\n");
    linkDevDependency(origin);
    const install = spawnSync(process.execPath, [CLI, "hook", "install", "pre-commit", "--project", origin], {
      encoding: "utf8",
      env,
    });
    expect(install.status, install.stderr).toBe(0);
    expect(install.stdout).toContain("verified");
    const hook = fs.readFileSync(path.join(origin, ".githooks", "pre-commit"), "utf8");
    expect(hook).toContain("./node_modules/.bin/mcp-code-quality hook pre-commit");
    for (const machinePath of [REPO_ROOT, process.execPath, fs.realpathSync(REPO_ROOT)])
      expect(hook).not.toContain(machinePath);
    git(origin, "add", "-A");
    // The hook file is a protected path: the human confirms it.
    const first = commit(origin, "hooks", { MCQ_ALLOW_PROTECTED: "1" });
    expect(first.code, first.output).toBe(0);

    const clone = tempDir("mcq-committed-clone-");
    git(clone, "clone", "-q", origin, ".");
    git(clone, "config", "core.hooksPath", ".githooks");
    fs.writeFileSync(path.join(clone, "notes.md"), "# notes\n");
    git(clone, "add", "notes.md");
    const missingTool = commit(clone, "notes");
    expect(missingTool.code).toBe(1);
    expect(missingTool.output).toContain("not installed on this machine, so the commit is refused");
    expect(missingTool.output).toContain("npm install --save-dev mcp-code-quality");
    expect(missingTool.output).not.toContain("Cannot find module");

    linkDevDependency(clone);
    fs.writeFileSync(path.join(clone, "settings.py"), SECRET);
    git(clone, "add", "settings.py");
    const refused = commit(clone, "a secret");
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toContain("settings.py: secrets.in_edit [block]");
    git(clone, "rm", "-q", "--cached", "settings.py");
    const ok = commit(clone, "notes");
    expect(ok.code, ok.output).toBe(0);
  });

  it(".git/hooks, which is not committed, keeps this machine's line", () => {
    const dir = tempDir("mcq-local-hook-");
    git(dir, "init", "-q", "-b", "main");
    const install = spawnSync(process.execPath, [CLI, "hook", "install", "pre-commit", "--project", dir], {
      encoding: "utf8",
      env,
    });
    expect(install.status, install.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, ".git", "hooks", "pre-commit"), "utf8")).toContain(
      process.execPath,
    );
  });
});
