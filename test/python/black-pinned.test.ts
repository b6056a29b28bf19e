/**
 * The black a project's pre-commit pins (`rev:` of psf/black-pre-commit-mirror) against the black that runs
 * here (the project's virtualenv's or PATH's). On pylint, whose hook pins black 26.5.1, Debian's black 23.1.0
 * failed on a PEP 695 alias (exit 123) that the pinned black formats: the failure now says which black ran and
 * which the project pins, and a passing check notes it. The real black, through check and the MCP server.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePreCommitConfig, pinnedTool } from "../../src/adapters/pre-commit-config.js";
import { runCheck, type CheckJson } from "../helpers/check.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const hook = (repo: string, rev: string) => ({ id: "black", repo, rev, args: [], passFilenames: true });

describe("the version a hook pins", () => {
  it("is the rev of a repository tagged with the tool's versions, and nothing else", () => {
    expect(pinnedTool(hook("https://github.com/psf/black-pre-commit-mirror", "26.5.1"))).toEqual({
      tool: "black",
      version: "26.5.1",
    });
    expect(pinnedTool(hook("git@github.com:psf/black.git", "23.1.0"))).toEqual({
      tool: "black",
      version: "23.1.0",
    });
    expect(pinnedTool(hook("https://github.com/pre-commit/mirrors-mypy/", "v2.3.1"))).toEqual({
      tool: "mypy",
      version: "2.3.1",
    });
    expect(pinnedTool(hook("https://github.com/astral-sh/ruff-pre-commit", "v0.17.4"))?.tool).toBe("ruff");
    expect(
      pinnedTool(hook("https://github.com/psf/black", "3a8c9e4b1f0d2c6e8a7b5d4c3e2f1a0b9c8d7e6f")),
    ).toBeUndefined();
    expect(pinnedTool(hook("local", "1.0"))).toBeUndefined();
    expect(pinnedTool(hook("https://github.com/someone/black-fork", "26.5.1"))).toBeUndefined();
  });

  it("is read with each hook from the config", () => {
    const config = parsePreCommitConfig(
      "repos:\n  - repo: https://github.com/psf/black-pre-commit-mirror\n    rev: 26.5.1\n    hooks:\n      - id: black\n",
    );
    expect(config?.hooks[0]).toMatchObject({
      id: "black",
      repo: "https://github.com/psf/black-pre-commit-mirror",
      rev: "26.5.1",
    });
  });
});

/** A git repository whose pre-commit runs black at `rev`, with `files`. */
function project(rev: string, files: Record<string, string>): string {
  const dir = tempDir("mcq-black-pinned-");
  fs.writeFileSync(
    path.join(dir, ".pre-commit-config.yaml"),
    `repos:\n  - repo: https://github.com/psf/black-pre-commit-mirror\n    rev: ${rev}\n    hooks:\n      - id: black\n`,
  );
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "p"\nversion = "0"\n');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  execFileSync("git", ["init", "-q"], { cwd: dir });
  execFileSync("git", ["add", "-A"], { cwd: dir });
  return dir;
}

describe.skipIf(missing("black"))(
  "check and format_check with the black the project pins, or another",
  () => {
    const installed = /(\d+\.\d+\.\d+)/.exec(
      spawnSync("black", ["--version"], { encoding: "utf8" }).stdout,
    )?.[1] as string;
    let s: Connected;
    const other = "99.1.0";
    const unparsable = project(other, { "ok.py": "x = 1\n", "bad.py": "def f(:\n    pass\n" });
    const clean = project(other, { "ok.py": "x = 1\n" });
    const same = project(installed, { "ok.py": "x = 1\n" });
    beforeAll(async () => {
      expect(installed).toMatch(/^\d/);
      s = await connectStdio({ args: ["--allowed-paths", [unparsable, clean, same].join(",")] });
    });
    afterAll(() => s?.close());

    it("a failure says which black ran and which the project pins", async () => {
      const run = await runCheck([".", "--only", "black-format", "--json"], { cwd: unparsable });
      const check = (JSON.parse(run.stdout) as CheckJson).checks.find((c) => c.id === "black-format");
      expect(check?.status).toBe("failed");
      expect(check?.reason).toBe(
        `black failed (exit 123); see output (black ${installed} runs here; the project's pre-commit pins black ${other}, whose verdict can differ)`,
      );
    });

    it("a pass notes it; when they agree, nothing is said", async () => {
      const differs = await s.call("format_check", { path: clean });
      expect(differs).toMatchObject({ success: true, formatted: true });
      const warning = `warning: black ${installed} runs here; the project's pre-commit pins black ${other}, whose verdict can differ`;
      expect(differs.notes).toContain(warning);
      // check's report shows it under the check, though the check passed.
      const report = (await runCheck([".", "--only", "black-format"], { cwd: clean })).stdout;
      expect(report).toContain(`\nTool warnings:\n  black-format: ${warning}\n`);
      expect(report).toContain("✓ no findings");
      expect(differs.notes).toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            `the hook pins black ${other} (https://github.com/psf/black-pre-commit-mirror ${other})`,
          ),
        ]),
      );
      const agrees = await s.call("format_check", { path: same });
      expect(agrees).toMatchObject({ success: true, formatted: true });
      expect(JSON.stringify(agrees.notes)).not.toContain("runs here");
    });
  },
);
