/**
 * Issue 39: type_check with mypy on a project whose only mypy run is a pre-commit hook handed file names
 * (psf/black's shape: mirrors-mypy with `args: []`, a top-level `exclude: ^(profiling/|tests/data/)`)
 * checks the files that hook is handed, with the hook's checking flags, not the folders it excludes:
 * compared with the real `pre-commit run mypy --all-files` (a local hook running the same mypy).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const PRE_COMMIT = path.join(REPO_ROOT, ".tools", "pre-commit", "bin", "pre-commit");

const CONFIG = `exclude: ^(profiling/|tests/data/)
repos:
  - repo: local
    hooks:
      - id: mypy
        name: mypy
        entry: mypy
        language: system
        types_or: [python, pyi]
        exclude: ^docs/conf.py$
        args: [--strict]
`;

describe.skipIf(missing("mypy") || missing("git") || missing("pre-commit", [path.dirname(PRE_COMMIT)]))(
  "type_check with mypy on a project whose pre-commit hands mypy its files",
  () => {
    let repo: string;
    let s: Connected;
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
      fs.writeFileSync(path.join(repo, rel), text);
    };
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    /** `file:line code` of mypy's lines, sorted. */
    const rows = (lines: string[]) =>
      lines
        .map((l) => /^(?:\.\/)?([^:\s]+):(\d+):(?:\d+:)? error: .*\[([\w-]+)\]$/.exec(l.trim()))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => `${m[1]}:${m[2]} ${m[3]}`)
        .sort();
    /** The same rows from the server's issue lines (`file:line:col: code message`). */
    const issueRows = (issues: string[]) =>
      issues
        .map((l) => /^([^:\s]+):(\d+):\d+: ([\w-]+) /.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => `${m[1]}:${m[2]} ${m[3]}`)
        .sort();

    beforeAll(async () => {
      repo = tempDir("mcq-mypy-pre-commit-");
      write(".pre-commit-config.yaml", CONFIG);
      // --strict (the hook's flag) reports the missing annotations; plain mypy would not.
      write("src/app.py", "def f(x):\n    return x\n\n\nbroken: int = 'text'\n");
      write("src/stub.pyi", "def g() -> int: ...\n");
      // What pre-commit excludes: errors mypy reports when it walks the whole folder.
      write("tests/data/case.py", "wrong: str = 1\n");
      write("profiling/p.py", "also_wrong: int = 'x'\n");
      write("docs/conf.py", "conf: int = 'x'\n");
      git("init", "-q");
      git("add", "-A");
      git("commit", "-qm", "init");
      s = await connectStdio({
        args: [
          "--allowed-paths",
          repo,
          "--rate-limit",
          "false",
          "--result-cache-dir",
          tempDir("mcq-mypy-cache-"),
        ],
        cwd: repo,
        // The suite turns the result cache off (vitest.config.ts); the second test is about it.
        env: { MCP_CODE_QUALITY_RESULT_CACHE: "true" },
      });
    }, 60_000);
    afterAll(async () => {
      await s?.close();
      fs.rmSync(repo, { recursive: true, force: true });
    });

    it("checks the files pre-commit's mypy hook is handed, with its flags, as `pre-commit run mypy --all-files` finds", async () => {
      const whole = spawnSync("mypy", ["--show-error-codes", "."], { cwd: repo, encoding: "utf8" }).stdout;
      expect(rows(whole.split("\n")).some((r) => r.startsWith("tests/data/"))).toBe(true);
      const hook = spawnSync(PRE_COMMIT, ["run", "mypy", "--all-files"], {
        cwd: repo,
        encoding: "utf8",
        env: { ...process.env, PRE_COMMIT_HOME: tempDir("mcq-pre-commit-home-") },
      });
      expect(hook.status).toBe(1);
      const expected = rows(hook.stdout.split("\n"));
      expect(expected).toEqual(["src/app.py:1 no-untyped-def", "src/app.py:5 assignment"]);
      const r = await s.call("type_check", { path: ".", checker: "mypy" });
      expect(r).toMatchObject({ success: true, passed: false });
      expect(issueRows(r.issues as string[])).toEqual(expected);
      expect(r.notes).toContain(
        "mypy checked the files the project's pre-commit hands it (.pre-commit-config.yaml: exclude ^(profiling/|tests/data/), the hook's exclude ^docs/conf.py$): 2 file(s)",
      );
    });

    it("a new Python file is checked on the next call (the handed files are part of the cache key)", async () => {
      const again = await s.call("type_check", { path: ".", checker: "mypy" });
      expect(again.cached).toMatch(/^(\d+) of \1 files$/);
      write("src/late.py", "late: int = 'x'\n");
      const r = await s.call("type_check", { path: ".", checker: "mypy" });
      expect(r.cached).toMatch(/^0 of \d+ files$/);
      expect(issueRows(r.issues as string[])).toContain("src/late.py:1 assignment");
      fs.rmSync(path.join(repo, "src", "late.py"));
    });

    it("without the hook, mypy checks the folder as before", async () => {
      write(".pre-commit-config.yaml", "repos: []\n");
      const r = await s.call("type_check", { path: ".", checker: "mypy" });
      expect(issueRows(r.issues as string[]).some((x) => x.startsWith("tests/data/case.py"))).toBe(true);
      expect(JSON.stringify(r.notes)).not.toContain("pre-commit hands it");
    });
  },
);
