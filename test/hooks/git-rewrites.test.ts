/**
 * git commands that rewrite work-tree files the line does not name (`reset --hard REV`, `stash pop|apply`,
 * `checkout REV -- paths`, `restore --source`, `read-tree -u`, `checkout-index`, `worktree add`), judged as
 * writes of the files git says they change, with the content they get: in a real repository whose history
 * holds a lax ruff config and another CI workflow (HEAD~1), a stash of a lax config and a new secret, and an
 * index holding a lax config (`update-index --cacheinfo`). Each line gets its decision from
 * policy_check_command (the real server over MCP) and the installed Claude Code hook; each denied line is
 * then run with bash and really rewrites the file; benign look-alikes stay allowed (or asked, as before).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { gitEnv } from "../helpers/git-identity.js";

const env = gitEnv;
const STRICT = '[tool.ruff.lint]\nselect = ["E", "F", "B"]\n';
const LAX = "[tool.ruff.lint]\nselect = []\n";
const CI = "on: push\njobs: {}\n";
const CI_OLD = "on: workflow_dispatch\njobs: {}\n";
const SECRET = 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ha4Lm2b"\n';

let top: string;
let repo: string;
let base: string;
let hookCommand: string;
let server: Connected;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" }).trim();
const read = (f: string) => fs.readFileSync(path.join(repo, f), "utf8");
const write = (f: string, text: string) => fs.writeFileSync(path.join(repo, f), text);

/** HEAD (strict config, CI on push), a clean work tree and index, no stash, no other worktree. */
function restore(): void {
  fs.rmSync(path.join(top, "wt"), { recursive: true, force: true });
  git("worktree", "prune");
  git("checkout", "-qf", "main");
  git("reset", "-q", "--hard", base);
  git("clean", "-qfd");
  git("stash", "clear");
}

/** The states the lines start from. */
const SETUPS: Record<string, () => void> = {
  clean: () => undefined,
  /** A stash that loosens the config and adds a secret file (`stash -u`). */
  laxStash: () => {
    write("pyproject.toml", LAX);
    write("settings.py", SECRET);
    git("stash", "-q", "-u");
  },
  /** A stash of a README change only. */
  readmeStash: () => {
    write("README.md", "# demo, stashed\n");
    git("stash", "-q");
  },
  /** The index holds a lax config no edit made (plumbing); the work tree the strict one. */
  laxIndex: () => {
    fs.writeFileSync(path.join(top, "lax.toml"), LAX);
    const blob = git("hash-object", "-w", path.join(top, "lax.toml"));
    git("update-index", "--cacheinfo", `100644,${blob},pyproject.toml`);
  },
  dirtyReadme: () => write("README.md", "# demo, edited\n"),
};

interface Case {
  line: string;
  setup: keyof typeof SETUPS;
  expect: "allow" | "ask" | "deny";
  /** Policies the server must name. */
  policies?: string[];
  /** After a real run with bash: the file and the text it now holds. */
  real?: [string, string];
}

