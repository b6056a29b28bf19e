/**
 * get_status `{path}` (issue 9.11): the tools a call on that project would use, its own versions (its
 * node_modules, its virtualenv) beside the PATH and bundled ones, each compared with the program run directly.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

type Json = Record<string, unknown>;
const venvRuff = path.join(TOOLS_VENV_BIN, "ruff");

describe.skipIf(missing("npm") || !fs.existsSync(venvRuff))("get_status with a project path", () => {
  it("reports the project's ESLint, TypeScript, Prettier and virtualenv ruff beside the others", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "own-toolchain"));
    const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8" });
    if (npm.status !== 0) throw new Error(`npm ci failed: ${npm.stderr}`);
    // A virtualenv inside the project holding its own ruff.
    const bin = path.join(dir, ".venv", "bin");
    fs.mkdirSync(bin, { recursive: true });
    fs.symlinkSync("/usr/bin/python3", path.join(bin, "python3"));
    fs.copyFileSync(venvRuff, path.join(bin, "ruff"));
    fs.chmodSync(path.join(bin, "ruff"), 0o755);
    const ruffVersion = /\d+\.\d+\.\d+/.exec(
      spawnSync(path.join(bin, "ruff"), ["--version"], { encoding: "utf8" }).stdout,
    )?.[0];

    const s = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { VIRTUAL_ENV: undefined },
    });
    try {
      const plain = await s.call("get_status", {});
      expect(plain.project).toBeUndefined();

      const r = await s.call("get_status", { path: "." });
      const project = r.project as { path: string; tools: Record<string, Json> };
      expect(project.path).toBe(dir);
      const own = (name: string) => ({
        available: true,
        version: JSON.parse(fs.readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8"))
          .version,
        path: path.join(dir, "node_modules", name),
        source: "node_modules",
      });
      expect(project.tools.eslint).toMatchObject({ used: "project", project: own("eslint") });
      expect((project.tools.eslint?.project as Json).version).toBe("9.39.5");
      expect(project.tools.typescript).toMatchObject({ used: "project", project: own("typescript") });
      expect(project.tools.prettier).toMatchObject({ used: "project", project: own("prettier") });
      expect((project.tools.prettier?.bundled as Json).available).toBe(true);
      expect(project.tools.ruff).toMatchObject({
        used: "project",
        project: {
          available: true,
          version: ruffVersion,
          path: path.join(bin, "ruff"),
          source: `virtualenv ${path.join(dir, ".venv")}`,
        },
        path: (r.tools as Json).ruff,
      });
      // A tool the virtualenv lacks is the PATH one (or none).
      expect(project.tools.black?.project).toBeUndefined();
      expect(project.tools.black?.used).toBe(((r.tools as Json).black as Json).available ? "PATH" : "none");

      const outside = await s.call("get_status", { path: "/etc" });
      expect(outside).toMatchObject({ success: false, error_type: "path_validation" });
    } finally {
      await s.close();
    }
  });
});
