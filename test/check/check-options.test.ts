/**
 * check's options on real projects: --only/--skip, a tool that is not installed (PATH narrowed), --fix
 * through the transactions, --changed in a real git repository, --help.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHECK_FIXTURES, parseJson, PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { PASSED_THROUGH } from "../../src/check/options.js";

/** A PATH with no Python tools on it (node is run by its full path; the embedded ruff needs nothing). */
const NARROW_PATH = "/nonexistent";

describe("--only and --skip", () => {
  it("--only lint runs the linters only; --skip ruff leaves both ruff checks out", async () => {
    const only = parseJson(await runCheck(["python", "--only", "lint", "--json"]));
    expect(only.checks.map((c) => c.id)).toEqual(["ruff"]);
    const skip = parseJson(await runCheck(["python", "--skip", "ruff", "--json"]));
    expect(skip.checks.map((c) => c.id)).toEqual(["ty"]);
  });

  it("--only naming a check these paths do not have is a usage error (exit 2)", async () => {
    const r = await runCheck(["python", "--only", "clippy"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "--only clippy: no such check for these paths (detected: ruff-format, ruff, ty)",
    );
  });
});

describe("a detected tool that is not installed", () => {
  it("is listed as skipped with how to install it, and does not change the exit code", async () => {
    const r = await runCheck(["python-clean"], { env: { PATH: NARROW_PATH } });
    expect(r.stdout).toMatch(
      /^ {2}ty +types +skipped: not installed; install: pip install ty \(or: uv tool install ty\)$/m,
    );
    // ruff falls back to the embedded one, so the other checks ran and passed.
    expect(r.stdout).toMatch(/^ {2}ruff +lint +passed/m);
    expect(r.stdout).toContain("2 checks ran, 1 skipped, 0 failed");
    expect(r.status).toBe(0);
  });

  it("named with --only, it is a configuration error (exit 2)", async () => {
    const r = await runCheck(["python-clean", "--only", "ty", "--json"], { env: { PATH: NARROW_PATH } });
    expect(r.status).toBe(2);
    expect(parseJson(r).checks).toMatchObject([
      { id: "ty", status: "skipped", error_type: "tool_not_found" },
    ]);
  });
});

describe("--fix", () => {
  // ty's finding is what is left: without ty (not bundled) the check would pass.
  it.skipIf(missing("ty", [TOOLS_VENV_BIN]))(
    "applies ruff's fixes, then formats, as transactions, and reports what is left",
    async () => {
      const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
      const r = await runCheck([dir, "--fix", "--json"]);
      const json = parseJson(r);
      expect(json.fixes).toMatchObject([
        { id: "ruff", tool: "lint_fix", success: true, changed_files: 1 },
        { id: "ruff-format", tool: "autoformat", success: true, changed_files: 1 },
      ]);
      // What the ruff CLI's own `check --fix` then `format` write; only ty's error is left.
      const fixed = "def add(a: int, b: int) -> int:\n    return a + b\n\n\ntotal: str = add(1, 2)\n";
      expect(fs.readFileSync(path.join(dir, "app.py"), "utf8")).toBe(fixed);
      if (!missing("ruff", [TOOLS_VENV_BIN])) {
        const direct = copyFixture(path.join(CHECK_FIXTURES, "python"));
        const env = { ...process.env, PATH: PATH_WITH_TOOLS };
        spawnSync("ruff", ["check", "--isolated", "--fix", "--no-cache", "app.py"], { cwd: direct, env });
        spawnSync("ruff", ["format", "--isolated", "--no-cache", "app.py"], { cwd: direct, env });
        expect(fs.readFileSync(path.join(direct, "app.py"), "utf8")).toBe(fixed);
      }
      expect(json.checks.map((c) => [c.id, c.status])).toEqual([
        ["ruff-format", "passed"],
        ["ruff", "passed"],
        ["ty", "findings"],
      ]);
      expect(r.status).toBe(1);
      // The transactions' audit is in the project's cache folder.
      expect(fs.readFileSync(path.join(dir, ".mcp-cache", "audit.jsonl"), "utf8")).toContain("commit");
    },
  );

  it("JavaScript: ESLint's fixes and Prettier's formatting, and the report still comes (warm workers closed)", async () => {
    const dir = copyFixture(path.join(CHECK_FIXTURES, "js"));
    const r = await runCheck([dir, "--fix", "--skip", "tsc", "--json"]);
    const json = parseJson(r);
    expect(json.fixes).toMatchObject([
      { id: "eslint", tool: "lint_fix", success: true, changed_files: 0 },
      { id: "prettier", tool: "autoformat", success: true, changed_files: 1 },
    ]);
    expect(fs.readFileSync(path.join(dir, "src", "index.ts"), "utf8")).toContain(
      "export const spaced = 2;\n",
    );
    // no-unused-vars has no fix: it is what is left.
    expect(json.findings.map((f) => f.rule_id)).toEqual(["@typescript-eslint/no-unused-vars"]);
    expect(r.status).toBe(1);
  });
});

describe.skipIf(missing("git"))("--changed", () => {
  it("checks only the files changed since a revision, tracked and untracked, in a subfolder of the repository", async () => {
    const repo = copyFixture(path.join(CHECK_FIXTURES, "python-clean"));
    const git = (...args: string[]) =>
      spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    fs.mkdirSync(path.join(repo, "pkg"));
    fs.writeFileSync(path.join(repo, "pkg", "old.py"), "import sys\n");
    fs.writeFileSync(path.join(repo, "pkg", "edited.py"), "x = 1\n");
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "init");
    fs.writeFileSync(path.join(repo, "pkg", "edited.py"), "import os\n");
    fs.writeFileSync(path.join(repo, "pkg", "new.py"), "import json\n");
    const r = await runCheck(["pkg", "--changed", "--json"], { cwd: repo });
    const json = parseJson(r);
    const lint = json.findings.filter((f) => f.check === "ruff").map((f) => f.file);
    // old.py's unused import is not in the changes; the edited and the untracked file are.
    expect(lint.sort()).toEqual(["pkg/edited.py", "pkg/new.py"]);
    expect(r.status).toBe(1);
    // A revision the repository does not have: git's refusal is a usage error.
    const bad = await runCheck(["pkg", "--changed=HEAD~5"], { cwd: repo });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--changed");
  });
});

describe("--help", () => {
  it("lists every option, check's own and the engine limits passed through", async () => {
    const r = await runCheck(["--help"]);
    expect(r.status).toBe(0);
    for (const flag of ["--only", "--skip", "--fix", "--changed", "--sarif", "--json", "--external-links"])
      expect(r.stdout).toContain(flag);
    for (const o of PASSED_THROUGH) expect(r.stdout).toContain(o.flag);
    expect(r.stdout).toContain("--max-concurrent");
    expect(r.stdout).toContain("--timeout");
    expect(r.stdout).toContain(
      "Exit codes: 0 clean, 1 findings, 2 usage or configuration error, 3 a tool failed",
    );
  });
});
