/**
 * lint_check's staged, changed and all scopes in a git repository this test makes, with real ruff, compared
 * with ruff run directly on the same files; lint_advice with no bundle; tool_capabilities and the traits
 * `_meta` covering every tool. One stdio server (dist/cli.js).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { toolsFor } from "../../src/mcp/tools/index.js";
import { KNOWN_TOOLSETS } from "../../src/config.js";
import { traitsOf, TRAITS_META_KEY } from "../../src/mcp/tool-traits.js";
import { MANAGED_TOOL_FACTS, managedTools } from "../../src/adapters/managed-capabilities.js";

const PATH = `${TOOLS_VENV_BIN}:${process.env.PATH}`;
const skipRuff = missing("ruff", [TOOLS_VENV_BIN]) || missing("git");

let server: Connected;
let repo: string;
let plain: string;
let fresh: string;

function git(...args: string[]) {
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
}

/** (file, rule, line) of ruff's own JSON report on the given files. */
function ruffDirect(files: string[]): string[] {
  let out: string;
  try {
    out = execFileSync("ruff", ["check", "--no-cache", "--output-format", "json", ...files], {
      cwd: repo,
      env: { ...process.env, PATH },
      encoding: "utf8",
    });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  return (JSON.parse(out) as { filename: string; code: string; location: { row: number } }[])
    .map((d) => `${path.relative(repo, d.filename)}:${d.code}:${d.location.row}`)
    .sort();
}

const keys = (r: Record<string, unknown>) =>
  (r.findings as { path: string; rule_id: string; line: number }[])
    .map((f) => `${f.path}:${f.rule_id}:${f.line}`)
    .sort();

beforeAll(async () => {
  repo = tempDir("mcq-lint-check-");
  fs.writeFileSync(path.join(repo, "pyproject.toml"), '[project]\nname = "shop"\n');
  fs.writeFileSync(path.join(repo, ".gitignore"), "ignored.py\n");
  fs.writeFileSync(path.join(repo, "a.py"), "print(1)\n");
  fs.writeFileSync(path.join(repo, "b.py"), "import os\n");
  execFileSync("git", ["init", "-q"], { cwd: repo });
  git("add", ".");
  git("commit", "-qm", "init");
  fs.writeFileSync(path.join(repo, "a.py"), "import sys\nprint(1)\n"); // changed, not staged
  fs.writeFileSync(path.join(repo, "c.py"), "import json\n");
  git("add", "c.py"); // staged
  fs.writeFileSync(path.join(repo, "d.py"), "import re\n"); // untracked
  fs.writeFileSync(path.join(repo, "ignored.py"), "import abc\n"); // ignored
  fs.writeFileSync(path.join(repo, "notes.md"), "# notes\n"); // changed, not Python
  fs.mkdirSync(path.join(repo, "sub"));
  fs.writeFileSync(path.join(repo, "sub", "e.py"), "import abc\n"); // untracked, in a folder
  plain = tempDir("mcq-no-git-");
  fs.cpSync(path.join(FIXTURES, "ruby", "project"), plain, { recursive: true });
  fresh = tempDir("mcq-fresh-repo-");
  execFileSync("git", ["init", "-q"], { cwd: fresh });
  fs.writeFileSync(path.join(fresh, "staged.py"), "import os\n");
  execFileSync("git", ["add", "staged.py"], { cwd: fresh });
  fs.writeFileSync(path.join(fresh, "new.py"), "import re\n");
  server = await connectStdio({
    cwd: repo,
    args: ["--toolsets", "core,policy", "--allowed-paths", `${repo},${plain},${fresh}`, "--timeout", "77"],
    env: { PATH },
  });
});

afterAll(async () => {
  await server?.close();
});

describe("lint_check", () => {
  it.skipIf(skipRuff)("staged: only what is in the index", async () => {
    const r = await server.call("lint_check", { scope: "staged" });
    expect(r).toMatchObject({ success: true, passed: false, scope: "staged", files: ["c.py"] });
    expect(keys(r)).toEqual(ruffDirect(["c.py"]));
    expect(keys(r)).toEqual(["c.py:F401:1"]);
    // With no tool named, the compiled policy lint runs beside the language's linter.
    expect((r.linters as { linter: string }[]).map((l) => l.linter)).toEqual(["ruff", "policy"]);
    expect(r.rerun).toEqual({ tool: "lint_check", arguments: { files: ["c.py"] } });
  });

  it.skipIf(skipRuff)(
    "with no tool, the compiled policy lint reports content policies at their lines",
    async () => {
      fs.writeFileSync(path.join(plain, "p.py"), "import os  # noqa\n\nprint(os.sep)\n");
      fs.writeFileSync(path.join(plain, "s.py"), '\n\nDB_PASSWORD = "hunter2-Pr0d-9x7q"\n');
      const r = await server.call("lint_check", { path: plain, files: ["p.py", "s.py"] });
      const policy = (r.findings as { tool: string; rule_id: string; path: string; line: number }[]).filter(
        (f) => f.tool === "policy",
      );
      expect(policy.map((f) => `${f.path}:${f.rule_id}:${f.line}`).sort()).toEqual([
        "p.py:suppress.broad:1",
        "s.py:secrets.in_edit:3",
      ]);
      expect(r.passed).toBe(false);
      expect(r.advice).toMatchObject({
        "policy:suppress.broad": { mapped: true, policy_ids: ["suppress.broad"] },
      });
      const ruffOnly = await server.call("lint_check", {
        path: plain,
        files: ["p.py", "s.py"],
        tool: "ruff",
      });
      expect((ruffOnly.findings as { tool: string }[]).every((f) => f.tool === "ruff")).toBe(true);
    },
  );

  it.skipIf(skipRuff)("staged: a file whose work tree differs is linted from the index", async () => {
    fs.writeFileSync(path.join(fresh, "partial.py"), "import os\n");
    execFileSync("git", ["add", "partial.py"], { cwd: fresh });
    fs.writeFileSync(path.join(fresh, "partial.py"), "x = 1\n");
    const r = await server.call("lint_check", { scope: "staged", path: fresh, tool: "ruff" });
    expect(keys(r)).toContain("partial.py:F401:1");
    expect((r.linters as { command: string }[]).some((l) => l.command.endsWith("(staged content)"))).toBe(
      true,
    );
    execFileSync("git", ["rm", "-qf", "--cached", "partial.py"], { cwd: fresh });
    fs.rmSync(path.join(fresh, "partial.py"));
  });

  it.skipIf(skipRuff)(
    "changed: work tree, index and untracked files, not ignored or committed ones",
    async () => {
      const r = await server.call("lint_check", { scope: "changed" });
      expect(r.files).toEqual(["a.py", "c.py", "d.py", "notes.md", "sub/e.py"]);
      expect(keys(r)).toEqual(ruffDirect(["a.py", "c.py", "d.py", "sub/e.py"]));
      // ruff 0.17 also reports I001 on a.py by default: whatever ruff says, and at least the unused imports.
      expect(keys(r).filter((k) => k.includes("F401"))).toEqual([
        "a.py:F401:1",
        "c.py:F401:1",
        "d.py:F401:1",
        "sub/e.py:F401:1",
      ]);
      // From a folder of the repository: git's untracked names are relative to it unless --full-name.
      const sub = await server.call("lint_check", { scope: "changed", path: "sub" });
      expect(sub).toMatchObject({ files: ["sub/e.py"], finding_count: 1 });
    },
  );

  it.skipIf(skipRuff)("all: the project as ruff sees it; files: just those", async () => {
    const all = await server.call("lint_check", { scope: "all", tool: "ruff" });
    expect(keys(all)).toEqual(ruffDirect(["."]));
    expect(keys(all)).toContain("b.py:F401:1");
    const one = await server.call("lint_check", { files: ["b.py"] });
    expect(keys(one)).toEqual(["b.py:F401:1"]);
    expect(one.advice).toMatchObject({ "ruff:F401": { mapped: expect.any(Boolean) } });
    expect((one.findings as { policy_ids: unknown }[])[0]?.policy_ids).toEqual(expect.any(Array));
  });

  it.skipIf(skipRuff)("staged files intersected with files; nothing left is nothing checked", async () => {
    const r = await server.call("lint_check", { scope: "staged", files: ["a.py"] });
    expect(r).toMatchObject({ success: true, nothing_checked: true, finding_count: 0 });
    expect(r.passed).toBeUndefined();
    const ruby = await server.call("lint_check", { tool: "rubocop" });
    expect(ruby).toMatchObject({
      nothing_checked: true,
      notes: ["rubocop found no files of its languages to lint"],
    });
  });

  it.skipIf(skipRuff)(
    "pages and budgets its findings like lint: every finding once, counts full",
    async () => {
      const many = path.join(plain, "many");
      fs.mkdirSync(many);
      fs.writeFileSync(
        path.join(many, "m.py"),
        Array.from({ length: 300 }, (_, i) => `import m${i}\n`).join(""),
      );
      const seen: string[] = [];
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const page: Record<string, unknown> = await server.call("lint_check", {
          path: many,
          tool: "ruff",
          offset,
          limit: 120,
        });
        expect(page).toMatchObject({ success: true, finding_count: 300 });
        seen.push(...keys(page));
        offset = page.next_offset as number | undefined;
      }
      expect(seen).toHaveLength(300);
      expect(new Set(seen).size).toBe(300);
      const small = await server.call("lint_check", { path: many, tool: "ruff", max_result_tokens: 1000 });
      expect(small).toMatchObject({ success: true, finding_count: 300, truncated: true });
      expect((small.findings as unknown[]).length).toBeLessThan(300);
      expect(JSON.stringify(small).length / 4).toBeLessThanOrEqual(1000);
    },
  );

  it.skipIf(skipRuff)("changed in a repository with no commit yet: staged and untracked files", async () => {
    const r = await server.call("lint_check", { scope: "changed", path: fresh });
    expect(r).toMatchObject({ success: true, files: ["new.py", "staged.py"], finding_count: 2 });
  });

  it.skipIf(missing("rubocop"))(
    "a linter that lints its project: findings kept for the files asked",
    async () => {
      const r = await server.call("lint_check", { path: plain, tool: "rubocop", files: ["lib/layout.rb"] });
      let out: string;
      try {
        out = execFileSync("rubocop", ["--format", "json", "lib/layout.rb"], {
          cwd: plain,
          encoding: "utf8",
        });
      } catch (err) {
        out = (err as { stdout: string }).stdout; // exit 1: offenses found
      }
      const direct = JSON.parse(out) as {
        files: { offenses: { cop_name: string; location: { line: number } }[] }[];
      };
      expect(keys(r)).toEqual(
        direct.files
          .flatMap((f) => f.offenses.map((o) => `lib/layout.rb:${o.cop_name}:${o.location.line}`))
          .sort(),
      );
      expect(keys(r).length).toBeGreaterThan(0);
      expect(r).toMatchObject({ passed: false, linters: [{ linter: "rubocop", filtered: true }] });
    },
  );

  it("outside a git work tree, staged is invalid_input with git's reason", async () => {
    const r = await server.call("lint_check", { scope: "staged", path: plain });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toMatch(/^changed: git rev-parse failed: fatal: not a git repository/);
    const outside = await server.call("lint_check", { path: tempDir("mcq-outside-") });
    expect(outside).toMatchObject({ success: false, error_type: "path_validation" });
  });
});

