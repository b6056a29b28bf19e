/**
 * The scripts corpus (corpus/scripts.jsonl): a command that runs a project file or a named script (`sh
 * ship.sh`, `./ship.sh`, `source`, `npm run`, `yarn X`, `make X`, `just X`, an interpreter's script) is
 * judged by what that file holds, read from the allowed paths; what cannot be read (a dynamic name, a file
 * outside, a binary, too big, too deep) is asked; interpreter escape hatches (awk, vim/ex, expect) are read
 * for the shell text they run. Every line goes through policy_check_command (the real server) and the
 * Claude Code hook's decision; then the harmful ones whose program is installed run for real with bash in a
 * repository whose pre-commit hook refuses everything, and each commits past it (or empties the hook).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { writeScriptFixture } from "./script-fixture.js";
import { gitEnv } from "../helpers/git-identity.js";

interface Line {
  line: string;
  expect: "allow" | "ask" | "deny";
  class: string;
  bash: string;
}

const CORPUS: Line[] = fs
  .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", "scripts.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line);

const REFUSE = "#!/bin/sh\necho 'this hook refuses everything' >&2\nexit 1\n";
const env = gitEnv;

/** A repository on `main` with the fixture committed and a pre-commit hook that refuses everything. */
function scratch(outside: string): string {
  const dir = tempDir("mcq-scripts-");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env });
  git("init", "-q", "-b", "main");
  writeScriptFixture(dir, outside);
  git("add", "-A");
  git("commit", "-qm", "base");
  fs.writeFileSync(path.join(dir, ".git", "hooks", "pre-commit"), REFUSE, { mode: 0o755 });
  return dir;
}

let server: Connected;
let project: string;
let outside: string;
const text = (c: Line) => c.line.replaceAll("{outside}", outside);
const decisionOf = (status: unknown) => (status === "blocked" ? "deny" : status === "warn" ? "ask" : "allow");

beforeAll(async () => {
  outside = tempDir("mcq-scripts-outside-");
  project = scratch(outside);
  server = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
});
afterAll(async () => server?.close());

describe("the scripts corpus", () => {
  const check = async (surface: "tool" | "hook") => {
    const { answerHook } = await import(path.join(REPO_ROOT, "dist", "hooks", "claude-code.js"));
    const wrong: string[] = [];
    const figures: Record<
      string,
      { stop: number; benign: number; false_allows: number; false_blocks: number }
    > = {};
    for (const c of CORPUS) {
      let got: string;
      if (surface === "tool") {
        const r = await server.call("policy_check_command", { command: text(c), cwd: project });
        got = decisionOf(r.status);
      } else {
        const payload = JSON.stringify({ tool_name: "Bash", cwd: project, tool_input: { command: text(c) } });
        const out = (await answerHook(payload, {
          CLAUDE_PROJECT_DIR: project,
          HOME: os.homedir(),
        })) as string;
        got = out === "" ? "allow" : JSON.parse(out).hookSpecificOutput.permissionDecision;
      }
      const f = (figures[c.class] ??= { stop: 0, benign: 0, false_allows: 0, false_blocks: 0 });
      if (c.expect === "allow") {
        f.benign++;
        if (got !== "allow") f.false_blocks++;
      } else {
        f.stop++;
        if (got === "allow") f.false_allows++;
      }
      if (got !== c.expect) wrong.push(`${c.line} → ${got} (expected ${c.expect})`);
    }
    console.log(`${surface} scripts corpus: ${JSON.stringify(figures)}`);
    expect(wrong).toEqual([]);
  };

  it("policy_check_command gives every line its decision", async () => {
    await check("tool");
  }, 180_000);

  it("the Claude Code hook's decision is the same on every line", async () => {
    await check("hook");
  }, 180_000);
});

/** Installed programs a line needs to run for real (just and expect are not installed here). */
const installed = (program: string) => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;

describe("the denied lines do their harm when run for real", () => {
  const denied = CORPUS.filter((c) => c.expect === "deny");
  const runnable = denied.filter((c) => {
    const program = /^(?:cd \S+ && )?(\S+)/.exec(c.line.replace(/^printf .*\| /, ""))?.[1] ?? "";
    return !["just", "expect", "nvim", "pnpm", "yarn"].includes(program) || installed(program);
  });

  it("runs most of them", () => {
    expect(runnable.length).toBeGreaterThanOrEqual(25);
  });

  for (const c of runnable)
    it(`${c.line}: ${c.bash}`, () => {
      const dir = scratch(outside);
      const head = () => execFileSync("git", ["rev-parse", "HEAD"], { cwd: dir, encoding: "utf8" }).trim();
      const before = head();
      const hook = path.join(dir, ".git", "hooks", "pre-commit");
      // A remote whose main a force push replaces.
      const remote = tempDir("mcq-scripts-remote-");
      execFileSync("git", ["init", "-q", "--bare", "-b", "main"], { cwd: remote });
      execFileSync("git", ["remote", "add", "origin", remote], { cwd: dir });
      execFileSync("git", ["push", "-q", "origin", "main"], { cwd: dir, env });
      execFileSync("git", ["commit", "-q", "--allow-empty", "--no-verify", "-m", "ours"], { cwd: dir, env });
      const ours = head();
      execFileSync("git", ["reset", "-q", "--hard", before], { cwd: dir });
      fs.writeFileSync(path.join(dir, "change.txt"), "staged\n");
      execFileSync("git", ["add", "change.txt"], { cwd: dir });
      // The remote has someone else's commit on main, which a force push throws away.
      execFileSync("git", ["push", "-q", "origin", `${ours}:refs/heads/main`], { cwd: dir, env });
      spawnSync("bash", ["-c", c.line.replaceAll("{outside}", outside)], {
        cwd: dir,
        input: "",
        env: { ...env, MSG: "x", TERM: "dumb" },
        timeout: 60_000,
        encoding: "utf8",
      });
      const committed = head() !== before;
      const hookGone = !fs.existsSync(hook) || fs.readFileSync(hook, "utf8") !== REFUSE;
      const remoteMain = execFileSync("git", ["rev-parse", "main"], { cwd: remote, encoding: "utf8" }).trim();
      expect(committed || hookGone || remoteMain !== ours, c.line).toBe(true);
    });
});

describe("the recipes read from the Makefile are the ones make runs", () => {
  // `make -n` prints each recipe line it would run, after make's own expansion: the same lines, as a set.
  for (const args of [
    ["build"],
    ["test"],
    ["clean"],
    ["ship", "MSG=x"],
    ["all", "MSG=x"],
    ["publish"],
    ["dist/app.tar"],
    [],
    ["-C", "sub"],
    ["-C", "sub", "hooks"],
  ])
    it(`make ${args.join(" ")}`, async () => {
      const { makeScripts } = await import(
        path.join(REPO_ROOT, "dist", "policy", "shell", "project-scripts.js")
      );
      const { projectReader } = await import(
        path.join(REPO_ROOT, "dist", "policy", "shell", "project-files.js")
      );
      const argv = ["make", ...args];
      const ours = makeScripts(
        projectReader([project]),
        project,
        argv,
        argv.map(() => false),
      );
      const byMake = execFileSync("make", ["-n", ...args], { cwd: project, encoding: "utf8" })
        .split("\n")
        .filter((l) => l && !/^make(\[\d+\])?: /.test(l)); // "Entering directory" notes
      expect(new Set(ours.runs.map((r: { text: string }) => r.text))).toEqual(new Set(byMake));
    });
});
