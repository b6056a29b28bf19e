/**
 * Prettier's CLI takes indentation, line width and line endings from .editorconfig, under the config file's
 * own options and alone when there is no config file. The worker resolved the config with `editorconfig:
 * false` (and no config at all without a config file): a project with `indent_size = 4` in .editorconfig was
 * "formatted" where `prettier --check .` names its 2-space files, and the other way round. Compared with the
 * real Prettier, through the real server.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const PRETTIER = path.join(REPO_ROOT, "node_modules", ".bin", "prettier");

/** The files `prettier --check .` names in a folder, sorted. */
function prettierCheck(dir: string): string[] {
  const run = spawnSync(PRETTIER, ["--check", "--no-color", "."], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return [...(run.stdout + run.stderr).matchAll(/^\[warn\] (\S+\.\w+)$/gm)]
    .map((m) => m[1] as string)
    .filter((f) => !f.startsWith(".mcp-cache/"))
    .sort();
}

/** A repository whose .editorconfig asks for 4 spaces; two.js is indented by 2, four.js by 4. */
function project(base: string, name: string, prettierrc: boolean): string {
  const dir = path.join(base, name);
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  spawnSync("git", ["init", "-q", dir]);
  fs.writeFileSync(
    path.join(dir, ".editorconfig"),
    "root = true\n\n[*]\nindent_style = space\nindent_size = 4\n",
  );
  fs.writeFileSync(path.join(dir, "package.json"), '{\n    "name": "ec",\n    "private": true\n}\n');
  if (prettierrc) fs.writeFileSync(path.join(dir, ".prettierrc"), "{}\n");
  fs.writeFileSync(path.join(dir, "src", "two.js"), "function f() {\n  return 1;\n}\n");
  fs.writeFileSync(path.join(dir, "src", "four.js"), "function g() {\n    return 2;\n}\n");
  return dir;
}

describe("Prettier reads .editorconfig as its CLI does", () => {
  let base: string;
  let s: Connected;
  beforeAll(async () => {
    base = tempDir("mcq-prettier-editorconfig-");
    project(base, "with-config", true);
    project(base, "without-config", false);
    s = await connectStdio({
      args: ["--allowed-paths", base, "--rate-limit", "false", "--result-cache", "false"],
      cwd: base,
    });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  for (const name of ["with-config", "without-config"]) {
    it(`${name}: format_check names what \`prettier --check .\` names`, async () => {
      const dir = path.join(base, name);
      const own = prettierCheck(dir);
      expect(own).toEqual(["src/two.js"]);
      const r = await s.call("format_check", { path: dir, formatter: "prettier" });
      expect(r).toMatchObject({ success: true, formatted: false });
      expect([...(r.unformatted_files as string[])].sort()).toEqual(own);
    });
  }
});
