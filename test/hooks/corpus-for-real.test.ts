/**
 * The blocked git lines of the earlier command corpus (corpus/commands.jsonl) run for real with bash in a
 * scratch repository whose hooks refuse everything, as issue-40-for-real.test.ts does for the new corpus:
 * a commit line gets a commit past the refusing pre-commit hook, a hook file removed, emptied, re-moded or
 * replaced (or core.hooksPath pointed away) lets a plain commit through, a `--no-verify` push gets past a
 * refusing pre-push hook, a force push replaces the remote `main`, a deleting push removes it, and a reflog
 * expiry empties the reflog. Lines whose harm needs what this machine lacks (another user, husky or the
 * pre-commit framework, a patch or a branch to merge, an environment variable the line names but does not
 * set) are listed in SKIPPED with why, not run.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { gitEnv } from "../helpers/git-identity.js";

const ALL = fs
  .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", "commands.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { line: string; expect: string })
  .filter((c) => c.expect === "deny" && /\bgit\b|\.git\/hooks|\$a|-\{n,m\}/.test(c.line));

/** Why a blocked line is not run here. */
const SKIPPED: [RegExp, string][] = [
  [/\bsudo\b|\bsu -c\b/, "runs as another user"],
  [/HUSKY|SKIP=/, "turns off husky or the pre-commit framework, not installed in the scratch repository"],
  [/git (merge|rebase|am) /, "needs a branch or a patch to merge, rebase or apply"],
  [/--config-env/, "names an environment variable the line does not set"],
  [
    /--unset core|--remove-section|config --edit/,
    "removes or edits settings the scratch repository does not have",
  ],
  [/install -m 755 \/tmp\/noop/, "needs /tmp/noop"],
  [/filter-branch/, "needs the file its filter removes"],
  [/:master/, "the scratch remote has no master"],
  [/\.github|\.gitlab-ci/, "not a git line (a CI file)"],
  [/setsid -f/, "forks git into the background: its commit lands after the line returns"],
];
const skipOf = (line: string) => SKIPPED.find(([re]) => re.test(line))?.[1];

const env = gitEnv;
const REFUSE = "#!/bin/sh\necho 'this hook refuses everything' >&2\nexit 1\n";
let repo: string;
let remote: string;
let base: string;
let theirs: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" }).trim();
const remoteRef = (ref: string) =>
  spawnSync("git", ["rev-parse", "--verify", "-q", ref], { cwd: remote, encoding: "utf8" }).stdout.trim();
const run = (line: string) =>
  spawnSync("bash", ["-c", line], { cwd: repo, env, encoding: "utf8", timeout: 120_000 });
const hook = (name: string) => path.join(repo, ".git", "hooks", name);
const plainCommit = () => spawnSync("git", ["commit", "-qm", "plain"], { cwd: repo, env }).status === 0;

beforeAll(() => {
  repo = tempDir("mcq-corpus-real-");
  remote = tempDir("mcq-corpus-real-remote-");
  execFileSync("git", ["init", "-q", "--bare", "-b", "main"], { cwd: remote });
  // The remote's default branch is another one, as on a server where main is not the default: its main can
  // be deleted.
  execFileSync("git", ["symbolic-ref", "HEAD", "refs/heads/default"], { cwd: remote });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "t");
  git("config", "user.email", "t@example.com");
  git("config", "alias.ci-no-verify", "commit --no-verify");
  fs.mkdirSync(path.join(repo, "sub"));
  fs.writeFileSync(path.join(repo, "sub", "keep"), "");
  fs.writeFileSync(path.join(repo, "README.md"), "# demo\n");
  git("add", "-A");
  git("commit", "-qm", "base");
  base = git("rev-parse", "HEAD");
  git("remote", "add", "origin", remote);
  git("push", "-q", "-u", "origin", "main");
  fs.writeFileSync(path.join(repo, "THEIRS.md"), "their work\n");
  git("add", "THEIRS.md");
  git("commit", "-qm", "theirs");
  theirs = git("rev-parse", "HEAD");
  git("push", "-q", "origin", "main");
  git("reset", "-q", "--hard", base);
  git("checkout", "-q", "-b", "feature");
  git("checkout", "-q", "main");
  fs.writeFileSync(hook("pre-commit"), REFUSE, { mode: 0o755 });
});

