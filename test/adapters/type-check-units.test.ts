/**
 * Which nested Python projects a type checker runs at on their own (src/adapters/type-check-units.ts): those
 * whose own folder configures a type checker, by each file a checker reads its settings from; deeper ones
 * too, each left out of the run around it. On real trees in the temp dir.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { typeCheckersConfiguredIn } from "../../src/adapters/project-configs.js";
import { ownTypeCheckRoots } from "../../src/adapters/type-check-units.js";
import { tempDir } from "../helpers/tools.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = tempDir("mcq-type-check-units-");
  made.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe("nested Python projects with their own type-checker settings", () => {
  it("knows each checker's config files, in the folder itself only", () => {
    const dir = tree({
      "mypy-ini/mypy.ini": "[mypy]\n",
      "setup-cfg/setup.cfg": "[metadata]\nname = x\n\n[mypy]\nstrict = True\n",
      "tox-ini/tox.ini": "[mypy]\n",
      "pyright-json/pyrightconfig.json": "{}\n",
      "ty-toml/ty.toml": "",
      "all/pyproject.toml":
        '[tool.mypy]\n[tool.pyright.defineConstant]\nX = true\n[tool.ty.rules]\nx = "ignore"\n',
      "none/pyproject.toml": '[project]\nname = "x"\n[tool.ruff]\n[tool.mypyc]\n',
      "none/sub/pyproject.toml": "[tool.mypy]\n",
    });
    const at = (d: string) => typeCheckersConfiguredIn(path.join(dir, d));
    expect(at("mypy-ini")).toEqual(["mypy"]);
    expect(at("setup-cfg")).toEqual(["mypy"]);
    expect(at("tox-ini")).toEqual(["mypy"]);
    expect(at("pyright-json")).toEqual(["pyright"]);
    expect(at("ty-toml")).toEqual(["ty"]);
    expect(at("all")).toEqual(["mypy", "pyright", "ty"]);
    // `[tool.mypyc]` is no mypy table; a config below is not the folder's.
    expect(at("none")).toEqual([]);
  });

  it("each run leaves out the configured projects below it; an unconfigured one is the outer run's", () => {
    const dir = tree({
      "pyproject.toml": "[tool.mypy]\n",
      "app.py": "x = 1\n",
      "packages/a/pyproject.toml": "[tool.mypy]\nstrict = true\n",
      "packages/a/a.py": "x = 1\n",
      "packages/a/plugins/p/pyproject.toml": "[tool.ty]\n",
      "packages/a/plugins/p/p.py": "x = 1\n",
      "packages/c/pyproject.toml": '[project]\nname = "c"\n',
      "packages/c/c.py": "x = 1\n",
      // A checker's config alone is no project (projects.ts: a manifest makes one): the outer run's.
      "packages/g/pyrightconfig.json": "{}\n",
      "packages/g/g.py": "x = 1\n",
      // No Python files: nothing to check there.
      "packages/e/pyproject.toml": "[tool.mypy]\n",
      // Test data is no project of the path's.
      "tests/fixtures/f/pyproject.toml": "[tool.mypy]\n",
      "tests/fixtures/f/f.py": "x = 1\n",
    });
    const rel = (ds: string[]) => ds.map((d) => path.relative(dir, d));
    expect(rel(ownTypeCheckRoots(dir, dir))).toEqual(["packages/a", "packages/a/plugins/p"]);
    expect(rel(ownTypeCheckRoots(path.join(dir, "packages/a"), dir))).toEqual(["packages/a/plugins/p"]);
    expect(rel(ownTypeCheckRoots(path.join(dir, "packages"), dir))).toEqual([
      "packages/a",
      "packages/a/plugins/p",
    ]);
    expect(ownTypeCheckRoots(path.join(dir, "packages/c"), dir)).toEqual([]);
    expect(ownTypeCheckRoots(path.join(dir, "app.py"), dir)).toEqual([]);
  });
});
