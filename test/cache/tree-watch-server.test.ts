/**
 * Issue 42: a server that keeps the tree's state from inotify (--tree-watch, the default) answers every
 * call as a server that stats every folder and file (--tree-watch false) does, through the real MCP
 * protocol, with the real ruff, after each kind of change an agent or a person makes between two calls:
 * an edit, a new file, a deletion, a folder renamed and another put in its place, a .gitignore edited, a
 * new folder with a file. A missed change would make the watched server's answer differ (a stale verdict).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const ENV = { PATH: `${path.join(REPO_ROOT, ".tools", "venv", "bin")}:${process.env.PATH ?? ""}` };

let watched: Connected;
let statting: Connected;
let dir: string;

function project(): string {
  const root = tempDir("mcq-tree-watch-server-");
  execFileSync("git", ["init", "-q"], { cwd: root });
  fs.mkdirSync(path.join(root, "pkg", "sub"), { recursive: true });
  fs.writeFileSync(path.join(root, "pyproject.toml"), '[tool.ruff.lint]\nselect = ["F"]\n');
  fs.writeFileSync(path.join(root, "pkg", "__init__.py"), "");
  fs.writeFileSync(path.join(root, "pkg", "a.py"), "x = 1\n");
  fs.writeFileSync(path.join(root, "pkg", "sub", "b.py"), "y = 2\n");
  return root;
}

/**
 * What a lint says, without timings and cache markers (a file written just before the first server's call
 * is "changed just before it" there, and older by the second's: that result is not stored, and says so).
 */
async function lint(server: Connected): Promise<string> {
  const result = await server.call("lint", { path: dir, linter: "ruff" });
  expect(result.success, JSON.stringify(result).slice(0, 400)).toBe(true);
  return JSON.stringify(result, (key, value: unknown) =>
    ["duration_ms", "durationMs", "cached", "uncached"].includes(key) ? undefined : value,
  );
}

/** Both servers' answers after a change: equal, and naming the findings expected. */
async function bothSay(findings: string[]): Promise<void> {
  const [a, b] = [await lint(watched), await lint(statting)];
  expect(a).toBe(b);
  // Compact issues: "file:line:col: CODE message".
  const issues = (JSON.parse(a) as { issues?: string[] }).issues ?? [];
  expect(issues.map((i) => i.replace(/^(.*?):\d+:\d+: (\S+) .*$/s, "$1:$2")).sort()).toEqual(findings);
}

beforeAll(async () => {
  dir = project();
  const args = (watch: boolean) => [
    "--allowed-paths",
    dir,
    "--rate-limit",
    "false",
    "--result-cache",
    "true",
    "--result-cache-dir",
    tempDir("mcq-tree-watch-cache-"),
    "--tree-watch",
    String(watch),
  ];
  [watched, statting] = await Promise.all([
    connectStdio({ args: args(true), env: { ...ENV, XDG_CACHE_HOME: tempDir("mcq-xdg-") } }),
    connectStdio({ args: args(false), env: { ...ENV, XDG_CACHE_HOME: tempDir("mcq-xdg-") } }),
  ]);
});

afterAll(async () => {
  await Promise.all([watched?.close(), statting?.close()]);
});

describe("a watched server answers as one that stats everything", () => {
  it("after an edit, a new file, a deletion, a folder swapped, a .gitignore edit and a new folder", async () => {
    await bothSay([]);
    await bothSay([]);
    fs.writeFileSync(path.join(dir, "pkg", "a.py"), "import os\nx = 1\n");
    await bothSay(["pkg/a.py:F401"]);
    fs.writeFileSync(path.join(dir, "pkg", "sub", "c.py"), "import sys\n");
    await bothSay(["pkg/a.py:F401", "pkg/sub/c.py:F401"]);
    fs.rmSync(path.join(dir, "pkg", "a.py"));
    await bothSay(["pkg/sub/c.py:F401"]);
    fs.renameSync(path.join(dir, "pkg", "sub"), path.join(dir, "pkg", "old"));
    fs.mkdirSync(path.join(dir, "pkg", "sub"));
    fs.writeFileSync(path.join(dir, "pkg", "sub", "d.py"), "import json\n");
    await bothSay(["pkg/old/c.py:F401", "pkg/sub/d.py:F401"]);
    fs.writeFileSync(path.join(dir, ".gitignore"), "pkg/old/\n");
    await bothSay(["pkg/sub/d.py:F401"]);
    fs.writeFileSync(path.join(dir, ".gitignore"), "pkg/sub/\n");
    await bothSay(["pkg/old/c.py:F401"]);
    fs.mkdirSync(path.join(dir, "pkg", "new", "deeper"), { recursive: true });
    fs.writeFileSync(path.join(dir, "pkg", "new", "deeper", "e.py"), "import re\n");
    await bothSay(["pkg/new/deeper/e.py:F401", "pkg/old/c.py:F401"]);
    // The same length and the same modification time: only its change time and its event say it changed.
    const file = path.join(dir, "pkg", "new", "deeper", "e.py");
    const { atime, mtime } = fs.statSync(file);
    fs.writeFileSync(file, "import io\n");
    fs.utimesSync(file, atime, mtime);
    await bothSay(["pkg/new/deeper/e.py:F401", "pkg/old/c.py:F401"]);
    const issues = (JSON.parse(await lint(watched)) as { issues: string[] }).issues;
    expect(issues.join(" ")).toContain("`io` imported but unused");
  });
});