/** A change staged, so that a commit has something to hold. */
function stage(text: string) {
  fs.writeFileSync(path.join(repo, "work.txt"), `${text}\n`);
  git("add", "work.txt");
}

function restore() {
  fs.rmSync(hook("pre-commit"), { force: true });
  fs.writeFileSync(hook("pre-commit"), REFUSE, { mode: 0o755 });
  spawnSync("git", ["config", "--unset", "core.hooksPath"], { cwd: repo });
  git("reset", "-q", "--hard", base);
  git("checkout", "-q", "main");
}

describe("the earlier corpus' blocked git lines do their harm when run", () => {
  it("runs most of them; the rest say why not", () => {
    const skipped = ALL.filter((c) => skipOf(c.line));
    console.log(`corpus for real: ${ALL.length - skipped.length} run, ${skipped.length} skipped`);
    expect(ALL.length - skipped.length).toBeGreaterThanOrEqual(70);
  });

  for (const c of ALL.filter((x) => !skipOf(x.line))) {
    it(c.line, () => {
      const line = c.line;
      try {
        if (
          /\.git\/hooks|\$H\/|chmod -x|core\.hooks[pP]ath \/dev\/null|hookspath x/.test(line) &&
          !/\bcommit\b -|\bci\b/.test(line)
        ) {
          // The hook is gone, empty, not executable, replaced, or bypassed by configuration: a plain commit passes.
          stage(line);
          expect(plainCommit()).toBe(false);
          const r = run(line);
          expect(r.status, r.stderr).toBe(0);
          expect(plainCommit()).toBe(true);
        } else if (/reflog expire/.test(line)) {
          expect(git("reflog").length).toBeGreaterThan(0);
          expect(run(line).status).toBe(0);
          expect(git("reflog")).toBe("");
        } else if (/push .*--delete main/.test(line)) {
          expect(run(line).status).toBe(0);
          expect(remoteRef("main")).toBe("");
          execFileSync("git", ["update-ref", "refs/heads/main", theirs], { cwd: remote });
        } else if (/push/.test(line) && /no-verif/.test(line)) {
          fs.writeFileSync(hook("pre-push"), REFUSE, { mode: 0o755 });
          // An earlier line of this kind pushed its own feature commit: made in another second, this one would
          // not fast-forward it. The remote starts without the branch, as for the first line.
          spawnSync("git", ["update-ref", "-d", "refs/heads/feature"], { cwd: remote });
          git("checkout", "-q", "feature");
          stage("feature work");
          git("commit", "-qm", "feature", "--no-verify");
          const local = git("rev-parse", "HEAD");
          expect(spawnSync("git", ["push", "origin", "feature"], { cwd: repo, env }).status).not.toBe(0);
          const r = run(line);
          fs.rmSync(hook("pre-push"));
          expect(r.status, r.stderr).toBe(0);
          expect(remoteRef("feature")).toBe(local);
        } else if (/push/.test(line)) {
          execFileSync("git", ["update-ref", "refs/heads/main", theirs], { cwd: remote });
          git("fetch", "-q", "origin");
          git("reset", "-q", "--hard", theirs);
          git("reset", "-q", "--hard", base);
          stage("rewritten");
          git("commit", "-qm", "mine", "--no-verify");
          git("branch", "-q", "--set-upstream-to=origin/main");
          const local = git("rev-parse", "HEAD");
          const r = run(line);
          expect(r.status, r.stderr).toBe(0);
          expect(remoteRef("main")).toBe(local);
        } else {
          // A commit past a pre-commit hook that refuses everything.
          stage(line);
          const before = git("rev-parse", "HEAD");
          expect(plainCommit()).toBe(false);
          const r = run(line);
          expect(r.status, r.stderr).toBe(0);
          expect(git("rev-parse", "HEAD")).not.toBe(before);
        }
      } finally {
        restore();
      }
    });
  }
});