const CASES: Case[] = [
  {
    line: "git reset --hard HEAD~1",
    setup: "clean",
    expect: "deny",
    policies: ["config.weakened", "protected.ci"],
    real: ["pyproject.toml", LAX],
  },
  {
    line: "git checkout HEAD~1 -- pyproject.toml",
    setup: "clean",
    expect: "deny",
    policies: ["config.weakened"],
    real: ["pyproject.toml", LAX],
  },
  {
    line: "git checkout HEAD~1 -- .",
    setup: "clean",
    expect: "deny",
    policies: ["config.weakened", "protected.ci"],
    real: [".github/workflows/ci.yml", CI_OLD],
  },
  {
    line: "git restore --source=HEAD~1 .github",
    setup: "clean",
    expect: "deny",
    policies: ["protected.ci"],
    real: [".github/workflows/ci.yml", CI_OLD],
  },
  {
    line: "git read-tree -u --reset HEAD~1",
    setup: "clean",
    expect: "deny",
    policies: ["config.weakened", "protected.ci"],
    real: ["pyproject.toml", LAX],
  },
  {
    line: "git stash pop",
    setup: "laxStash",
    expect: "deny",
    policies: ["config.weakened", "secrets.in_edit"],
    real: ["pyproject.toml", LAX],
  },
  {
    line: "git stash apply 0",
    setup: "laxStash",
    expect: "deny",
    policies: ["config.weakened", "secrets.in_edit"],
    real: ["settings.py", SECRET],
  },
  {
    line: "git checkout-index -f -a",
    setup: "laxIndex",
    expect: "deny",
    policies: ["config.weakened"],
    real: ["pyproject.toml", LAX],
  },
  {
    line: "git checkout -- pyproject.toml",
    setup: "laxIndex",
    expect: "deny",
    policies: ["config.weakened"],
    real: ["pyproject.toml", LAX],
  },
  {
    // A new work tree inside the allowed roots is written like any folder (its lax config is new there).
    line: "git worktree add -q ../wt HEAD~1",
    setup: "clean",
    expect: "deny",
    policies: ["config.weakened"],
  },
  // Benign: what they write is harmless, or nothing changes.
  { line: "git checkout HEAD~1 -- README.md", setup: "clean", expect: "allow" },
  { line: "git checkout HEAD -- pyproject.toml", setup: "clean", expect: "allow" },
  { line: "git stash pop", setup: "readmeStash", expect: "allow" },
  { line: "git checkout-index -a", setup: "laxIndex", expect: "allow" },
  { line: "git restore --staged pyproject.toml", setup: "laxIndex", expect: "allow" },
  { line: "git worktree add -q ../wt HEAD", setup: "clean", expect: "allow" },
  // The stash the line makes of the work tree gives it back unchanged.
  { line: "git stash && git stash pop", setup: "dirtyReadme", expect: "allow" },
  // As before: discarding work is asked; an index the line changes first is not read before it runs.
  { line: "git reset --hard", setup: "dirtyReadme", expect: "ask" },
  { line: "git add -A && git checkout-index -f -a", setup: "dirtyReadme", expect: "ask" },
];

beforeAll(async () => {
  top = tempDir("mcq-git-rewrites-");
  repo = path.join(top, "repo");
  fs.mkdirSync(path.join(repo, ".github", "workflows"), { recursive: true });
  git("init", "-q", "-b", "main");
  write("README.md", "# demo\n");
  write("pyproject.toml", LAX);
  write(".github/workflows/ci.yml", CI_OLD);
  git("add", "-A");
  git("commit", "-qm", "lax config, CI by hand", "--no-verify");
  write("README.md", "# demo, tightened\n");
  write("pyproject.toml", STRICT);
  write(".github/workflows/ci.yml", CI);
  git("commit", "-qam", "strict config, CI on push", "--no-verify");
  base = git("rev-parse", "HEAD");
  const { installClaudeCode } = await import("../../src/hooks/install.js");
  installClaudeCode(repo, `'${process.execPath}' '${path.join(REPO_ROOT, "dist", "hook.js")}' claude-code`);
  fs.writeFileSync(path.join(repo, ".git", "info", "exclude"), ".claude/\n");
  const settings = JSON.parse(read(".claude/settings.json"));
  hookCommand = settings.hooks.PreToolUse[0].hooks[0].command as string;
  server = await connectStdio({ args: ["--allowed-paths", top], cwd: repo });
}, 120_000);
afterAll(async () => server?.close());

const decisionOf = (status: unknown) => (status === "blocked" ? "deny" : status === "warn" ? "ask" : "allow");

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

describe("git commands that rewrite work-tree files from a revision, a stash or the index", () => {
  for (const c of CASES)
    it(`${c.line} (${c.setup}) → ${c.expect}`, async () => {
      restore();
      SETUPS[c.setup]?.();
      const r = await server.call("policy_check_command", { command: c.line, cwd: repo });
      const ids = ((r.violations ?? []) as { policy_id: string }[]).map((v) => v.policy_id);
      expect(decisionOf(r.status), JSON.stringify(r.violations)).toBe(c.expect);
      for (const p of c.policies ?? []) expect(ids).toContain(p);
      expect(claude(c.line)).toBe(c.expect);
      if (c.real) {
        // What the check judged is what git does.
        const run = spawnSync("bash", ["-c", c.line], { cwd: repo, env, encoding: "utf8" });
        expect(run.status, run.stderr).toBe(0);
        expect(read(c.real[0])).toBe(c.real[1]);
      }
      restore();
    }, 120_000);

  it("policy_check_command names the files a rewrite writes", async () => {
    restore();
    const r = await server.call("policy_check_command", { command: "git reset --hard HEAD~1", cwd: repo });
    const writes = ((r.violations ?? []) as { matched?: string }[]).map((v) => v.matched ?? "").join("\n");
    expect(writes).toContain("pyproject.toml");
    expect(writes).toContain(".github/workflows/ci.yml");
    expect(writes).not.toContain("README.md: ");
  }, 60_000);
});
