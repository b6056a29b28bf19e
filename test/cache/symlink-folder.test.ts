/**
 * A linked folder: `proj/pkg -> ../shared`, whose `a.py` ty reads through the link (`from pkg.a import f`;
 * ty 0.0.108 by hand reports the call in m.py, and not after `f` takes a `str`). A folder link was keyed by
 * its text alone, so an edit of the target's file, or the target folder replaced, kept the cached verdict.
 * It is now keyed by the folder's contents (link-key.ts, FileHashes.folderHash).
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

const takes = (type: string) => `def f(x: ${type}) -> ${type}:\n    return x\n`;

it.skipIf(missing("ty", [TOOLS_VENV_BIN]))(
  "ty: an edit inside a linked folder's target, and the target replaced, are reported as by hand",
  async () => {
    const root = tempDir("mcq-link-folder-");
    spawnSync("git", ["init", "-q"], { cwd: root });
    const proj = path.join(root, "proj");
    write(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\nversion = "0"\n');
    write(path.join(proj, "m.py"), 'from pkg.a import f\n\nf("s")\n');
    write(path.join(root, "shared/a.py"), takes("int"));
    fs.symlinkSync("../shared", path.join(proj, "pkg"));
    const env = { XDG_CACHE_HOME: tempDir("mcq-xdg-"), MCP_CODE_QUALITY_RESULT_CACHE: "true" };
    const check = async () =>
      parseJson(await runCheck(["proj", "--json", "--only", "ty"], { cwd: root, env }))
        .findings.filter((f) => f.check === "ty")
        .map((f) => `${f.file} ${f.rule_id}`);
    const byHand = () => {
      const r = spawnSync("ty", ["check", "--output-format", "concise"], {
        cwd: proj,
        env: { ...process.env, PATH: PATH_WITH_TOOLS },
        encoding: "utf8",
      });
      return [...r.stdout.matchAll(/^(\S+?):\d+:\d+: \w+\[([\w-]+)\]/gm)].map((m) => `proj/${m[1]} ${m[2]}`);
    };
    try {
      const flagged = ["proj/m.py invalid-argument-type"];
      expect(byHand()).toEqual(flagged);
      expect(await check()).toEqual(flagged);
      expect(await check()).toEqual(flagged);
      // The target's file edited.
      write(path.join(root, "shared/a.py"), takes("str"));
      expect(byHand()).toEqual([]);
      expect(await check()).toEqual([]);
      // The target folder replaced by another of the same name.
      fs.renameSync(path.join(root, "shared"), path.join(root, "old"));
      write(path.join(root, "shared/a.py"), takes("int"));
      expect(byHand()).toEqual(flagged);
      expect(await check()).toEqual(flagged);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
  120_000,
);
