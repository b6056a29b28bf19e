/**
 * pythonTools (src/adapters/project-configs.ts) and findFlake8Config read setup.cfg / tox.ini sections
 * through the INI reader: a section is `[flake8]` / `[mypy]` itself (text after its `]` allowed), not a
 * dotted name below it, which neither flake8 nor mypy reads.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pythonTools } from "../../src/adapters/project-configs.js";
import { findFlake8Config } from "../../src/adapters/python/config-discovery.js";
import { tempDir } from "../helpers/tools.js";

function project(files: Record<string, string>): string {
  const dir = tempDir("mcq-python-tools-ini-");
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe("Python tools from INI sections", () => {
  it("takes [flake8] in setup.cfg and [mypy] in tox.ini, a comment after the header included", () => {
    const dir = project({
      "setup.cfg": "[metadata]\nname = x\n\n[flake8] # style\nmax-line-length = 100\n",
      "tox.ini": "[tox]\nenvlist = py3\n\n[mypy]\nstrict = True\n",
    });
    expect(pythonTools(dir, dir)).toEqual({ formatter: "ruff", linter: "flake8", checkers: ["mypy"] });
    expect(findFlake8Config(dir, dir)).toBe(path.join(dir, "setup.cfg"));
  });

  it("does not take a dotted section below flake8 or mypy, nor a header-like line inside a value", () => {
    const dir = project({
      "setup.cfg": "[mypy.plugins]\nx = 1\n[flake8.extension]\nF = plugin\n[options]\nnotes =\n  [flake8]\n",
    });
    expect(pythonTools(dir, dir)).toEqual({ formatter: "ruff", linter: "ruff", checkers: ["ty"] });
    expect(findFlake8Config(dir, dir)).toBeUndefined();
    const local = project({ ".flake8": "[flake8:local-plugins]\nextension =\n    X = x:X\n" });
    expect(findFlake8Config(local, local)).toBe(path.join(local, ".flake8"));
  });
});
