/**
 * Issue 39: a project that lints with ruff and formats with black through pre-commit (pylint's shape: a
 * `[tool.ruff]` table, two `black` hooks, one excluding the test fixtures, one for the documentation's
 * examples whose `exclude` is a verbose-mode `(?x)` regex spread over lines) is formatted by black, on the
 * files those hooks are handed: `format_check`, `autoformat` and `check` agree with the real
 * `pre-commit run black --all-files` (local hooks running the same black: nothing is fetched), never with
 * ruff's formatter over the whole tree. An untracked virtualenv git lists is no file of the project's.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePreCommitConfig, withoutVerboseFlag } from "../../src/adapters/pre-commit-config.js";
import { blackFormattingFlags } from "../../src/adapters/python/black-scope.js";
import { pythonTools } from "../../src/adapters/project-configs.js";
import { CLI, connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const PRE_COMMIT = path.join(REPO_ROOT, ".tools", "pre-commit", "bin", "pre-commit");

const CONFIG = `repos:
  - repo: local
    hooks:
      - id: black
        name: black
        entry: black
        language: system
        types_or: [python, pyi]
        args: [--safe, --quiet, --line-length=100]
        exclude: ^tests/fixtures/|^docs/examples/
      - id: black
        name: black-doc
        entry: black
        language: system
        types_or: [python, pyi]
        args: [--safe, --quiet, --line-length=100]
        files: ^docs/examples/
        exclude: |
          (?x)^(
            docs/examples/bad_on_purpose.py|  # shows what black would change
            docs/examples/also_bad.py
          )$
`;

const UGLY = "x  =  [ 1,2 ]\n";

describe("choosing and scoping black from pre-commit's hooks", () => {
  it("reads a verbose-mode pattern as RE2 can run it", () => {
    expect(withoutVerboseFlag("(?x)^(\n  a/b.py|  # why\n  c[ #]d\\ e\n)$")).toBe("^(a/b.py|c[ #]d\\ e)$");
    expect(withoutVerboseFlag("(?xi)^A  B$")).toBe("(?i)^AB$");
    expect(withoutVerboseFlag("^plain x$")).toBe("^plain x$");
  });

  it("keeps the hook's flags that change black's output, and only those", () => {
    expect(
      blackFormattingFlags(["--safe", "--quiet", "--line-length=100", "-S", "-t", "py311", "--check"]),
    ).toEqual(["--line-length=100", "-S", "-t", "py311"]);
    expect(parsePreCommitConfig(CONFIG)?.hooks.map((h) => h.id)).toEqual(["black", "black"]);
  });

  it("takes the formatter and mypy from the hooks, ruff's formatter when a hook runs it", () => {
    const dir = tempDir("mcq-python-hooks-");
    const hooks = (...ids: string[]) =>
      fs.writeFileSync(
        path.join(dir, ".pre-commit-config.yaml"),
        `repos:\n  - repo: local\n    hooks:\n${ids.map((id) => `      - id: ${id}\n        name: ${id}\n        entry: ${id}\n        language: system\n`).join("")}`,
      );
    fs.writeFileSync(
      path.join(dir, "pyproject.toml"),
      '[project]\nname = "x"\n\n[tool.ruff]\nline-length = 99\n',
    );
    expect(pythonTools(dir, dir)).toEqual({ formatter: "ruff", linter: "ruff", checkers: ["ty"] });
    // termcolor: ruff-check, black and a mypy hook (`--strict src tests`), no [tool.mypy].
    hooks("ruff-check", "black", "mypy");
    expect(pythonTools(dir, dir)).toEqual({ formatter: "black", linter: "ruff", checkers: ["mypy"] });
    hooks("ruff-check", "ruff-format", "black");
    expect(pythonTools(dir, dir).formatter).toBe("ruff");
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe.skipIf(missing("black") || missing("git") || missing("pre-commit", [path.dirname(PRE_COMMIT)]))(
  "black on a project that lints with ruff and formats with black through pre-commit",
  () => {
    let repo: string;
    let s: Connected;
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
      fs.writeFileSync(path.join(repo, rel), text);
    };
    const read = (rel: string) => fs.readFileSync(path.join(repo, rel), "utf8");
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });

    beforeAll(async () => {
      repo = tempDir("mcq-black-pre-commit-");
      write(".pre-commit-config.yaml", CONFIG);
      write("pyproject.toml", '[project]\nname = "app"\n\n[tool.ruff]\nline-length = 100\n');
      write("pkg/app.py", "def f():\n    return 1\n");
      write("pkg/messy.py", UGLY);
      // A line of 90 characters: black's default (88) would split it, the hooks' --line-length=100 does not.
      write("pkg/long.py", `values = ["${"a".repeat(30)}", "${"b".repeat(30)}", "${"c".repeat(10)}"]\n`);
      write("tests/fixtures/ugly.py", UGLY);
      write("docs/examples/good.py", "y = 2\n");
      write("docs/examples/bad_on_purpose.py", UGLY);
      write("docs/examples/also_bad.py", UGLY);
      write("docs/examples/shown.py", UGLY);
      git("init", "-q");
      git("add", "-A");
      git("commit", "-qm", "init");
      // Untracked and not ignored: a virtualenv (git lists it) and what an agent just wrote.
      write(".venv/pyvenv.cfg", "home = /usr/bin\n");
      write(".venv/lib/site.py", UGLY);
      write("pkg/new.py", UGLY);
      s = await connectStdio({ args: ["--allowed-paths", repo, "--rate-limit", "false"], cwd: repo });
    }, 60_000);
    afterAll(async () => {
      await s?.close();
      fs.rmSync(repo, { recursive: true, force: true });
    });

    it("chooses black, not ruff's formatter, though ruff is configured", () => {
      expect(pythonTools(repo, repo)).toMatchObject({ formatter: "black", linter: "ruff" });
    });

    it("format_check finds what `pre-commit run black --all-files` changes, and nothing it excludes", async () => {
      git("add", "pkg/new.py");
      const hook = spawnSync(PRE_COMMIT, ["run", "black", "--all-files"], {
        cwd: repo,
        encoding: "utf8",
        env: { ...process.env, PRE_COMMIT_HOME: tempDir("mcq-pre-commit-home-") },
      });
      const changedByHook = execFileSync("git", ["diff", "--name-only"], { cwd: repo, encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .sort();
      git("checkout", "-q", "--", ".");
      git("reset", "-q", "pkg/new.py");
      write("pkg/new.py", UGLY);
      expect(hook.status).toBe(1);
      expect(changedByHook).toEqual(["docs/examples/shown.py", "pkg/messy.py", "pkg/new.py"]);

      const r = await s.call("format_check", { path: ".", language: "python" });
      expect(r).toMatchObject({ success: true, formatted: false });
      expect(String(r.command)).toMatch(/^black /);
      expect(String(r.command)).toContain("--line-length=100");
      expect(r.unformatted_files).toEqual(changedByHook);
      expect((r.notes as string[]).join("\n")).toContain(
        "black formatted the files the project's pre-commit hands it (.pre-commit-config.yaml: the hook's exclude ^tests/fixtures/|^docs/examples/; the hook's files ^docs/examples/, the hook's exclude (?x)^( docs/examples/bad_on_purpose.py|  # shows what black would change docs/examples/also_bad.py )$): 6 file(s)",
      );
    });

    it("autoformat writes those files only; a dry run writes nothing", async () => {
      const before = read("tests/fixtures/ugly.py");
      const dry = await s.call("autoformat", { path: ".", language: "python", dry_run: true });
      expect(dry).toMatchObject({ success: true });
      expect(JSON.stringify(dry)).toContain("pkg/messy.py");
      expect(read("pkg/messy.py")).toBe(UGLY);
      const done = await s.call("autoformat", { path: ".", language: "python" });
      expect(done).toMatchObject({ success: true });
      expect(read("pkg/messy.py")).toBe("x = [1, 2]\n");
      expect(read("docs/examples/shown.py")).toBe("x = [1, 2]\n");
      expect(read("pkg/new.py")).toBe("x = [1, 2]\n");
      expect(read("tests/fixtures/ugly.py")).toBe(before);
      expect(read("docs/examples/bad_on_purpose.py")).toBe(UGLY);
      expect(read(".venv/lib/site.py")).toBe(UGLY);
      expect(read("pkg/long.py")).toContain(`"${"c".repeat(10)}"]`);
      // As the hook sees it now: nothing left to change.
      const after = await s.call("format_check", { path: ".", language: "python" });
      expect(after).toMatchObject({ success: true, formatted: true, unformatted_files: [] });
    });

    it("check runs black-format there, with the same verdict", () => {
      write("pkg/messy.py", UGLY);
      const r = spawnSync(process.execPath, [CLI, "check", ".", "--only", "black", "--json"], {
        cwd: repo,
        encoding: "utf8",
      });
      expect(r.status).toBe(1);
      const report = JSON.parse(r.stdout) as { checks: { id: string }[]; findings: { file: string }[] };
      expect(report.checks.map((c) => c.id)).toEqual(["black-format"]);
      expect(report.findings.map((f) => f.file)).toEqual(["pkg/messy.py"]);
    });
  },
);
