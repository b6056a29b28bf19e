/**
 * Issue 39: the write tools run only the fixers the project uses. A flake8 + black project (no ruff
 * configuration, like psf/black): lint_fix changes nothing and says why (flake8 has no fixer; ruff's
 * defaults are not the project's rules), and fix_all runs black only, writing what `black .` writes.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const FIXTURE = path.join(FIXTURES, "defaults", "flake8-black");
const PATH_WITH_TOOLS = `${TOOLS_VENV_BIN}:${process.env.PATH}`;

/** The tree without the server's own folder (transactions write their audit there). */
const projectFiles = (dir: string) =>
  Object.fromEntries(Object.entries(treeHash(dir)).filter(([f]) => !f.startsWith(".mcp-cache")));

describe.skipIf(missing("black") || missing("flake8"))("a flake8 + black project (no ruff config)", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(FIXTURE);
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: PATH_WITH_TOOLS, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lint_fix changes nothing and says why: flake8 has no fixer, and ruff's defaults are not its rules", async () => {
    // What the project's own linter reports (and what a ruff fix would have removed).
    const flake8 = spawnSync("flake8", ["."], { cwd: dir, encoding: "utf8" }).stdout;
    expect(flake8).toContain("./pkg/app.py:1:1: F401 'os' imported but unused");
    const before = treeHash(dir);
    for (const dry_run of [true, false]) {
      const r = await s.call("lint_fix", { path: ".", dry_run });
      expect(r).toMatchObject({ success: true, nothing_checked: true, changed_files: [] });
      expect("passed" in r).toBe(false);
      expect("transaction" in r).toBe(false);
      expect((r.notes as string[]).join("\n")).toMatch(
        /python: the project lints with flake8, which has no fixer/,
      );
    }
    expect(treeHash(dir)).toEqual(before);
  });

  it("fix_all formats with black only, as `black .` does, and verifies", async () => {
    const check = spawnSync("black", ["--check", "."], { cwd: dir, encoding: "utf8" });
    expect(check.stderr).toContain("would reformat");
    const dry = await s.call("fix_all", { path: ".", dry_run: true, skip_typecheck: true });
    expect(dry).toMatchObject({ success: true, dry_run: true, changed_files: [] });
    expect((dry.format as { formatter: string; changed_files: string[] }).formatter).toBe("black");
    expect((dry.format as { changed_files: string[] }).changed_files).toEqual([
      path.join(dir, "pkg", "app.py"),
    ]);

    // The project's own fix, on a second copy, is what fix_all writes on the first.
    const own = copyFixture(FIXTURE);
    spawnSync("black", ["."], { cwd: own, encoding: "utf8" });
    const r = await s.call("fix_all", { path: "." });
    expect(r).toMatchObject({ success: true, dry_run: false, rolled_back: false, changed_files: [] });
    expect(r.type_check).toMatchObject({ checker: "ty", passed: true });
    expect((r.format as { command: string }).command).toMatch(/^black /);
    expect(projectFiles(dir)).toEqual(projectFiles(own));
    // flake8's finding is still there: fix_all applied no other tool's fixes.
    expect(fs.readFileSync(path.join(dir, "pkg", "app.py"), "utf8")).toMatch(/^import os$/m);
    fs.rmSync(own, { recursive: true, force: true });
  });
});
