/**
 * The hooks with the real pre-commit framework (PyPI, scripts/install-tools.sh) in a real git repository
 * whose committed files already hold a secret, a bare `# noqa` and an unused import: the repository's
 * .pre-commit-hooks.yaml is a valid manifest and `pre-commit try-repo` runs it; the entry `hook install
 * pre-commit` prints is YAML that `pre-commit validate-config` accepts, and with it `pre-commit run
 * --all-files` finds the committed files (the hooks check the files they are given, not the index),
 * `run --files` checks only those, and a `git commit` through `pre-commit install` is refused.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PRE_COMMIT_BIN = path.join(REPO_ROOT, ".tools", "pre-commit", "bin");
const SECRET = 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ha4Lm2b"\n';

describe.skipIf(missing("pre-commit", [PRE_COMMIT_BIN]) || missing("git"))("the pre-commit framework", () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const preCommit = (...args: string[]) => {
    const r = spawnSync(path.join(PRE_COMMIT_BIN, "pre-commit"), args, {
      cwd: repo,
      env,
      encoding: "utf8",
      timeout: 300_000,
    });
    return { status: r.status, output: r.stdout + r.stderr };
  };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" });

  beforeAll(() => {
    repo = tempDir("mcq-pre-commit-fw-");
    // `mcp-code-quality` on PATH, as `npm install -g` puts it there.
    const bin = tempDir("mcq-pre-commit-bin-");
    fs.writeFileSync(
      path.join(bin, "mcp-code-quality"),
      `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`,
      { mode: 0o755 },
    );
    env = {
      ...process.env,
      PATH: [bin, TOOLS_VENV_BIN, process.env.PATH ?? ""].join(":"),
      PRE_COMMIT_HOME: tempDir("mcq-pre-commit-home-"),
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    };
    git("init", "-q", "-b", "main");
    fs.writeFileSync(path.join(repo, "secret.py"), SECRET);
    fs.writeFileSync(path.join(repo, "suppressed.py"), "value = 1  # noqa\n");
    fs.writeFileSync(path.join(repo, "unused.py"), "import os\n");
    fs.writeFileSync(path.join(repo, "ok.py"), "value = 2\n");
    fs.writeFileSync(path.join(repo, ".pre-commit-config.yaml"), "repos: []\n");
    git("add", "-A");
    git("commit", "-qm", "bad files committed past any hook");
  });

  it("the repository's .pre-commit-hooks.yaml is a valid manifest", () => {
    const r = spawnSync(
      path.join(PRE_COMMIT_BIN, "pre-commit"),
      ["validate-manifest", path.join(REPO_ROOT, ".pre-commit-hooks.yaml")],
      { encoding: "utf8" },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("hook install pre-commit prints an entry that pre-commit validate-config accepts, and it runs", () => {
    const install = spawnSync(process.execPath, [CLI, "hook", "install", "pre-commit", "--project", repo], {
      encoding: "utf8",
      env,
    });
    expect(install.status, install.stderr).toBe(0);
    // What the user pastes under `repos:`.
    const entry = install.stdout.slice(install.stdout.indexOf("  - repo: local"));
    const config = `repos:\n${entry}`;
    fs.writeFileSync(path.join(repo, ".pre-commit-config.yaml"), config);
    const valid = preCommit("validate-config", ".pre-commit-config.yaml");
    expect(valid.status, valid.output).toBe(0);
    expect(fs.existsSync(path.join(repo, ".git", "hooks", "pre-commit"))).toBe(false);

    // --all-files: the files as committed, which no hook saw, are linted; the policy hook judges changes,
    // and nothing is staged.
    const all = preCommit("run", "--all-files");
    expect(all.status).toBe(1);
    expect(all.output).not.toContain("secrets.in_edit");
    expect(all.output).not.toContain("suppress.broad");
    expect(all.output).toMatch(/unused\.py\n {2}1:8 +error +F401/);
    // --files: only those, each by its staged change.
    fs.writeFileSync(path.join(repo, "new_secret.py"), SECRET);
    git("add", "new_secret.py");
    try {
      const one = preCommit("run", "--files", "ok.py");
      expect(one.status, one.output).toBe(0);
      expect(one.output).not.toContain("secret.py");
      const secretOnly = preCommit("run", "mcp-code-quality-policy", "--files", "new_secret.py", "secret.py");
      expect(secretOnly.status).toBe(1);
      expect(secretOnly.output).toContain("new_secret.py: secrets.in_edit [block]");
      expect(secretOnly.output).not.toContain(" secret.py");
    } finally {
      git("rm", "-qf", "new_secret.py");
    }
  });

  it("hook install pre-commit --daemon prints hooks that ask the warm daemon, with the same verdicts", () => {
    const runtime = tempDir("mcq-pre-commit-fw-run-");
    // Its own daemon folder, and a daemon that ends soon after the last hook (the idle time is not in its key).
    const daemonEnv = {
      ...env,
      XDG_RUNTIME_DIR: runtime,
      TMPDIR: tempDir("mcq-pre-commit-fw-tmp-"),
      MCP_CODE_QUALITY_CHECK_DAEMON_IDLE: "5",
    };
    const install = spawnSync(
      process.execPath,
      [CLI, "hook", "install", "pre-commit", "--daemon", "--project", repo],
      { encoding: "utf8", env: daemonEnv },
    );
    expect(install.status, install.stderr).toBe(0);
    // `--daemon` before `--files`: after it, pre-commit's file names follow.
    expect(install.stdout).toContain('entry: "mcp-code-quality hook pre-commit --daemon --files"');
    expect(install.stdout).toContain('entry: "mcp-code-quality check --daemon --files"');
    const configFile = path.join(repo, ".pre-commit-config.yaml");
    const before = fs.readFileSync(configFile, "utf8");
    fs.writeFileSync(
      configFile,
      `repos:\n${install.stdout.slice(install.stdout.indexOf("  - repo: local"))}`,
    );
    try {
      const saved = env;
      env = daemonEnv;
      try {
        expect(preCommit("validate-config", ".pre-commit-config.yaml").status).toBe(0);
        const all = preCommit("run", "--all-files");
        expect(all.status).toBe(1);
        expect(all.output).not.toContain("secrets.in_edit");
        expect(all.output).toMatch(/unused\.py\n {2}1:8 +error +F401/);
        const one = preCommit("run", "--files", "ok.py");
        expect(one.status, one.output).toBe(0);
      } finally {
        env = saved;
      }
      // The hooks started the daemon in this environment's folder (and asked it).
      expect(fs.readdirSync(runtime, { recursive: true }).length).toBeGreaterThan(0);
    } finally {
      fs.writeFileSync(configFile, before);
    }
  });

  it("pre-commit try-repo runs this repository's hooks", () => {
    fs.writeFileSync(path.join(repo, "new_secret.py"), SECRET);
    git("add", "new_secret.py");
    try {
      const r = preCommit(
        "try-repo",
        REPO_ROOT,
        "mcp-code-quality-policy",
        "--files",
        "new_secret.py",
        "ok.py",
      );
      expect(r.status).toBe(1);
      expect(r.output).toContain("mcp-code-quality policy");
      expect(r.output).toContain("new_secret.py: secrets.in_edit [block]");
    } finally {
      git("rm", "-qf", "new_secret.py");
    }
    const clean = preCommit("try-repo", REPO_ROOT, "--files", "ok.py");
    expect(clean.status, clean.output).toBe(0);
  });

  it("between two refs (run --from-ref/--to-ref, the pre-push stage) the change between them is judged", () => {
    const install = spawnSync(process.execPath, [CLI, "hook", "install", "pre-commit", "--project", repo], {
      encoding: "utf8",
      env,
    });
    const configFile = path.join(repo, ".pre-commit-config.yaml");
    const before = fs.readFileSync(configFile, "utf8");
    fs.writeFileSync(
      configFile,
      `repos:\n${install.stdout.slice(install.stdout.indexOf("  - repo: local"))}`,
    );
    const orig = git("rev-parse", "HEAD").trim();
    git("add", ".pre-commit-config.yaml");
    git("commit", "-qm", "the hooks", "--no-verify");
    const from = git("rev-parse", "HEAD").trim();
    // A commit made past every hook, then nothing staged: the index holds no change to judge.
    fs.writeFileSync(path.join(repo, "pushed.py"), SECRET);
    git("add", "pushed.py");
    git("commit", "-qm", "a secret past the hooks", "--no-verify");
    const to = git("rev-parse", "HEAD").trim();
    try {
      const r = preCommit("run", "mcp-code-quality-policy", "--from-ref", from, "--to-ref", to);
      expect(r.status, r.output).toBe(1);
      expect(r.output).toContain("pushed.py: secrets.in_edit [block]");
      // The committed files of before that (secret.py) are not this range's change.
      expect(r.output).not.toContain(" secret.py");
      // pre-commit 1's names, which pre-commit 4.7 still sets: PRE_COMMIT_ORIGIN is the from-ref.
      const hook = (extra: NodeJS.ProcessEnv) =>
        spawnSync(process.execPath, [CLI, "hook", "pre-commit", "--files", "pushed.py"], {
          cwd: repo,
          env: { ...env, ...extra },
          encoding: "utf8",
        });
      const legacy = hook({ PRE_COMMIT_ORIGIN: from, PRE_COMMIT_SOURCE: to });
      expect(legacy.status, legacy.stderr).toBe(1);
      expect(legacy.stderr).toContain("pushed.py: secrets.in_edit [block]");
      // Without the refs: the staged change (none).
      expect(hook({}).status).toBe(0);
      // The pre-push stage: `git push` runs the hook between the remote's and the pushed commit.
      const remote = tempDir("mcq-pre-commit-fw-remote-");
      execFileSync("git", ["init", "-q", "--bare", remote]);
      git("push", "-q", remote, `${from}:refs/heads/main`);
      expect(preCommit("install", "-t", "pre-push").status).toBe(0);
      const push = spawnSync("git", ["push", remote, "HEAD:main"], { cwd: repo, env, encoding: "utf8" });
      expect(push.status).not.toBe(0);
      expect(push.stdout + push.stderr).toContain("pushed.py: secrets.in_edit [block]");
      expect(execFileSync("git", ["rev-parse", "main"], { cwd: remote, encoding: "utf8" }).trim()).toBe(from);
    } finally {
      fs.rmSync(path.join(repo, ".git", "hooks", "pre-push"), { force: true });
      git("reset", "-q", "--hard", orig);
      fs.writeFileSync(configFile, before);
    }
  }, 300_000);

  it("through `pre-commit install`, a git commit of a new secret is refused", () => {
    const installed = preCommit("install");
    expect(installed.status, installed.output).toBe(0);
    fs.writeFileSync(path.join(repo, "ok.py"), `value = 2\n${SECRET}`);
    git("add", "ok.py", ".pre-commit-config.yaml");
    const r = spawnSync("git", ["commit", "-m", "adds a secret"], { cwd: repo, env, encoding: "utf8" });
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("ok.py: secrets.in_edit [block]");
    expect(git("log", "--oneline").trim().split("\n")).toHaveLength(1);
  });
});
