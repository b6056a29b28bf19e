/**
 * `mcp-code-quality hook pre-commit` in a real git repository, through real `git commit`s: installed into an
 * existing hook that ends in `exit 0` (its line goes where it runs, and the install proves it by running the
 * hook), it judges what the commit holds, the staged content: a secret staged while the work tree no longer
 * has it, a lint error staged while the work tree is fixed (and the reverse passes), a secret in a file over
 * 2 MiB, a secret in the 1,001st file, a CI file replaced by a symlink (a type change); a clean commit passes
 * and the existing hook still runs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { gitEnv } from "../helpers/git-identity.js";

let repo: string;
const env = gitEnv;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8", env });
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), text);
};
const SECRET = 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ha4Lm2b"\n';

function commit(message: string) {
  const r = spawnSync("git", ["commit", "-m", message], {
    cwd: repo,
    encoding: "utf8",
    env,
    timeout: 300_000,
  });
  return { code: r.status, output: r.stdout + r.stderr };
}

/** Leaves nothing staged or in the work tree beyond HEAD. */
function reset() {
  git("reset", "-q", "--hard");
  git("clean", "-qfd");
}

let installOutput: string;

beforeAll(() => {
  repo = tempDir("mcq-pre-commit-");
  git("init", "-q", "-b", "main");
  write("README.md", "# demo\n");
  write(".github/workflows/ci.yml", "on: push\n");
  git("add", "-A");
  git("commit", "-qm", "init");
  // An existing hook that ends in `exit 0`: a line appended after it would never run.
  fs.writeFileSync(
    path.join(repo, ".git", "hooks", "pre-commit"),
    '#!/bin/sh\necho existing-hook-ran >> "$(git rev-parse --git-dir)/existing.log"\nexit 0\n',
    { mode: 0o755 },
  );
  const r = spawnSync(process.execPath, [CLI, "hook", "install", "pre-commit", "--project", repo], {
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  installOutput = r.stdout;
});

describe("hook install pre-commit", () => {
  it("inserts its line before the existing hook's commands and proves it runs", () => {
    expect(installOutput).toContain("inserted into the existing hook, before its own commands");
    expect(installOutput).toContain("verified: running");
    // The in-process hook says how to get the warm one (issue 41's bench: ~2.4× faster a Python commit).
    expect(installOutput).toContain("tip: `hook install pre-commit --daemon`");
    const lines = fs.readFileSync(path.join(repo, ".git", "hooks", "pre-commit"), "utf8").split("\n");
    expect(lines[0]).toBe("#!/bin/sh");
    expect(lines[1]).toContain("mcp-code-quality hook pre-commit");
    expect(lines.at(-2)).toBe("exit 0");
  });
});

describe("hook pre-commit judges the staged content", () => {
  it("refuses a staged secret that the work tree no longer has", () => {
    write("src/settings.py", SECRET);
    git("add", "src/settings.py");
    write("src/settings.py", "import os\n\nAWS_SECRET_ACCESS_KEY = os.environ['AWS_SECRET_ACCESS_KEY']\n");
    const r = commit("settings");
    expect(r.code).toBe(1);
    expect(r.output).toContain("src/settings.py: secrets.in_edit [block]");
    expect(r.output).toContain("commit refused");
    reset();
  });

  it("refuses a staged lint error whose work tree is fixed, and lets the reverse through", () => {
    write("src/unused.py", "import sys\n\n\ndef f():\n    return 1\n");
    git("add", "src/unused.py");
    write("src/unused.py", "def f():\n    return 1\n");
    const refused = commit("unused");
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/lint_check \(staged\): 1 finding/);
    expect(refused.output).toContain("src/unused.py:1:8: F401");
    expect(refused.output).toContain("advice (ruff:F401)");
    git("add", "src/unused.py");
    write("src/unused.py", "import sys\n\n\ndef f():\n    return 1\n");
    const passed = commit("clean staged, dirty work tree");
    expect(passed.code, passed.output).toBe(0);
    reset();
  });

  it("refuses a secret in a file over 2 MiB", () => {
    write("data/big.txt", `${"filler line of data\n".repeat(120_000)}${SECRET}`);
    expect(fs.statSync(path.join(repo, "data", "big.txt")).size).toBeGreaterThan(2 * 1024 * 1024);
    git("add", "data/big.txt");
    const r = commit("big");
    expect(r.code).toBe(1);
    expect(r.output).toContain("data/big.txt: secrets.in_edit [block]");
    reset();
  });

  it("refuses a secret in the 1,001st staged file", () => {
    for (let i = 0; i < 1000; i++) write(`many/f${String(i).padStart(4, "0")}.txt`, `note ${i}\n`);
    write("many/z-last.txt", SECRET);
    git("add", "many");
    const r = commit("many");
    expect(r.code).toBe(1);
    expect(r.output).toContain("many/z-last.txt: secrets.in_edit [block]");
    reset();
  });

  it("asks a human to confirm a CI file replaced by a symlink (a type change), and commits it when they do", () => {
    fs.rmSync(path.join(repo, ".github", "workflows", "ci.yml"));
    fs.symlinkSync("/dev/null", path.join(repo, ".github", "workflows", "ci.yml"));
    git("add", "-A");
    expect(git("diff", "--cached", "--name-status")).toMatch(/^T\s+\.github\/workflows\/ci\.yml/m);
    const r = commit("link ci");
    expect(r.code).toBe(1);
    expect(r.output).toContain(
      ".github/workflows/ci.yml (type change to or from a symbolic link): protected.ci [confirm]",
    );
    expect(r.output).toContain("MCQ_ALLOW_PROTECTED=1 git commit");
    const confirmed = spawnSync("git", ["commit", "-m", "link ci"], {
      cwd: repo,
      encoding: "utf8",
      env: { ...env, MCQ_ALLOW_PROTECTED: "1" },
      timeout: 300_000,
    });
    expect(confirmed.status, confirmed.stdout + confirmed.stderr).toBe(0);
    expect(confirmed.stderr).toContain("protected.ci [confirmed]");
    git("reset", "-q", "--hard", "HEAD~1");
    reset();
  });

  it("lets a human commit the settings `hook install` wrote and a pre-commit config, once confirmed", () => {
    write(".claude/settings.json", '{"hooks": {}}\n');
    write(".pre-commit-config.yaml", "repos: []\n");
    git("add", "-A");
    const r = commit("hook settings");
    expect(r.code).toBe(1);
    expect(r.output).toContain(".claude/settings.json: protected.hooks [confirm]");
    const confirmed = spawnSync("git", ["commit", "-m", "hook settings"], {
      cwd: repo,
      encoding: "utf8",
      env: { ...env, MCQ_ALLOW_PROTECTED: "1" },
      timeout: 300_000,
    });
    expect(confirmed.status, confirmed.stdout + confirmed.stderr).toBe(0);
    git("reset", "-q", "--hard", "HEAD~1");
    reset();
  });

  it("lets a lock file and a hash manifest through: which files an agent may edit is the agent hook's rule", () => {
    write("package-lock.json", '{"lockfileVersion": 3}\n');
    write(
      "dist/SHA256SUMS",
      "0000000000000000000000000000000000000000000000000000000000000000  app.tar.gz\n",
    );
    git("add", "-A");
    const r = commit("deps");
    expect(r.code, r.output).toBe(0);
    git("reset", "-q", "--hard", "HEAD~1");
    reset();
  });

  it("lets a clean commit through, and the existing hook still runs after it", () => {
    write("src/ok.py", "def add(a: int, b: int) -> int:\n    return a + b\n");
    git("add", "src/ok.py");
    const r = commit("ok");
    expect(r.code, r.output).toBe(0);
    expect(git("log", "--oneline")).toContain("ok");
    expect(fs.readFileSync(path.join(repo, ".git", "existing.log"), "utf8")).toContain("existing-hook-ran");
  });
});

describe("hook install pre-commit beside a hook manager", () => {
  it("inserts its line at the top of husky's .husky/pre-commit, keeping the script", async () => {
    const { installPreCommit, MARKER } = await import("../../src/hooks/install.js");
    const dir = tempDir("mcq-husky-");
    execFileSync("git", ["init", "-q"], { cwd: dir });
    execFileSync("git", ["config", "core.hooksPath", ".husky/_"], { cwd: dir });
    fs.mkdirSync(path.join(dir, ".husky", "_"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".husky", "pre-commit"), "npx lint-staged\nexit 0\n");
    expect(installPreCommit(dir, "mcq hook pre-commit")).toContain("inserted");
    const script = fs.readFileSync(path.join(dir, ".husky", "pre-commit"), "utf8");
    expect(script).toBe(`mcq hook pre-commit || exit $?  # ${MARKER}\nnpx lint-staged\nexit 0\n`);
    expect(installPreCommit(dir, "mcq hook pre-commit")).toContain("already installed");
  });

  it("an install whose hook does not reach the line fails, saying so", async () => {
    const { installPreCommit } = await import("../../src/hooks/install.js");
    const dir = tempDir("mcq-unreached-");
    execFileSync("git", ["init", "-q"], { cwd: dir });
    // A command that does not run our hook: the verification must notice.
    expect(() => installPreCommit(dir, "true")).toThrow(/did not reach the mcp-code-quality line/);
  });

  it("with the pre-commit framework, prints the local hook entry and edits nothing", async () => {
    const { installPreCommit } = await import("../../src/hooks/install.js");
    const dir = tempDir("mcq-precommit-fw-");
    execFileSync("git", ["init", "-q"], { cwd: dir });
    fs.writeFileSync(path.join(dir, ".pre-commit-config.yaml"), "repos: []\n");
    expect(installPreCommit(dir, "mcq hook pre-commit")).toContain(`entry: "mcq hook pre-commit --files"`);
    expect(fs.readFileSync(path.join(dir, ".pre-commit-config.yaml"), "utf8")).toBe("repos: []\n");
    expect(fs.existsSync(path.join(dir, ".git", "hooks", "pre-commit"))).toBe(false);
  });
});

describe("a repository's first commit (no HEAD yet)", () => {
  it("judges what the first commit holds: a staged secret refuses it, the same files without it commit", () => {
    const first = tempDir("mcq-pre-commit-unborn-");
    const inFirst = (...args: string[]) => execFileSync("git", args, { cwd: first, encoding: "utf8", env });
    inFirst("init", "-q", "-b", "main");
    const r = spawnSync(process.execPath, [CLI, "hook", "install", "pre-commit", "--project", first], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    fs.writeFileSync(path.join(first, "README.md"), "# first\n");
    fs.writeFileSync(path.join(first, "settings.py"), SECRET);
    inFirst("add", "-A");
    const commitFirst = () =>
      spawnSync("git", ["commit", "-m", "first"], { cwd: first, encoding: "utf8", env, timeout: 300_000 });
    const refused = commitFirst();
    expect(refused.status, refused.stdout + refused.stderr).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain("settings.py");
    expect(() => inFirst("rev-parse", "--verify", "-q", "HEAD")).toThrow();
    fs.writeFileSync(path.join(first, "settings.py"), "DEBUG = False\n");
    inFirst("add", "-A");
    const passed = commitFirst();
    expect(passed.status, passed.stdout + passed.stderr).toBe(0);
    expect(inFirst("ls-files").split("\n").filter(Boolean).sort()).toEqual(["README.md", "settings.py"]);
  }, 300_000);
});
