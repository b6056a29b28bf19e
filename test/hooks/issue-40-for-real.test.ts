/**
 * Every git line of the issue-40 corpus (corpus/issue-40.jsonl) that the policy blocks, run for real with
 * bash in a scratch repository, proving the block is not a guess: a commit line gets a commit past a
 * pre-commit hook that refuses everything (through an interpreter's argv, a config the line wrote, GNU
 * parallel, …), a `--no-verify` push gets past a pre-push hook that refuses everything, and a force push
 * of HEAD / @ / a pattern / --all / --mirror rewrites `main` on the remote. Each line is denied by the
 * Claude Code hook's decision first.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { gitEnv } from "../helpers/git-identity.js";

interface Line {
  line: string;
  expect: string;
  class: string;
}
const LINES = fs
  .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", "issue-40.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line)
  .filter(
    (c) =>
      c.expect === "deny" && /\bgit\b/.test(c.line) && (c.class === "bypass" || c.class === "force_push"),
  );

const env = gitEnv;
let repo: string;
let remote: string;
let base: string;
let theirs: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" }).trim();
const remoteMain = () => execFileSync("git", ["rev-parse", "main"], { cwd: remote, encoding: "utf8" }).trim();
const REFUSE = "#!/bin/sh\necho 'this hook refuses everything' >&2\nexit 1\n";

beforeAll(() => {
  repo = tempDir("mcq-for-real-");
  remote = tempDir("mcq-for-real-remote-");
  execFileSync("git", ["init", "-q", "--bare", "-b", "main"], { cwd: remote });
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, "README.md"), "# demo\n");
  git("add", "README.md");
  git("commit", "-qm", "base");
  base = git("rev-parse", "HEAD");
  git("remote", "add", "origin", remote);
  git("push", "-q", "-u", "origin", "main");
  // Someone else's work on the remote's main, which a force push would throw away.
  fs.writeFileSync(path.join(repo, "THEIRS.md"), "their work\n");
  git("add", "THEIRS.md");
  git("commit", "-qm", "theirs");
  theirs = git("rev-parse", "HEAD");
  git("push", "-q", "origin", "main");
  git("reset", "-q", "--hard", base);
  fs.writeFileSync(path.join(repo, ".git", "hooks", "pre-commit"), REFUSE, { mode: 0o755 });
});

/**
 * bubblewrap, for a /tmp of the lines' own: they write fixed paths there (`/tmp/gc`, `/tmp/nohooks`), which
 * another run's leftovers (a folder of that name) would break and which should not be left on the host.
 */
const BWRAP = ["/usr/bin/bwrap", "/bin/bwrap"].find((p) => fs.existsSync(p));

/** A corpus line run with bash in the repository, in a private /tmp (the repository and remote bound in). */
const run = (line: string) =>
  BWRAP
    ? spawnSync(
        BWRAP,
        ["--dev-bind", "/", "/", "--tmpfs", "/tmp", "--bind", repo, repo, "--bind", remote, remote].concat([
          "--chdir",
          repo,
          "--",
          "bash",
          "-c",
          line,
        ]),
        { cwd: repo, env, encoding: "utf8", timeout: 120_000 },
      )
    : spawnSync("bash", ["-c", line], { cwd: repo, env, encoding: "utf8", timeout: 120_000 });

async function denied(line: string): Promise<boolean> {
  const { answerHook } = await import(path.join(REPO_ROOT, "dist", "hooks", "claude-code.js"));
  const out = (await answerHook(
    JSON.stringify({ tool_name: "Bash", cwd: repo, tool_input: { command: line } }),
    {
      CLAUDE_PROJECT_DIR: repo,
      HOME: os.homedir(),
    },
  )) as string;
  return out !== "" && JSON.parse(out).hookSpecificOutput.permissionDecision === "deny";
}

describe("the blocked git lines of the issue-40 corpus do their harm when run", () => {
  it("covers the blocked git lines", () => {
    expect(LINES.length).toBeGreaterThanOrEqual(35);
  });

  for (const c of LINES) {
    const push = /\bpush\b/.test(c.line);
    it.skipIf(c.line.includes("parallel") && missing("parallel"))(c.line, async () => {
      expect(await denied(c.line)).toBe(true);
      if (!push) {
        // A change staged, a pre-commit hook that refuses everything: a plain commit fails, this line commits.
        fs.writeFileSync(path.join(repo, "work.txt"), `${c.line}\n`);
        git("add", "work.txt");
        const before = git("rev-parse", "HEAD");
        expect(spawnSync("git", ["commit", "-qm", "plain"], { cwd: repo, env }).status).not.toBe(0);
        const r = run(c.line);
        expect(r.status, r.stderr).toBe(0);
        expect(git("rev-parse", "HEAD")).not.toBe(before);
        git("reset", "-q", "--hard", before);
        return;
      }
      if (c.class === "bypass") {
        // A pre-push hook that refuses everything: a plain push fails, this line pushes.
        fs.writeFileSync(path.join(repo, ".git", "hooks", "pre-push"), REFUSE, { mode: 0o755 });
        execFileSync("git", ["update-ref", "refs/heads/main", base], { cwd: remote });
        git("reset", "-q", "--hard", base);
        fs.writeFileSync(path.join(repo, "work.txt"), "pushed\n");
        git("add", "work.txt");
        git("commit", "-qm", "local", "--no-verify");
        const local = git("rev-parse", "HEAD");
        expect(spawnSync("git", ["push", "origin", "main"], { cwd: repo, env }).status).not.toBe(0);
        const r = run(c.line);
        expect(r.status, r.stderr).toBe(0);
        expect(remoteMain()).toBe(local);
        fs.rmSync(path.join(repo, ".git", "hooks", "pre-push"));
        git("reset", "-q", "--hard", base);
        return;
      }
      // Force pushes: the remote's main holds their work; the local main diverged from it (having seen it).
      execFileSync("git", ["update-ref", "refs/heads/main", theirs], { cwd: remote });
      git("fetch", "-q", "origin");
      git("reset", "-q", "--hard", theirs);
      git("reset", "-q", "--hard", base);
      fs.writeFileSync(path.join(repo, "work.txt"), "rewritten\n");
      git("add", "work.txt");
      git("commit", "-qm", "mine", "--no-verify");
      git("branch", "-q", "--set-upstream-to=origin/main");
      const local = git("rev-parse", "HEAD");
      const r = run(c.line);
      expect(r.status, r.stderr).toBe(0);
      // Their work is gone from main.
      expect(remoteMain()).toBe(local);
      git("reset", "-q", "--hard", base);
    });
  }
});
