/**
 * lint_check goes through the finding tools' one pipeline (src/mcp/tools/pipeline/): on a folder holding
 * several projects (the monorepo fixture's py/ and go/, no manifest at the root) each linter runs at its own
 * project with its own configuration, as `lint` runs them, and the same result cache serves a second call.
 * Compared with ruff and go vet run directly in each project. One stdio server (dist/cli.js).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { PATH_WITH_TOOLS } from "../helpers/check.js";

const skip = missing("ruff", [TOOLS_VENV_BIN]) || missing("go") || missing("git");

interface LintCheckResult {
  passed?: boolean;
  nothing_checked?: boolean;
  linters: { linter: string; path?: string; cached?: string; filtered?: boolean }[];
  findings: { tool: string; path: string; rule_id: string; line: number }[];
}

describe.skipIf(skip)("lint_check on a folder holding a Python and a Go project", () => {
  let server: Connected;
  let repo: string;
  let cacheDir: string;
  const call = async (args: Record<string, unknown>) =>
    (await server.call("lint_check", {
      path: repo,
      policy_lint: false,
      ...args,
    })) as unknown as LintCheckResult;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
  const rows = (r: LintCheckResult, tool: string) =>
    r.findings
      .filter((f) => f.tool === tool)
      .map((f) => `${f.path}:${f.line}`)
      .sort();

  beforeAll(async () => {
    repo = tempDir("mcq-lint-check-mono-");
    cacheDir = tempDir("mcq-lint-check-cache-");
    for (const p of ["py", "go"])
      fs.cpSync(path.join(FIXTURES, "monorepo", p), path.join(repo, p), { recursive: true });
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "init");
    server = await connectStdio({
      args: ["--allowed-paths", repo, "--rate-limit", "false", "--result-cache-dir", cacheDir],
      // The suite turns the result cache off (vitest.config.ts); this test is about it.
      env: { PATH: PATH_WITH_TOOLS, VIRTUAL_ENV: undefined, MCP_CODE_QUALITY_RESULT_CACHE: "true" },
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(cacheDir, { recursive: true, force: true });
  });

  it("runs ruff in py/ and go vet in go/, finding what each finds run there; a second call is served from the cache", async () => {
    const first = await call({ scope: "all" });
    expect(first.linters.map((l) => [l.linter, l.path])).toEqual([
      ["ruff", "py"],
      ["govet", "go"],
    ]);
    const ruff = JSON.parse(
      spawnSync("ruff", ["check", "--no-cache", "--output-format", "json", "."], {
        cwd: path.join(repo, "py"),
        encoding: "utf8",
        env: { ...process.env, PATH: PATH_WITH_TOOLS },
      }).stdout,
    ) as { filename: string; location: { row: number } }[];
    expect(rows(first, "ruff")).toEqual(
      ruff.map((f) => `${path.relative(repo, f.filename)}:${f.location.row}`).sort(),
    );
    expect(rows(first, "ruff").length).toBeGreaterThan(0);
    const vet = spawnSync("go", ["vet", "./..."], {
      cwd: path.join(repo, "go"),
      encoding: "utf8",
      env: { ...process.env, PATH: PATH_WITH_TOOLS, GOTOOLCHAIN: "local" },
    }).stderr;
    const vetRows = [...vet.matchAll(/^(\S+\.go):(\d+):\d+: /gm)].map((m) => `go/${m[1]}:${m[2]}`).sort();
    expect(vetRows.length).toBeGreaterThan(0);
    expect(rows(first, "govet")).toEqual(vetRows);
    expect(first.passed).toBe(false);

    const again = await call({ scope: "all" });
    expect(again.linters.find((l) => l.linter === "govet")?.cached).toMatch(/^\d+ of \d+/);
    expect(again.findings).toEqual(first.findings);
  }, 240_000);

  it("staged: only the staged file's project and linter, at that project", async () => {
    fs.writeFileSync(path.join(repo, "py", "src", "mono", "added.py"), "import os\n");
    git("add", "py/src/mono/added.py");
    const staged = await call({ scope: "staged" });
    expect(staged.linters.map((l) => [l.linter, l.path])).toEqual([["ruff", "py"]]);
    expect(staged.findings.map((f) => `${f.path}:${f.rule_id}`)).toEqual(["py/src/mono/added.py:F401"]);
  }, 120_000);
});
