/**
 * findCoverageConfig (src/adapters/python/pytest.ts) reads `[run] source` / `source_pkgs` as coverage does
 * (configparser for .coveragerc, setup.cfg and tox.ini; TOML for pyproject.toml): a `[` in an earlier value,
 * a TOML list before it, a `source =` line that is only part of another value, a commented one.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findCoverageConfig } from "../../src/adapters/python/pytest.js";
import { tempDir } from "../helpers/tools.js";

function project(file: string, text: string): { dir: string; file: string } {
  const dir = tempDir("mcq-coverage-config-");
  fs.writeFileSync(path.join(dir, file), text);
  return { dir, file: path.join(dir, file) };
}

describe("findCoverageConfig", () => {
  it("finds source after a value holding '[' (.coveragerc) and after a TOML list (pyproject.toml)", () => {
    const rc = project(".coveragerc", "[run]\nomit = */[a-z]*_test.py\nsource = pkg\n");
    expect(findCoverageConfig(rc.dir, rc.dir)).toBe(rc.file);
    const toml = project(
      "pyproject.toml",
      '[tool.coverage.run]\nomit = ["tests/*"]\nsource_pkgs = ["pkg"]\n',
    );
    expect(findCoverageConfig(toml.dir, toml.dir)).toBe(toml.file);
  });

  it("reads [coverage:run] in setup.cfg and tox.ini, multi-line source included", () => {
    const cfg = project(
      "setup.cfg",
      "[metadata]\nname = x\n\n[coverage:run]\nsource =\n    pkg\n    tests\n",
    );
    expect(findCoverageConfig(cfg.dir, cfg.dir)).toBe(cfg.file);
    const tox = project("tox.ini", "[tox]\nenvlist = py3\n[coverage:run]\nSource_Pkgs = pkg\n");
    expect(findCoverageConfig(tox.dir, tox.dir)).toBe(tox.file);
  });

  it("does not take a source line that is part of another value, or commented out", () => {
    const inValue = project("setup.cfg", "[coverage:run]\nomit =\n    build/*\n    source = not-an-option\n");
    expect(findCoverageConfig(inValue.dir, inValue.dir)).toBeUndefined();
    const commented = project(".coveragerc", "[run]\n# source = pkg\nbranch = true\n");
    expect(findCoverageConfig(commented.dir, commented.dir)).toBeUndefined();
    const other = project("tox.ini", "[testenv]\nsource = pkg\n");
    expect(findCoverageConfig(other.dir, other.dir)).toBeUndefined();
  });
});
