/**
 * What a virtualenv's site-packages puts on the import path (the result cache keys the modules there by
 * content): a `.pth` file's path lines as Python's site module reads them, and the folders an editable
 * finder of setuptools maps (its `MAPPING`, as setuptools 65 and later write it).
 */
import { describe, expect, it } from "vitest";
import { finderPaths, pthPaths } from "../../src/adapters/python/site-paths.js";

describe("pthPaths", () => {
  it("path lines, relative ones against site-packages; comments, blanks and import lines are not paths", () => {
    const text = "# a comment\n/abs/a/src\n\nimport _virtualenv\nimport\tos\n./b.egg  \r\n";
    expect(pthPaths("/v/lib/python3.11/site-packages", text)).toEqual([
      "/abs/a/src",
      "/v/lib/python3.11/site-packages/b.egg",
    ]);
  });
});

describe("finderPaths", () => {
  it("the values of MAPPING, typed or not; NAMESPACES and the rest of the module are not read", () => {
    const finder = (mapping: string) =>
      `import sys\nfrom importlib.machinery import ModuleSpec\n\n\n${mapping}\nNAMESPACES = {'ns': ['/abs/ns']}\nPATH_PLACEHOLDER = '__editable__.liba-0.1.finder' + ".__path_hook__"\n`;
    expect(finderPaths(finder("MAPPING = {'liba': '/abs/a/src/liba', 'mod': '/abs/b/mod.py'}"))).toEqual([
      "/abs/a/src/liba",
      "/abs/b/mod.py",
    ]);
    expect(finderPaths(finder('MAPPING: dict[str, str] = {"liba": "/abs/a/src/liba"}'))).toEqual([
      "/abs/a/src/liba",
    ]);
    expect(finderPaths("import sys\n")).toEqual([]);
  });
});