describe("lint_advice without a bundle", () => {
  it("says the diagnostic is unmapped and still gives the rerun call", async () => {
    const r = await server.call("lint_advice", { tool: "ruff", rule: "ZZZ999", path: "b.py" });
    expect(r).toMatchObject({ success: true, mapped: false, policy_ids: [], skills: [] });
    expect(r.note).toMatch(/^unmapped: /);
    expect(r.rerun).toEqual({ tool: "lint", arguments: { path: "b.py", linter: "ruff" } });
  });
});

describe("tool_capabilities", () => {
  it("has an entry for every tool the registries know", () => {
    const names = managedTools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["ruff", "eslint", "mypy", "clippy", "rubocop", "pytest", "git"]),
    );
    expect(names.filter((n) => !MANAGED_TOOL_FACTS[n])).toEqual([]);
  });

  it("reports every managed tool and provider with the server's limits and the sandbox it enforces", async () => {
    const r = await server.call("tool_capabilities");
    const tools = r.tools as Record<string, unknown>[];
    expect(tools.map((t) => t.name)).toEqual([
      ...managedTools().map((t) => t.name),
      "claude",
      "codex",
      "gemini",
    ]);
    expect(tools.filter((t) => "metadata" in t)).toEqual([]);
    // bubblewrap is installed here (scripts/install-tools.sh): the default `auto` enforces it.
    expect(r.sandbox).toMatchObject({ enforced: true, kind: "bubblewrap", version: expect.any(String) });
    const ruff = tools.find((t) => t.name === "ruff") as { sandbox: Record<string, unknown> };
    expect(ruff).toMatchObject({
      network: "none",
      git: false,
      timeout_seconds: 77,
      may_read: [repo, plain, fresh],
    });
    expect(ruff.sandbox).toMatchObject({
      kind: "bubblewrap",
      network: expect.stringMatching(/^none/),
      read_only: expect.arrayContaining(["/usr", repo, plain, fresh]),
      read_write_in_transactions: [repo, plain, fresh],
      pid_namespace: true,
    });
    expect(ruff.sandbox.read_write).not.toContain(repo);
    const pipAudit = tools.find((t) => t.name === "pip-audit") as { sandbox: Record<string, unknown> };
    expect(pipAudit).toMatchObject({ network: "required", may_write: [] });
    expect(pipAudit.sandbox.network).toBe("allowed");
    const pytest = tools.find((t) => t.name === "pytest") as { sandbox: Record<string, unknown> };
    expect(pytest.sandbox.read_write).toEqual(expect.arrayContaining([repo, plain, fresh]));
    expect(tools.find((t) => t.name === "eslint")).toMatchObject({
      memory_cap_mb: 2048,
      runs_project_code: true,
    });
    const claude = tools.find((t) => t.name === "claude") as { sandbox: Record<string, unknown> };
    expect(claude).toMatchObject({ configured: false, network_allowed: false });
    expect(claude.sandbox).toMatchObject({ network: expect.stringMatching(/^none/), read_write: [] });
    expect(claude.sandbox.read_only).not.toContain(repo);
    expect(claude.sandbox.hidden).toEqual(expect.arrayContaining(["/usr/bin/git", "/usr/bin/sh"]));
  });
});

describe("tool traits", () => {
  it("every tool of every toolset has traits", () => {
    for (const set of KNOWN_TOOLSETS) {
      const missingTraits = toolsFor([set])
        .filter((t) => !traitsOf(t))
        .map((t) => t.name);
      expect(missingTraits, set).toEqual([]);
    }
  });

  it("tools/list carries them in _meta", async () => {
    const { tools } = await server.client.listTools();
    for (const t of tools) expect(t._meta?.[TRAITS_META_KEY], t.name).toEqual(expect.any(Array));
    const meta = Object.fromEntries(tools.map((t) => [t.name, t._meta?.[TRAITS_META_KEY]]));
    expect(meta.remediation_advice).toEqual(["advisory", "reads_files", "runs_tools", "persists_traces"]);
    expect(meta.lint_advice).toEqual(["advisory"]);
    expect(meta.lint_check).toEqual(["reads_files", "runs_tools"]);
    expect(meta.lint_fix).toEqual(["reads_files", "runs_tools", "persists_traces"]);
  });
});
