/**
 * Issue 39: flake8 on a project whose pre-commit runs flake8 (psf/black's shape: a top-level
 * `exclude: ^(profiling/|tests/data/)`, the hook's own `exclude: ^src/vendored/`) lints the files that hook
 * is handed, not the folders it excludes: compared with the real `pre-commit run flake8 --all-files` (a
 * local hook running the same flake8, so nothing is fetched) and with flake8 on those files by hand. The
 * config reader and the file selection on their own, on real shapes.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hookSelector, parsePreCommitConfig } from "../../src/adapters/pre-commit-config.js";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const PRE_COMMIT = path.join(REPO_ROOT, ".tools", "pre-commit", "bin", "pre-commit");

const CONFIG = `exclude: ^(profiling/|tests/data/)
repos:
  - repo: local
    hooks:
      - id: flake8
        name: flake8
        entry: flake8
        language: system
        types: [python]
        exclude: ^src/vendored/
`;

describe("the pre-commit config reader", () => {
  it("reads hooks, args, pass_filenames and the patterns; a pattern RE2 cannot run makes the selection unknown", () => {
    const config = parsePreCommitConfig(CONFIG);
    expect(config).toMatchObject({
      exclude: "^(profiling/|tests/data/)",
      hooks: [{ id: "flake8", entry: "flake8", args: [], passFilenames: true, exclude: "^src/vendored/" }],
    });
    const selects = hookSelector(config!, config!.hooks[0]!);
    expect(
      ["src/app.py", "profiling/p.py", "tests/data/case.py", "src/vendored/v.py", "tests/test_app.py"].filter(
        (f) => selects?.(f),
      ),
    ).toEqual(["src/app.py", "tests/test_app.py"]);
    const lookahead = parsePreCommitConfig(
      `repos:\n  - repo: local\n    hooks:\n      - id: x\n        files: '^(?!docs/)'\n`,
    );
    expect(hookSelector(lookahead!, lookahead!.hooks[0]!)).toBeUndefined();
    expect(parsePreCommitConfig("repos: [")).toBeUndefined();
    expect(parsePreCommitConfig("just: text\n")).toBeUndefined();
  });
});

describe.skipIf(missing("flake8") || missing("git") || missing("pre-commit", [path.dirname(PRE_COMMIT)]))(
  "lint with flake8 on a project whose pre-commit runs flake8",
  () => {
    let repo: string;
    let s: Connected;
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
      fs.writeFileSync(path.join(repo, rel), text);
    };
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    /** `file:line code` of flake8-style lines, sorted. */
    const rows = (lines: string[]) =>
      lines
        .map((l) => /^(?:\.\/)?([^:\s]+):(\d+):\d+: (\w+)/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => `${m[1]}:${m[2]} ${m[3]}`)
        .sort();

    beforeAll(async () => {
      repo = tempDir("mcq-flake8-pre-commit-");
      write(".pre-commit-config.yaml", CONFIG);
      write("src/app.py", "import os\n\n\ndef f():\n    return 1\n");
      write("tests/test_app.py", "def test_x():\n    x = 1\n");
      // What the hook excludes: findings flake8 reports when it walks the whole folder.
      write("profiling/p.py", "import sys\n");
      write("tests/data/case.py", "import json\n");
      write("src/vendored/v.py", "import re\n");
      git("init", "-q");
      git("add", "-A");
      git("commit", "-qm", "init");
      // Untracked and not ignored: what an agent just wrote is linted too (and pre-commit's exclude holds).
      write("src/new.py", "import glob\n");
      s = await connectStdio({ args: ["--allowed-paths", repo, "--rate-limit", "false"], cwd: repo });
    }, 60_000);
    afterAll(async () => {
      await s?.close();
      fs.rmSync(repo, { recursive: true, force: true });
    });

    it("lints the files pre-commit's flake8 hook is handed, as `pre-commit run flake8 --all-files` finds", async () => {
      // The whole folder has the excluded folders' findings too.
      const whole = spawnSync("flake8", ["."], { cwd: repo, encoding: "utf8" }).stdout;
      expect(rows(whole.split("\n")).some((r) => r.startsWith("profiling/"))).toBe(true);
      git("add", "src/new.py");
      const hook = spawnSync(PRE_COMMIT, ["run", "flake8", "--all-files"], {
        cwd: repo,
        encoding: "utf8",
        env: { ...process.env, PRE_COMMIT_HOME: tempDir("mcq-pre-commit-home-") },
      });
      git("reset", "-q", "src/new.py");
      expect(hook.status).toBe(1);
      const expected = rows(hook.stdout.split("\n"));
      expect(expected).toEqual(["src/app.py:1 F401", "src/new.py:1 F401", "tests/test_app.py:2 F841"]);
      const r = await s.call("lint", { path: ".", linter: "flake8" });
      expect(r).toMatchObject({ success: true, passed: false, issue_count: 3 });
      expect(rows(r.issues as string[])).toEqual(expected);
      expect(r.notes).toContain(
        "flake8 linted the files the project's pre-commit hands it (.pre-commit-config.yaml: exclude ^(profiling/|tests/data/), the hook's exclude ^src/vendored/): 3 file(s)",
      );
    });

    it("without the hook in the config, flake8 lints the folder as before", async () => {
      write(".pre-commit-config.yaml", "repos: []\n");
      const r = await s.call("lint", { path: ".", linter: "flake8" });
      expect(rows(r.issues as string[]).some((x) => x.startsWith("profiling/p.py"))).toBe(true);
      expect(JSON.stringify(r.notes)).not.toContain("pre-commit hands it");
    });
  },
);
