/**
 * A source that is a symbolic link (`pkgs/a/src/a/u.py -> ../../../../shared_src/u.py`) is read by the
 * tools through the link: ruff and ty report the link's path with the target's content. The result cache
 * keyed a link by nothing (FileHashes never followed links), so after an edit of the target a warm `check`
 * still said "passed" where the tool by hand reported findings. The key is now the target's content (inside
 * the allowed roots); a link leading outside them or nowhere is keyed by its text and a marker.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FileHashes } from "../../src/cache/file-hashes.js";
import { sha256 } from "../../src/cache/hash.js";
import { parseJson, PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A git work tree with pkgs/a, whose src/a/u.py is a link to shared_src/u.py beside pkgs. */
function linkedProject(): { root: string; target: string } {
  const root = tempDir("mcq-link-");
  spawnSync("git", ["init", "-q"], { cwd: root });
  write(path.join(root, "pkgs/a/pyproject.toml"), '[project]\nname = "a"\nversion = "0"\n');
  write(path.join(root, "pkgs/a/src/a/m.py"), "X = 1\n");
  const target = path.join(root, "shared_src/u.py");
  write(target, "x: int = 1\n");
  fs.symlinkSync("../../../../shared_src/u.py", path.join(root, "pkgs/a/src/a/u.py"));
  return { root, target };
}

/** `check pkgs/a --only <tool>`: the rule ids `tool` reported on each file (relative to the root), sorted. */
async function checkFindings(root: string, tool: string, env: Record<string, string>): Promise<string[]> {
  const json = parseJson(await runCheck(["pkgs/a", "--json", "--only", tool], { cwd: root, env }));
  return json.findings
    .filter((f) => f.check === tool)
    .map((f) => `${f.file} ${f.rule_id}`)
    .sort();
}

/** The tool by hand in pkgs/a: the same, from its JSON (ruff) or concise (ty) output. */
function byHand(root: string, tool: string): string[] {
  const cwd = path.join(root, "pkgs/a");
  const env = { ...process.env, PATH: PATH_WITH_TOOLS };
  if (tool === "ruff") {
    const r = spawnSync("ruff", ["check", "--no-cache", "--output-format", "json"], {
      cwd,
      env,
      encoding: "utf8",
    });
    return (JSON.parse(r.stdout) as { filename: string; code: string }[])
      .map((f) => `${path.relative(root, f.filename)} ${f.code}`)
      .sort();
  }
  const r = spawnSync("ty", ["check", "--output-format", "concise"], { cwd, env, encoding: "utf8" });
  return [...r.stdout.matchAll(/^(\S+?):\d+:\d+: \w+\[([\w-]+)\]/gm)]
    .map((m) => `${path.relative(root, path.join(cwd, m[1] as string))} ${m[2]}`)
    .sort();
}

describe("a linked source file is keyed by its target's content", () => {
  for (const [tool, edit] of [
    ["ruff", "import json\nl = 1\n"],
    ["ty", 'x: int = "no"\n'],
  ] as const)
    for (const replay of ["1", "0"])
      it.skipIf(missing(tool, [TOOLS_VENV_BIN]))(
        `${tool}: an edit of the target after a warm check is reported as by hand (answer replay ${replay})`,
        async () => {
          const { root, target } = linkedProject();
          const env = {
            XDG_CACHE_HOME: tempDir("mcq-xdg-"),
            // The suite runs without the cache (vitest.config.ts); this is its test.
            MCP_CODE_QUALITY_RESULT_CACHE: "true",
            MCP_CODE_QUALITY_CHECK_REPLAY: replay,
          };
          try {
            expect(await checkFindings(root, tool, env)).toEqual([]);
            expect(await checkFindings(root, tool, env)).toEqual([]);
            fs.writeFileSync(target, edit);
            const hand = byHand(root, tool);
            expect(hand.length).toBeGreaterThan(0);
            expect(hand.every((f) => f.startsWith("pkgs/a/src/a/u.py "))).toBe(true);
            expect(await checkFindings(root, tool, env)).toEqual(hand);
          } finally {
            fs.rmSync(root, { recursive: true, force: true });
          }
        },
      );
});

it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
  "ruff: a linked file added after a warm check is checked, as by hand (the file list is the walk's links too)",
  async () => {
    const { root } = linkedProject();
    const env = { XDG_CACHE_HOME: tempDir("mcq-xdg-"), MCP_CODE_QUALITY_RESULT_CACHE: "true" };
    try {
      write(path.join(root, "shared_src/v.py"), "import os\n");
      expect(await checkFindings(root, "ruff", env)).toEqual([]);
      expect(await checkFindings(root, "ruff", env)).toEqual([]);
      fs.symlinkSync("../../../../shared_src/v.py", path.join(root, "pkgs/a/src/a/v.py"));
      const hand = byHand(root, "ruff");
      expect(hand).toEqual(["pkgs/a/src/a/v.py F401"]);
      expect(await checkFindings(root, "ruff", env)).toEqual(hand);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
);

describe("FileHashes on a link", () => {
  it("is the target's hash inside the roots, the link's text and a marker outside them or dangling", () => {
    const root = tempDir("mcq-link-hash-");
    const outside = tempDir("mcq-link-outside-");
    try {
      write(path.join(root, "t.py"), "a = 1\n");
      write(path.join(outside, "o.py"), "secret = 1\n");
      const link = path.join(root, "l.py");
      fs.symlinkSync("t.py", link);
      const hashes = new FileHashes(undefined, [root]);
      expect(hashes.hashOf(link)).toBe(`→${sha256("a = 1\n")}`);
      fs.writeFileSync(path.join(root, "t.py"), "a = 22\n");
      expect(hashes.hashOf(link)).toBe(`→${sha256("a = 22\n")}`);
      fs.rmSync(link);
      fs.symlinkSync(path.join(outside, "o.py"), link);
      expect(hashes.hashOf(link)).toBe(`link:outside:${path.join(outside, "o.py")}`);
      fs.rmSync(link);
      fs.symlinkSync("gone.py", link);
      expect(hashes.hashOf(link)).toBe("link:dangling:gone.py");
      write(path.join(root, "gone.py"), "b = 1\n");
      expect(hashes.hashOf(link)).toBe(`→${sha256("b = 1\n")}`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
