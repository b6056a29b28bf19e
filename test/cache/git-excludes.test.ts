/**
 * git's own excludes: ty and ruff skip a file listed in the repository's `.git/info/exclude` or in git's
 * global excludes file (`core.excludesFile`, by default `$XDG_CONFIG_HOME/git/ignore`, else
 * `~/.config/git/ignore`), as git does (measured by hand: ty 0.0.108, ruff 0.17.6). Neither file was in a key,
 * so after one was edited a warm `check` still reported the file: each case warms the cache, edits the file,
 * and the findings must be what the tool says by hand with the same home.
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

/** Our environment with `home` as HOME and no XDG_CONFIG_HOME (git's default places, under the home). */
function handEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: PATH_WITH_TOOLS, HOME: home };
  delete env.XDG_CONFIG_HOME;
  return env;
}

/** The tool by hand in `root`, with `home` as HOME: each finding as `file rule`, sorted. */
function byHand(tool: "ty" | "ruff", root: string, home: string): string[] {
  const args =
    tool === "ty"
      ? ["check", "--output-format", "concise"]
      : ["check", "--output-format", "concise", "--no-cache"];
  const r = spawnSync(tool, args, {
    cwd: root,
    env: handEnv(home),
    encoding: "utf8",
  });
  const re = tool === "ty" ? /^(\S+?):\d+:\d+: \w+\[([\w-]+)\]/gm : /^(\S+?):\d+:\d+: (\w+\d+)/gm;
  return [...r.stdout.matchAll(re)].map((m) => `${m[1]} ${m[2]}`).sort();
}

it.skipIf(missing("ty", [TOOLS_VENV_BIN]) || missing("ruff", [TOOLS_VENV_BIN]))(
  "ty and ruff: an edit of .git/info/exclude or of the global excludes file is honoured, as by hand",
  async () => {
    const root = tempDir("mcq-git-excludes-");
    const home = tempDir("mcq-git-excludes-home-");
    spawnSync("git", ["init", "-q"], { cwd: root });
    write(
      path.join(root, "pyproject.toml"),
      '[project]\nname = "p"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["F"]\n',
    );
    write(path.join(root, "a.py"), 'import os\ny: int = "s"\n');
    write(path.join(root, "b.py"), "Z = 1\n");
    const env = {
      XDG_CACHE_HOME: tempDir("mcq-xdg-"),
      MCP_CODE_QUALITY_RESULT_CACHE: "true",
      HOME: home,
      XDG_CONFIG_HOME: undefined,
    };
    const check = async (tool: "ty" | "ruff") =>
      parseJson(await runCheck([".", "--json", "--only", tool], { cwd: root, env }))
        .findings.filter((f) => f.check === tool)
        .map((f) => `${f.file} ${f.rule_id}`)
        .sort();
    const both = async () => ({ ty: await check("ty"), ruff: await check("ruff") });
    const hand = () => ({ ty: byHand("ty", root, home), ruff: byHand("ruff", root, home) });
    try {
      const all = { ty: ["a.py invalid-assignment"], ruff: ["a.py F401"] };
      expect(hand()).toEqual(all);
      expect(await both()).toEqual(all);
      expect(await both()).toEqual(all);
      // The repository's own excludes.
      fs.writeFileSync(path.join(root, ".git/info/exclude"), "a.py\n");
      expect(hand()).toEqual({ ty: [], ruff: [] });
      expect(await both()).toEqual(hand());
      fs.writeFileSync(path.join(root, ".git/info/exclude"), "");
      expect(hand()).toEqual(all);
      expect(await both()).toEqual(all);
      // The global excludes file, at its default place (shown to the sandboxed tools with ~/.gitconfig).
      write(path.join(home, ".config/git/ignore"), "a.py\n");
      expect(hand()).toEqual({ ty: [], ruff: [] });
      expect(await both()).toEqual(hand());
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  },
  180_000,
);
