/**
 * The writes corpus (corpus/writes.jsonl): what the red team found allowed where the equivalent Edit is
 * stopped, by class, with benign look-alikes: a write whose target is only known when the line runs (the
 * repository's folders from `git rev-parse`), protected files changed through git (`rm`, `mv`, `checkout`,
 * `restore`, `apply`), `patch` and recursive copies or moves, and the content of shell writes (a suppression,
 * a secret, a weakened config). Every line goes through policy_check_command (the real server) and the real
 * Claude Code hook process (`node dist/bundle/hook.cjs claude-code`, what `hook install claude-code` writes), in a repository holding what the lines touch.
 * The harm is real: the first lines are run with bash and the hook file is overwritten.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

interface Line {
  line: string;
  expect: "allow" | "ask" | "deny";
  class: string;
  bash: string;
}

const CORPUS: Line[] = fs
  .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", "writes.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line);

const PATCH = (file: string, from: string, to: string) =>
  `--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${from}\n+${to}\n`;

/**
 * A repository on `main` holding what the lines touch, with a branch `side` (other hook settings) and a
 * refusing pre-commit hook.
 */
function makeProject(): string {
  const project = tempDir("mcq-writes-");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: project, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "t");
  const files: [string, string][] = [
    [".claude/settings.json", "{}\n"],
    [".github/workflows/ci.yml", "on: push\n"],
    [".mcp-code-quality/policy.yaml", "policies: []\n"],
    ["pyproject.toml", '[tool.ruff]\nselect=["E","F"]\n'],
    ["src/m.py", "x = 1\n"],
    ["build/out.txt", "built\n"],
    ["fake/.claude/settings.json", '{"hooks":{}}\n'],
    ["lax.toml", "[tool.ruff]\nselect=[]\n"],
    ["ok.toml", '[tool.ruff]\nselect=["E","F"]\n'],
    ["s.diff", PATCH(".claude/settings.json", "{}", '{"hooks":{}}')],
    ["ok.diff", PATCH("src/m.py", "x = 1", "x = 2")],
  ];
  for (const [f, body] of files) {
    fs.mkdirSync(path.dirname(path.join(project, f)), { recursive: true });
    fs.writeFileSync(path.join(project, f), body);
  }
  git("add", "-A");
  git("commit", "-qm", "init");
  // `side` holds other hook settings: checking its files out rewrites them (an unchanged file is no write).
  git("checkout", "-qb", "side");
  fs.writeFileSync(path.join(project, ".claude/settings.json"), '{"hooks":{}}\n');
  git("commit", "-qam", "side");
  git("checkout", "-q", "main");
  fs.writeFileSync(path.join(project, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
  return project;
}

let server: Connected;
let project: string;

beforeAll(async () => {
  project = makeProject();
  server = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
});
afterAll(async () => server?.close());

const decisionOf = (status: unknown) => (status === "blocked" ? "deny" : status === "warn" ? "ask" : "allow");

/** The installed hook's answer: the real process, as Claude Code runs it. */
function hookDecision(line: string): string {
  const run = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, "dist", "bundle", "hook.cjs"), "claude-code"],
    {
      input: JSON.stringify({ tool_name: "Bash", cwd: project, tool_input: { command: line } }),
      env: { ...process.env, CLAUDE_PROJECT_DIR: project, HOME: os.homedir() },
      encoding: "utf8",
    },
  );
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim() === "" ? "allow" : JSON.parse(run.stdout).hookSpecificOutput.permissionDecision;
}

describe("the writes corpus", () => {
  it("policy_check_command gives every line its decision", async () => {
    const wrong: string[] = [];
    for (const c of CORPUS) {
      const r = await server.call("policy_check_command", { command: c.line, cwd: project });
      const got = decisionOf(r.status);
      if (got !== c.expect)
        wrong.push(`${c.line} → ${got} (expected ${c.expect}): ${JSON.stringify(r.violations)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("the Claude Code hook gives every line the same decision", () => {
    const wrong = CORPUS.map((c) => ({ c, got: hookDecision(c.line) }))
      .filter(({ c, got }) => got !== c.expect)
      .map(({ c, got }) => `${c.line} → ${got} (expected ${c.expect})`);
    expect(wrong).toEqual([]);
  }, 600_000);

  it("the hook lines do their harm when bash runs them", () => {
    for (const c of CORPUS.filter((l) => l.class === "dynamic_target" && l.expect === "deny").slice(0, 3)) {
      const scratch = makeProject();
      const hook = path.join(scratch, ".git", "hooks", "pre-commit");
      execFileSync("bash", ["-c", c.line], { cwd: scratch });
      expect(fs.readFileSync(hook, "utf8"), c.line).toBe("exit 0\n");
    }
  });
});
