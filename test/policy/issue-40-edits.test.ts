/**
 * The edit classes of issue 40, each through policy_check_edit (the real server), the Claude Code hook's
 * Write decision and the git pre-commit hook (one real commit of all of them: these are content rules,
 * which the pre-commit hook judges too):
 * - broad suppressions by each tool's grammar (case, spacing, synonyms) and narrow look-alikes
 *   (corpus/edits-40.jsonl, class suppression);
 * - weakened lint and type-check configurations and benign config edits (class config);
 * - the secrets corpus (corpus/secrets.jsonl): real-shaped secrets and placeholders, each written to a file.
 * Figures per class are printed: no false allow, at most 2% false blocks, the same answer on every surface.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { gitEnv } from "../helpers/git-identity.js";

interface Entry {
  path: string;
  before?: string;
  after: string;
  expect: "allow" | "deny";
  class: string;
}
const read = (name: string) =>
  fs
    .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", name), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);
const CORPUS: Entry[] = [
  ...(read("edits-40.jsonl") as unknown as Entry[]),
  ...read("secrets.jsonl").map((s, i) => ({
    path: `secrets/${String(i).padStart(3, "0")}/${s.path}`,
    after: s.text as string,
    expect: (s.expect === "secret" ? "deny" : "allow") as Entry["expect"],
    class: "secret",
  })),
];

const env = gitEnv;
let repo: string;
let server: Connected;

beforeAll(async () => {
  repo = tempDir("mcq-issue40-edits-");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  for (const e of CORPUS) {
    if (e.before === undefined) continue;
    fs.mkdirSync(path.dirname(path.join(repo, e.path)), { recursive: true });
    fs.writeFileSync(path.join(repo, e.path), e.before);
  }
  fs.writeFileSync(path.join(repo, "README.md"), "# edits\n");
  git("add", "-A");
  git("commit", "-qm", "before");
  server = await connectStdio({ args: ["--allowed-paths", repo], cwd: repo });
});
afterAll(async () => server?.close());

const decisionOf = (status: unknown) => (status === "blocked" ? "deny" : status === "warn" ? "ask" : "allow");

function report(surface: string, got: Map<Entry, string>) {
  const byClass: Record<
    string,
    { stop: number; benign: number; false_allows: number; false_blocks: number }
  > = {};
  for (const [e, d] of got) {
    const f = (byClass[e.class] ??= { stop: 0, benign: 0, false_allows: 0, false_blocks: 0 });
    if (e.expect === "allow") {
      f.benign++;
      if (d !== "allow") f.false_blocks++;
    } else {
      f.stop++;
      if (d === "allow") f.false_allows++;
    }
  }
  console.log(`${surface} issue-40 edits: ${JSON.stringify(byClass)}`);
  const wrong = [...got]
    .filter(([e, d]) => d !== e.expect)
    .map(([e, d]) => `${e.path}: ${d} (expected ${e.expect})`);
  expect(wrong).toEqual([]);
  for (const f of Object.values(byClass)) {
    expect(f.stop).toBeGreaterThanOrEqual(20);
    expect(f.benign).toBeGreaterThanOrEqual(10);
  }
}

describe("the issue-40 edit classes", () => {
  it("policy_check_edit", async () => {
    const got = new Map<Entry, string>();
    for (const e of CORPUS) {
      const r = await server.call("policy_check_edit", { path: path.join(repo, e.path), after: e.after });
      got.set(e, decisionOf(r.status));
    }
    report("policy_check_edit", got);
  });

  it("the Claude Code hook's Write decision", async () => {
    const { answerHook } = await import(path.join(REPO_ROOT, "dist", "hooks", "claude-code.js"));
    const got = new Map<Entry, string>();
    for (const e of CORPUS) {
      const payload = JSON.stringify({
        tool_name: "Write",
        cwd: repo,
        tool_input: { file_path: path.join(repo, e.path), content: e.after },
      });
      const out = (await answerHook(payload, { CLAUDE_PROJECT_DIR: repo, HOME: os.homedir() })) as string;
      got.set(e, out === "" ? "allow" : JSON.parse(out).hookSpecificOutput.permissionDecision);
    }
    report("claude-code hook", got);
  });

  it("the pre-commit hook, in one real commit of every edit", () => {
    for (const e of CORPUS) {
      fs.mkdirSync(path.dirname(path.join(repo, e.path)), { recursive: true });
      fs.writeFileSync(path.join(repo, e.path), e.after);
    }
    execFileSync("git", ["add", "-A"], { cwd: repo, env });
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "dist", "hook.js"), "pre-commit"], {
      cwd: repo,
      env,
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(r.status, r.stderr).toBe(1);
    const got = new Map<Entry, string>();
    for (const e of CORPUS) {
      const lines = r.stderr.split("\n").filter((l) => l.startsWith(`${e.path}: `));
      got.set(
        e,
        lines.some((l) => l.includes("[block]") || l.includes("[confirm]"))
          ? "deny"
          : lines.some((l) => l.includes("[warn]"))
            ? "ask"
            : "allow",
      );
    }
    report("pre-commit hook", got);
  });
});
