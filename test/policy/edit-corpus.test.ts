/**
 * The edit corpus (corpus/edits.jsonl): edits of protected files (hooks, agent settings, CI, lock files,
 * generated files, one over 2 MiB known only by its header, hash manifests), broad suppressions, weakened
 * configs, secrets the old regexes let through, and the same protected files reached through a symlink, a
 * dangling symlink, a hard link, a linked folder or a diff's headers; and benign look-alikes. The allowed
 * root is a folder above the repository (so protected paths must be found from the repository's root). Each
 * goes through policy_check_edit (the real server), the Claude Code hook's decision (a Write payload), and
 * the git pre-commit hook in a real `git commit` of all of them at once.
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
  before_big?: { header: string; bytes: number };
  after?: string;
  after_append?: string;
  diff?: string;
  link?: { kind: "symlink" | "hardlink" | "dirlink"; to: string; dir?: string };
  expect: "allow" | "ask" | "deny";
  /** The pre-commit hook's answer when it differs: it judges content; protected paths it asks a human to confirm. */
  precommit?: "allow" | "ask" | "deny";
  surfaces?: ("tool" | "hook" | "precommit")[];
  note?: string;
}

const CORPUS: Entry[] = fs
  .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", "edits.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Entry);

const surfaces = (e: Entry) => e.surfaces ?? ["tool", "hook", "precommit"];
const env = gitEnv;

function big(spec: { header: string; bytes: number }): string {
  const line = "row = 'abcdefghijklmnopqrstuvwxyz0123456789';\n";
  return spec.header + line.repeat(Math.ceil(spec.bytes / line.length));
}
const beforeOf = (e: Entry) => (e.before_big ? big(e.before_big) : e.before);
const afterOf = (e: Entry) => (e.before_big ? big(e.before_big) + (e.after_append ?? "") : (e.after ?? ""));

let workspace: string;
let repo: string;
let server: Connected;

beforeAll(async () => {
  workspace = fs.realpathSync(tempDir("mcq-edit-corpus-"));
  repo = path.join(workspace, "repo");
  fs.mkdirSync(repo);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  fs.mkdirSync(path.join(repo, ".github", "workflows"), { recursive: true });
  fs.writeFileSync(path.join(repo, ".github", "workflows", "ci.yml"), "on: push\n");
  for (const e of CORPUS) {
    const before = beforeOf(e);
    if (before === undefined || e.link) continue;
    fs.mkdirSync(path.dirname(path.join(repo, e.path)), { recursive: true });
    fs.writeFileSync(path.join(repo, e.path), before);
  }
  git("add", "-A");
  git("commit", "-qm", "before");
  for (const e of CORPUS) {
    if (!e.link) continue;
    const at = path.join(repo, e.link.dir ?? e.path);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    if (e.link.kind === "hardlink") fs.linkSync(path.join(repo, e.link.to), at);
    else fs.symlinkSync(e.link.to, at);
  }
  server = await connectStdio({ args: ["--allowed-paths", workspace], cwd: workspace });
});
afterAll(async () => server?.close());

const decisionOf = (status: unknown) => (status === "blocked" ? "deny" : status === "warn" ? "ask" : "allow");

describe("the edit corpus", () => {
  it("policy_check_edit gives every edit its decision (the allowed root is above the repository)", async () => {
    const wrong: string[] = [];
    for (const e of CORPUS.filter((x) => surfaces(x).includes("tool"))) {
      const file = path.join(repo, e.path);
      // Over the argument cap, a large file's edit is given as a diff of the lines it adds.
      const args = e.diff
        ? { path: file, diff: e.diff }
        : e.before_big
          ? {
              path: file,
              diff: `--- a/${e.path}\n+++ b/${e.path}\n@@ -1,1 +1,2 @@\n ${e.before_big.header.trim()}\n+${(e.after_append ?? "").trim() || "x"}\n`,
            }
          : { path: file, after: afterOf(e) };
      const r = await server.call("policy_check_edit", args);
      const got = decisionOf(r.status);
      if (got !== e.expect)
        wrong.push(`${e.path}: ${got} (expected ${e.expect}) ${JSON.stringify(r.violations)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("the Claude Code hook's Write decision is the same", async () => {
    const { answerHook } = await import(path.join(REPO_ROOT, "dist", "hooks", "claude-code.js"));
    const wrong: string[] = [];
    for (const e of CORPUS.filter((x) => surfaces(x).includes("hook"))) {
      const payload = JSON.stringify({
        tool_name: "Write",
        cwd: repo,
        tool_input: { file_path: path.join(repo, e.path), content: afterOf(e) },
      });
      const out = (await answerHook(payload, {
        CLAUDE_PROJECT_DIR: workspace,
        HOME: os.homedir(),
      })) as string;
      const got = out === "" ? "allow" : JSON.parse(out).hookSpecificOutput.permissionDecision;
      if (got !== e.expect) wrong.push(`${e.path}: ${got} (expected ${e.expect}) ${out.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("the pre-commit hook, in one real git commit of every edit, refuses each file as the corpus says (a protected path: confirm)", () => {
    const entries = CORPUS.filter((x) => surfaces(x).includes("precommit"));
    for (const e of entries) {
      fs.mkdirSync(path.dirname(path.join(repo, e.path)), { recursive: true });
      fs.writeFileSync(path.join(repo, e.path), afterOf(e));
    }
    execFileSync("git", ["add", "--", ...entries.map((e) => e.path)], { cwd: repo, env });
    const hook = (extra: Record<string, string> = {}) =>
      spawnSync(process.execPath, [path.join(REPO_ROOT, "dist", "hook.js"), "pre-commit"], {
        cwd: repo,
        env: { ...env, ...extra },
        encoding: "utf8",
        timeout: 300_000,
      });
    const answer = (stderr: string, e: Entry) => {
      const lines = stderr
        .split("\n")
        .filter((l) => l.startsWith(`${e.path}: `) || l.startsWith(`${e.path} (`));
      const got = lines.some((l) => l.includes("[block]"))
        ? "deny"
        : lines.some((l) => l.includes("[warn]") || l.includes("[confirm]"))
          ? "ask"
          : "allow";
      return { got, lines };
    };
    const r = hook();
    expect(r.status, r.stderr).toBe(1);
    const wrong: string[] = [];
    for (const e of entries) {
      const want = e.precommit ?? e.expect;
      const { got, lines } = answer(r.stderr, e);
      if (got !== want) wrong.push(`${e.path}: ${got} (expected ${want}) ${lines.join(" | ")}`);
    }
    expect(wrong).toEqual([]);
    // Confirmed by the human: the protected paths pass, the content the hook judges still refuses.
    const confirmed = hook({ MCQ_ALLOW_PROTECTED: "1" });
    const still: string[] = [];
    for (const e of entries) {
      const want =
        (e.precommit ?? e.expect) === "ask" && e.precommit === "ask" ? "allow" : (e.precommit ?? e.expect);
      const { got, lines } = answer(confirmed.stderr, e);
      if (got !== want) still.push(`${e.path}: ${got} (expected ${want}) ${lines.join(" | ")}`);
    }
    expect(still).toEqual([]);
  });
});
