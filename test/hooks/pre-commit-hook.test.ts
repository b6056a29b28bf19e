/**
 * `mcp-code-quality hook pre-commit` in a real git repository: installed beside an existing hook, it
 * refuses real `git commit`s that stage a secret, a broad suppression or a lint finding, and lets a clean
 * commit through.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

let repo: string;
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8", env });

function commit(file: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), text);
  git("add", file);
  const r = spawnSync("git", ["commit", "-m", `add ${file}`], {
    cwd: repo,
    encoding: "utf8",
    env,
    timeout: 120_000,
  });
  return { code: r.status, output: r.stdout + r.stderr };
}

beforeAll(() => {
  repo = tempDir("mcq-pre-commit-");
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, "README.md"), "# demo\n");
  git("add", "README.md");
  git("commit", "-qm", "init");
  // An existing hook the install must keep.
  const hooks = path.join(repo, ".git", "hooks");
  fs.writeFileSync(
    path.join(hooks, "pre-commit"),
    '#!/bin/sh\necho existing-hook-ran >> "$(git rev-parse --git-dir)/existing.log"\n',
    { mode: 0o755 },
  );
  const r = spawnSync(process.execPath, [CLI, "hook", "install", "pre-commit", "--project", repo], {
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain("appended to the existing hook");
});

describe("hook pre-commit", () => {
  it("refuses a commit that stages a secret", () => {
    const r = commit("src/settings.py", "AWS_KEY = 'AKIAIOSFODNN7EXAMPLE'\n");
    expect(r.code).toBe(1);
    expect(r.output).toContain("src/settings.py: secrets.in_edit [block]");
    expect(r.output).toContain("commit refused");
    git("reset", "-q");
  });

  it("refuses a broad suppression and a lint finding (ruff through lint_check, with the bundle's advice)", () => {
    const r = commit("src/util.py", "import os  # noqa\n");
    expect(r.code).toBe(1);
    expect(r.output).toContain("suppress.broad");
    git("reset", "-q");
    const lint = commit("src/unused.py", "import sys\n\n\ndef f():\n    return 1\n");
    expect(lint.code).toBe(1);
    expect(lint.output).toMatch(/lint_check \(staged\): 1 finding/);
    expect(lint.output).toContain("advice (ruff:F401)");
    expect(lint.output).toContain("F401");
    git("reset", "-q");
  });

  it("lets a clean commit through, and the existing hook still runs", () => {
    const r = commit("src/ok.py", "def add(a: int, b: int) -> int:\n    return a + b\n");
    expect(r.code, r.output).toBe(0);
    expect(git("log", "--oneline")).toContain("add src/ok.py");
    expect(fs.readFileSync(path.join(repo, ".git", "existing.log"), "utf8")).toContain("existing-hook-ran");
  });
});

describe("hook install pre-commit beside a hook manager", () => {
  it("adds its line to husky's .husky/pre-commit, keeping the script", async () => {
    const { installPreCommit, MARKER } = await import("../../src/hooks/install.js");
    const dir = tempDir("mcq-husky-");
    execFileSync("git", ["init", "-q"], { cwd: dir });
    execFileSync("git", ["config", "core.hooksPath", ".husky/_"], { cwd: dir });
    fs.mkdirSync(path.join(dir, ".husky", "_"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".husky", "pre-commit"), "npx lint-staged\n");
    expect(installPreCommit(dir, "mcq hook pre-commit")).toContain("appended");
    const script = fs.readFileSync(path.join(dir, ".husky", "pre-commit"), "utf8");
    expect(script).toBe(`npx lint-staged\nmcq hook pre-commit || exit $?  # ${MARKER}\n`);
    expect(installPreCommit(dir, "mcq hook pre-commit")).toContain("already installed");
  });

  it("with the pre-commit framework, prints the local hook entry and edits nothing", async () => {
    const { installPreCommit } = await import("../../src/hooks/install.js");
    const dir = tempDir("mcq-precommit-fw-");
    execFileSync("git", ["init", "-q"], { cwd: dir });
    fs.writeFileSync(path.join(dir, ".pre-commit-config.yaml"), "repos: []\n");
    expect(installPreCommit(dir, "mcq hook pre-commit")).toContain("entry: mcq hook pre-commit");
    expect(fs.readFileSync(path.join(dir, ".pre-commit-config.yaml"), "utf8")).toBe("repos: []\n");
    expect(fs.existsSync(path.join(dir, ".git", "hooks", "pre-commit"))).toBe(false);
  });
});
