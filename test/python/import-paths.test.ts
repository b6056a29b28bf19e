/**
 * The import-path folders read from each config kind (the result cache keys their modules by content),
 * as each checker reads them: mypy splits `mypy_path` at commas and colons and expands variables,
 * $MYPY_CONFIG_FILE_DIR among them; pyright's `extraPaths` also sit in execution environments; relative
 * entries resolve against the config's folder, where the server runs the checkers.
 */
import { describe, expect, it } from "vitest";
import {
  configuredImportPaths,
  configuredPluginFiles,
  envImportPaths,
} from "../../src/adapters/python/import-paths.js";

describe("configuredImportPaths", () => {
  it("mypy.ini, .mypy.ini and setup.cfg: mypy_path split at commas and colons, variables expanded", () => {
    const text = "[mypy]\nmypy_path = stubs, ../shared:$MYPY_CONFIG_FILE_DIR/typings:${EXTRA}/x\n";
    for (const name of ["mypy.ini", ".mypy.ini", "setup.cfg"])
      expect(configuredImportPaths(`/r/app/${name}`, text, { EXTRA: "/opt" })).toEqual([
        "/r/app/stubs",
        "/r/shared",
        "/r/app/typings",
        "/opt/x",
      ]);
    expect(configuredImportPaths("/r/app/setup.cfg", "[flake8]\nmax-line-length = 9\n")).toEqual([]);
  });

  it("pyproject.toml: [tool.mypy], [tool.pyright] and [tool.ty.environment]", () => {
    const text = [
      "[tool.mypy]",
      'mypy_path = "../a"',
      "[tool.pyright]",
      'extraPaths = ["../b"]',
      'executionEnvironments = [{ root = "src", extraPaths = ["../c"] }]',
      "[tool.ty.environment]",
      'extra-paths = ["/abs/d"]',
    ].join("\n");
    expect(configuredImportPaths("/r/app/pyproject.toml", text, {})).toEqual([
      "/r/a",
      "/r/b",
      "/r/c",
      "/abs/d",
    ]);
  });

  it("pyrightconfig.json with comments and trailing commas, ty.toml", () => {
    const json = '{\n  // shared code\n  "extraPaths": ["../lib",],\n}\n';
    expect(configuredImportPaths("/r/app/pyrightconfig.json", json, {})).toEqual(["/r/lib"]);
    expect(configuredImportPaths("/r/app/ty.toml", '[environment]\nextra-paths = ["vendor"]\n', {})).toEqual([
      "/r/app/vendor",
    ]);
    expect(configuredImportPaths("/r/app/ty.toml", "not toml [", {})).toEqual([]);
  });
});

describe("envImportPaths", () => {
  it("MYPYPATH and PYTHONPATH entries, relative ones against where the checker runs", () => {
    expect(envImportPaths("/r/app", { MYPYPATH: "stubs:/abs", PYTHONPATH: "../lib" })).toEqual([
      "/r/app/stubs",
      "/abs",
      "/r/lib",
    ]);
  });
});

describe("configuredPluginFiles", () => {
  it("mypy's plugins: a path against the config's folder, a module as its file there, `:function` dropped", () => {
    const toml = '[tool.mypy]\nplugins = ["../tools/plug.py", "pkg.plug:entry", "pydantic.mypy"]\n';
    expect(configuredPluginFiles("/r/app/pyproject.toml", toml)).toEqual([
      "/r/tools/plug.py",
      "/r/app/pkg/plug.py",
      "/r/app/pkg/plug/__init__.py",
      "/r/app/pydantic/mypy.py",
      "/r/app/pydantic/mypy/__init__.py",
    ]);
    const ini = "[mypy]\nplugins = /abs/p.py:make, local_plug\n";
    for (const name of ["mypy.ini", ".mypy.ini", "setup.cfg"])
      expect(configuredPluginFiles(`/r/app/${name}`, ini)).toEqual([
        "/abs/p.py",
        "/r/app/local_plug.py",
        "/r/app/local_plug/__init__.py",
      ]);
    expect(configuredPluginFiles("/r/app/ty.toml", "")).toEqual([]);
  });
});
