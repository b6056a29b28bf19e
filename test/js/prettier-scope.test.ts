/**
 * Issue 39: a formatter's scope is the project's. Without a language, format_check and autoformat run
 * Prettier over everything it formats in the project (JavaScript and TypeScript, JSON, CSS...), honouring
 * .prettierignore, as `prettier --check .` does; before, autoformat took the TypeScript files only and
 * answered `formatted: true` beside an unformatted lib/help.js (tj/commander.js).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const FIXTURE = path.join(FIXTURES, "js", "prettier-scope");
const PRETTIER = path.join(REPO_ROOT, "node_modules", ".bin", "prettier");

/** The files `prettier --check .` names in a folder, sorted (the server's own .mcp-cache left out). */
function prettierCheck(dir: string): string[] {
  const run = spawnSync(PRETTIER, ["--check", "--no-color", "."], { cwd: dir, encoding: "utf8" });
  return [...(run.stdout + run.stderr).matchAll(/^\[warn\] (\S+\.\w+)$/gm)]
    .map((m) => m[1] as string)
    .filter((f) => !f.startsWith(".mcp-cache/"))
    .sort();
}

const projectFiles = (dir: string) =>
  Object.fromEntries(Object.entries(treeHash(dir)).filter(([f]) => !f.startsWith(".mcp-cache")));

describe("Prettier's scope is the project's", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(FIXTURE);
    s = await connectStdio({ args: ["--allowed-paths", dir, "--rate-limit", "false"], cwd: dir });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("format_check and a dry autoformat name what `prettier --check .` names (not generated/, ignored)", async () => {
    const own = prettierCheck(dir);
    expect(own).toEqual(["data/config.json", "lib/help.js", "package.json", "styles/site.css"]);
    const before = treeHash(dir);
    const check = await s.call("format_check", { path: "." });
    expect(check).toMatchObject({ success: true, formatted: false, unformatted_count: own.length });
    expect([...(check.unformatted_files as string[])].sort()).toEqual(own);
    const dry = await s.call("autoformat", { path: ".", dry_run: true });
    expect(dry).toMatchObject({ success: true, formatted: false, changed_count: own.length });
    expect([...(dry.changed_files as string[])].sort()).toEqual(own);
    expect(treeHash(dir)).toEqual(before);
  });

  it("autoformat writes what `prettier --write .` writes", async () => {
    const other = copyFixture(FIXTURE);
    spawnSync(PRETTIER, ["--write", "."], { cwd: other, encoding: "utf8" });
    const r = await s.call("autoformat", { path: "." });
    expect(r).toMatchObject({ success: true, formatted: true, changed_count: 4 });
    expect(projectFiles(dir)).toEqual(projectFiles(other));
    expect(prettierCheck(dir)).toEqual([]);
    fs.rmSync(other, { recursive: true, force: true });
  });

  it("with a language, only that language's files (as before)", async () => {
    const other = copyFixture(FIXTURE);
    const t = await connectStdio({ args: ["--allowed-paths", other, "--rate-limit", "false"], cwd: other });
    try {
      const r = await t.call("format_check", { path: ".", language: "javascript" });
      expect(r.unformatted_files).toEqual(["lib/help.js"]);
    } finally {
      await t.close();
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
