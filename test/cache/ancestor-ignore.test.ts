/**
 * A `.gitignore` in a folder above a project: ty honours it (it walks as git does, up to the work tree),
 * so `gen.py` listed in the work tree's `.gitignore` is no longer checked. ty's whole-program key held only
 * the project's own files, so a warm `check` still reported gen.py. The folders above the project, up to the
 * allowed root, are now in the key (ancestor-inputs.ts), as ruff's per-file key already had them.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { parseJson, PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

it.skipIf(missing("ty", [TOOLS_VENV_BIN]))(
  "ty: a .gitignore added above the project after a warm check is honoured, as by hand",
  async () => {
    const root = tempDir("mcq-ancestor-ignore-");
    spawnSync("git", ["init", "-q"], { cwd: root });
    write(path.join(root, "pkgs/b/pyproject.toml"), '[project]\nname = "b"\nversion = "0"\n');
    write(path.join(root, "pkgs/b/src/b/m.py"), "Z = 1\n");
    write(path.join(root, "pkgs/b/src/b/gen.py"), 'y: int = "s"\n');
    const env = { XDG_CACHE_HOME: tempDir("mcq-xdg-"), MCP_CODE_QUALITY_RESULT_CACHE: "true" };
    const check = async () =>
      parseJson(await runCheck(["pkgs/b", "--json", "--only", "ty"], { cwd: root, env }))
        .findings.filter((f) => f.check === "ty")
        .map((f) => `${f.file} ${f.rule_id}`);
    const byHand = () => {
      const cwd = path.join(root, "pkgs/b");
      const r = spawnSync("ty", ["check", "--output-format", "concise"], {
        cwd,
        env: { ...process.env, PATH: PATH_WITH_TOOLS },
        encoding: "utf8",
      });
      return [...r.stdout.matchAll(/^(\S+?):\d+:\d+: \w+\[([\w-]+)\]/gm)].map(
        (m) => `${path.relative(root, path.join(cwd, m[1] as string))} ${m[2]}`,
      );
    };
    try {
      expect(byHand()).toEqual(["pkgs/b/src/b/gen.py invalid-assignment"]);
      expect(await check()).toEqual(byHand());
      expect(await check()).toEqual(byHand());
      write(path.join(root, ".gitignore"), "gen.py\n");
      expect(byHand()).toEqual([]);
      expect(await check()).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
  120_000,
);
