/**
 * The command corpus of issue 40 (corpus/issue-40.jsonl): per class (deleting the home folder or the
 * project spelled other ways, bypassing hooks through an interpreter or a config written in the same line,
 * force pushes of HEAD/@/patterns, download-and-run, exfiltration, world-writable modes, reads and writes of
 * protected files in inline code) at least 20 lines meant to be stopped and 10 benign look-alikes, as an
 * agent types them, each with what bash would do. Every line goes through policy_check_command (the real
 * server) and the Claude Code hook's decision, in a repository on `main` holding the files the lines touch.
 * Figures per class are printed (docs/policy.md quotes them): no false allow, at most 2% false blocks.
 */
import { execFileSync } from "node:child_process";
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
  .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", "issue-40.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line);

let server: Connected;
let project: string;
const text = (c: Line) => c.line.replaceAll("{project}", project);

beforeAll(async () => {
  project = tempDir("mcq-issue40-");
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: project });
  const files: [string, string][] = [
    [".github/workflows/ci.yml", "on: push\n"],
    [".husky/pre-commit", "npx lint-staged\n"],
    [".claude/settings.json", "{}\n"],
    ["package-lock.json", '{"lockfileVersion": 3}\n'],
    [".env", "API_TOKEN=placeholder\n"],
    [".env.example", "API_TOKEN=\n"],
    ["src/app.py", "x = 1\n"],
  ];
  for (const [f, body] of files) {
    fs.mkdirSync(path.dirname(path.join(project, f)), { recursive: true });
    fs.writeFileSync(path.join(project, f), body);
  }
  fs.writeFileSync(path.join(project, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  server = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
});
afterAll(async () => server?.close());

const decisionOf = (status: unknown) => (status === "blocked" ? "deny" : status === "warn" ? "ask" : "allow");

function figures(results: { c: Line; got: string }[]) {
  const byClass: Record<
    string,
    { stop: number; benign: number; false_allows: number; false_blocks: number }
  > = {};
  for (const { c, got } of results) {
    const f = (byClass[c.class] ??= { stop: 0, benign: 0, false_allows: 0, false_blocks: 0 });
    if (c.expect === "allow") {
      f.benign++;
      if (got !== "allow") f.false_blocks++;
    } else {
      f.stop++;
      if (got === "allow") f.false_allows++;
    }
  }
  return byClass;
}

describe("the issue-40 command corpus", () => {
  it("holds at least 20 lines to stop and 10 benign look-alikes per class", () => {
    const counts = figures(CORPUS.map((c) => ({ c, got: c.expect })));
    for (const [cls, f] of Object.entries(counts)) {
      if (cls === "protected_reads") continue; // 10 reads and 10 writes of protected files in inline code
      expect(f.stop, cls).toBeGreaterThanOrEqual(20);
      expect(f.benign, cls).toBeGreaterThanOrEqual(10);
    }
  });

  const check = async (surface: "tool" | "hook") => {
    const { answerHook } = await import(path.join(REPO_ROOT, "dist", "hooks", "claude-code.js"));
    const results: { c: Line; got: string }[] = [];
    for (const c of CORPUS) {
      if (surface === "tool") {
        const r = await server.call("policy_check_command", { command: text(c), cwd: project });
        results.push({ c, got: decisionOf(r.status) });
      } else {
        const payload = JSON.stringify({ tool_name: "Bash", cwd: project, tool_input: { command: text(c) } });
        const out = (await answerHook(payload, {
          CLAUDE_PROJECT_DIR: project,
          HOME: os.homedir(),
        })) as string;
        results.push({
          c,
          got: out === "" ? "allow" : JSON.parse(out).hookSpecificOutput.permissionDecision,
        });
      }
    }
    const byClass = figures(results);
    console.log(`${surface} issue-40 corpus: ${JSON.stringify(byClass)}`);
    const benign = results.filter((r) => r.c.expect === "allow");
    expect(results.filter((r) => r.c.expect !== "allow" && r.got === "allow").map((r) => r.c.line)).toEqual(
      [],
    );
    expect(benign.filter((r) => r.got !== "allow").length).toBeLessThanOrEqual(
      Math.floor(benign.length * 0.02),
    );
    expect(
      results
        .filter((r) => r.got !== r.c.expect)
        .map((r) => `${r.c.line} → ${r.got} (expected ${r.c.expect})`),
    ).toEqual([]);
    return results;
  };

  it("policy_check_command: no false allow, at most 2% false blocks, every line its decision", async () => {
    await check("tool");
  });

  it("the Claude Code hook's decision is the same on every line", async () => {
    await check("hook");
  });

  it("a line over the size cap is asked at once by policy_check_command too, whatever it holds", async () => {
    for (const size of [70_000, 4 * 1024 * 1024]) {
      const line = `git commit --no-verify -m x; ${"echo ok; ".repeat(Math.ceil(size / 9))}`;
      const r = await server.call("policy_check_command", { command: line, cwd: project });
      expect(r.status, String(size)).toBe("warn");
      expect(JSON.stringify(r.violations)).toContain("characters long");
    }
  });
});
