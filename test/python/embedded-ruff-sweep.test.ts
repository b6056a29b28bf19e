/**
 * Differences between the embedded ruff and the ruff CLI of its version (0.17.4) found by running both on
 * real projects (pip, pydantic, poetry, rich), each reduced to a small tree: the same findings, file for
 * file, line, column and rule, as the CLI reports them.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const CLI_BIN = path.join(REPO_ROOT, ".tools", "ruff-embedded", "bin");
const RUFF = path.join(CLI_BIN, "ruff");

function writeTree(dir: string, tree: Record<string, string>): void {
  for (const [rel, text] of Object.entries(tree)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

/** `file:line:column: CODE` of every finding `ruff check` reports in `dir`. */
function cliFindings(dir: string): string[] {
  const run = spawnSync(RUFF, ["check", "--no-cache", "--no-fix", "--output-format", "json", "."], {
    cwd: dir,
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBeLessThan(2);
  return (
    JSON.parse(run.stdout) as { filename: string; location: { row: number; column: number }; code: string }[]
  )
    .map((d) => `${path.relative(dir, d.filename)}:${d.location.row}:${d.location.column}: ${d.code}`)
    .sort();
}

let root: string;
let server: Connected;

beforeAll(async () => {
  root = tempDir("mcq-ruff-sweep-");
  server = await connectStdio({
    args: ["--allowed-paths", root, "--rate-limit", "false", "--result-cache", "false"],
    cwd: root,
    // No ruff on PATH: the server uses the embedded build.
    env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
  });
});

afterAll(async () => {
  await server?.close();
});

/** The embedded findings of the project `name` under the root, as `file:line:column: CODE`. */
async function embeddedFindings(name: string): Promise<string[]> {
  const r = await server.call("lint", { path: name, linter: "ruff", max_result_tokens: 50_000 });
  expect(r.command).toMatch(/\(embedded\)$/);
  // Named from the folder linted, as the CLI run there names them.
  return (r.issues as string[]).map((i) => /^(\S+:\d+:\d+: \S+)/.exec(i)?.[1] ?? i).sort();
}

/** Writes the tree as the project `name` under the root; returns the CLI's findings there. */
function project(name: string, tree: Record<string, string>): string[] {
  const dir = path.join(root, name);
  writeTree(dir, tree);
  return cliFindings(dir);
}

describe.skipIf(missing("ruff", [CLI_BIN]))(
  "the embedded ruff and the CLI on what real projects showed",
  () => {
    it("a config that extends another refines its rule selection instead of replacing it (pip's tests/ruff.toml)", async () => {
      const cli = project("extend-select", {
        "pyproject.toml": [
          "[tool.ruff.lint]",
          'select = ["B", "F", "E"]',
          'ignore = ["B011", "E501", "E7"]',
          "",
        ].join("\n"),
        // An extend-select and an ignore of its own: the base's ignores still hold, but for what it selects again.
        "tests/ruff.toml":
          'extend = "../pyproject.toml"\n[lint]\nextend-select = ["E501", "W"]\nignore = ["F841"]\n',
        "tests/t.py": `assert False\nx = 1\nif x == None:\n    pass\n\n\ndef f():\n    y = 1\n\n\n${"z = 1  # " + "a".repeat(90)}\n`,
        "top.py": "assert False\n\n\ndef f():\n    y = 1\n",
      });
      expect(cli).toEqual(["tests/t.py:11:89: E501", "top.py:5:5: F841"]);
      expect(await embeddedFindings("extend-select")).toEqual(cli);
    });

    it("a private module has no public definitions: no missing docstring, ANN202 for ANN201 (pydantic's _internal)", async () => {
      const body = "def f(x):\n    return x\n\n\nclass A:\n    def m(self):\n        pass\n";
      const cli = project("private-module", {
        "pyproject.toml": '[tool.ruff.lint]\nselect = ["D1", "ANN201", "ANN202"]\n',
        "pkg/__init__.py": '"""Package."""\n',
        "pkg/pub.py": body,
        "pkg/_priv.py": body,
        "pkg/__dund__.py": body,
        "pkg/_sub/__init__.py": body,
        "pkg/_sub/deep/__init__.py": "",
        "pkg/_sub/deep/z.py": body,
        // Outside a package only the file's own name counts.
        "_script.py": body,
        "_scripts/x.py": body,
      });
      expect(cli).toEqual(
        expect.arrayContaining([
          "pkg/_priv.py:1:5: ANN202",
          "pkg/pub.py:1:5: ANN201",
          "_scripts/x.py:1:1: D100",
        ]),
      );
      expect(cli.filter((f) => /_priv|_sub|_script\.py/.test(f) && /D10|ANN201/.test(f))).toEqual([]);
      expect(await embeddedFindings("private-module")).toEqual(cli);
    });
    it("a name in a package's __all__ may be a submodule: no F822 in __init__.py outside preview (pydantic-core)", async () => {
      const cli = project("init-all", {
        "pyproject.toml": '[tool.ruff.lint]\nselect = ["F822"]\n',
        "pkg/__init__.py": '__all__ = ["missing"]\n',
        "pkg/mod.py": '__all__ = ["missing"]\n',
        "preview/pyproject.toml": '[tool.ruff.lint]\nselect = ["F822"]\npreview = true\n',
        "preview/pkg/__init__.py": '__all__ = ["missing"]\n',
      });
      expect(cli).toEqual(["pkg/mod.py:1:12: F822", "preview/pkg/__init__.py:1:12: F822"]);
      // In preview the issue names the rule (undefined-export), as the CLI's concise output does.
      const embedded = (await embeddedFindings("init-all")).map((i) =>
        i.replace("undefined-export:", "F822"),
      );
      expect(embedded).toEqual(cli);
    });
    it("a project whose path holds glob characters matches its excludes as the CLI does", async () => {
      for (const name of ["a{b,c}", "[x]", "st*r"]) {
        const cli = project(`${name}/proj`, {
          "pyproject.toml": '[tool.ruff]\nextend-exclude = ["gen/*.py", "./build/"]\n',
          "gen/g.py": "import os\n",
          "build/b.py": "import os\n",
          "m.py": "import os\n",
        });
        expect(cli).toEqual(["m.py:1:8: F401"]);
        expect(await embeddedFindings(`${name}/proj`)).toEqual(cli);
      }
    });
    it("N999, EXE001 and EXE002 from the file's path and mode, under ruff 0.17.4's default rules too (rich)", async () => {
      const tree = {
        "pkg/__init__.py": "",
        "pkg/bad-name.py": "x = 1\n",
        "pkg/BadName.py": "x = 1\n",
        "pkg/class.py": "x = 1\n",
        "pkg/__main__.py": "x = 1\n",
        "pkg/migrations/__init__.py": "",
        "pkg/migrations/0001_initial.py": "x = 1\n",
        "pkg/migrations/0002-x.py": "x = 1\n",
        "bad-pkg/__init__.py": "",
        "bad-pkg/good.py": "x = 1\n",
        // Outside a package a module's name is not checked.
        "not-a-package.py": "x = 1\n",
        "setup.py": "#!/usr/bin/env python\nx = 1\n",
        "indented.py": "\n  #!/usr/bin/env python\nx = 1\n",
        "run.py": "#!/usr/bin/env python\nx = 1\n",
        "tool.py": "x = 1\n",
      };
      // No config: ruff's default rules, which include N999 and EXE001/EXE002.
      project("path-rules/defaults", tree);
      project("path-rules/configured", {
        ...tree,
        "pyproject.toml":
          '[tool.ruff.lint]\nselect = ["N", "EXE"]\n[tool.ruff.lint.pep8-naming]\nignore-names = ["Bad*"]\n',
      });
      for (const sub of ["defaults", "configured"]) {
        fs.chmodSync(path.join(root, "path-rules", sub, "run.py"), 0o755);
        fs.chmodSync(path.join(root, "path-rules", sub, "tool.py"), 0o755);
      }
      const defaults = cliFindings(path.join(root, "path-rules/defaults"));
      expect(defaults).toEqual(
        expect.arrayContaining([
          "bad-pkg/__init__.py:1:1: N999",
          "pkg/class.py:1:1: N999",
          "setup.py:1:1: EXE001",
          "indented.py:2:3: EXE001",
          "tool.py:1:1: EXE002",
        ]),
      );
      expect(await embeddedFindings("path-rules/defaults")).toEqual(defaults);
      const configured = cliFindings(path.join(root, "path-rules/configured"));
      expect(configured).not.toContain("pkg/BadName.py:1:1: N999");
      expect(await embeddedFindings("path-rules/configured")).toEqual(configured);
    });
    it("a package or src module named like the standard library still sorts as the standard library (poetry's json)", async () => {
      const imports = "import json\n\nimport zzz_third\n\nprint(json, zzz_third)\n";
      const cli = project("stdlib-names", {
        "pyproject.toml": '[tool.ruff.lint]\nselect = ["I"]\n',
        // A namespace package holding a package `json`; a src module `json`; a package `tomllib`, which is
        // the standard library's for ruff's default target only from 3.11 on.
        "src/ns/json/__init__.py": imports,
        "src/json.py": "",
        "pkg/tomllib/__init__.py": "import tomllib\n\nimport zzz_third\n\nprint(tomllib, zzz_third)\n",
        "old/pyproject.toml": '[tool.ruff]\ntarget-version = "py310"\n[tool.ruff.lint]\nselect = ["I"]\n',
        "old/tomllib/__init__.py": "import tomllib\nimport zzz_third\n\nprint(tomllib, zzz_third)\n",
      });
      // For py310 `tomllib` is the package's own (first-party), so it belongs after the third-party import.
      expect(cli).toEqual(["old/tomllib/__init__.py:1:1: I001"]);
      expect(await embeddedFindings("stdlib-names")).toEqual(cli);
    });
    it("lint.exclude skips files for the linter only, format.exclude for the formatter only, by path and name", async () => {
      const name = "tool-excludes";
      const body = "import os\nx=1\n";
      const cli = project(name, {
        "pyproject.toml": [
          "[tool.ruff.lint]",
          'select = ["F401"]',
          // A folder's name is no file's: `sub` excludes nothing here.
          'exclude = ["a.py", "sub"]',
          "[tool.ruff.format]",
          'exclude = ["b.py", "sub/*.py"]',
          "",
        ].join("\n"),
        "a.py": body,
        "b.py": body,
        "c.py": body,
        "sub/d.py": body,
      });
      expect(cli).toEqual(["b.py:1:8: F401", "c.py:1:8: F401", "sub/d.py:1:8: F401"]);
      expect(await embeddedFindings(name)).toEqual(cli);
      const dir = path.join(root, name);
      const format = spawnSync(RUFF, ["format", "--no-cache", "--check", "--output-format", "concise", "."], {
        cwd: dir,
        encoding: "utf8",
      });
      const cliUnformatted = [
        ...new Set([...format.stdout.matchAll(/^(\S+\.pyi?):\d+:\d+: /gm)].map((m) => m[1])),
      ].sort();
      expect(cliUnformatted).toEqual(["a.py", "c.py"]);
      const r = await server.call("format_check", { path: name, language: "python" });
      expect(r.command).toMatch(/\(embedded\)$/);
      expect([...(r.unformatted_files as string[])].sort()).toEqual(cliUnformatted);
      // `ruff check --fix` leaves a.py alone too.
      const fix = await server.call("lint_fix", { path: name, safety: "unsafe", dry_run: true });
      const fixed = (fix.files as { file: string }[]).map((f) => path.basename(f.file)).sort();
      expect(fixed).toEqual(["b.py", "c.py", "d.py"]);
      // A file named is linted and formatted whatever the tool's exclude says, as the CLI does.
      const named = await server.call("lint", { path: `${name}/a.py`, linter: "ruff" });
      expect(named.issues).toEqual([expect.stringMatching(/^a\.py:1:8: F401 /)]);
    });
    it("a config file given has its patterns, and its extended files', resolved from the working directory", async () => {
      const name = "config-cwd";
      const dir = path.join(root, name);
      writeTree(dir, {
        "cfg/ruff.toml": 'extend = "../base/ruff.toml"\nextend-exclude = ["gen/*.py"]\n',
        "base/ruff.toml": '[lint]\nselect = ["F401"]\n[lint.per-file-ignores]\n"pfi/*.py" = ["F401"]\n',
        "gen/a.py": "import os\n",
        "cfg/gen/b.py": "import os\n",
        "pfi/c.py": "import os\n",
        "base/pfi/e.py": "import os\n",
        "top.py": "import os\n",
      });
      const run = spawnSync(
        RUFF,
        ["check", "--no-cache", "--no-fix", "--config", "cfg/ruff.toml", "--output-format", "concise", "."],
        { cwd: dir, encoding: "utf8" },
      );
      const cli = run.stdout
        .split("\n")
        .flatMap((l) => /^(\S+:\d+:\d+: \S+)/.exec(l)?.[1] ?? [])
        .sort();
      expect(cli).toEqual(["base/pfi/e.py:1:8: F401", "cfg/gen/b.py:1:8: F401", "top.py:1:8: F401"]);
      // A server whose working directory is the project's, as the CLI's is.
      const here = await connectStdio({
        args: ["--allowed-paths", dir, "--rate-limit", "false", "--result-cache", "false"],
        cwd: dir,
        env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
      });
      try {
        const r = await here.call("lint", { path: ".", linter: "ruff", config: "cfg/ruff.toml" });
        expect(r.command).toMatch(/\(embedded\)$/);
        expect((r.issues as string[]).map((i) => /^(\S+:\d+:\d+: \S+)/.exec(i)?.[1] ?? i).sort()).toEqual(
          cli,
        );
      } finally {
        await here.close();
      }
    });
    it("a stub file is not formatted in the .py style (the wasm has no stub style), and the results say so (pydantic-core)", async () => {
      const name = "stubs";
      const stub = "def f() -> int: ...\n\nclass A:\n    x: int\n";
      writeTree(path.join(root, name), { "pyproject.toml": "[tool.ruff]\n", "s.pyi": stub, "p.py": stub });
      const format = spawnSync(RUFF, ["format", "--no-cache", "--check", "--output-format", "concise", "."], {
        cwd: path.join(root, name),
        encoding: "utf8",
      });
      // The CLI formats the stub in its stub style, where it is formatted already.
      expect(format.stdout).toContain("p.py:3:1: unformatted");
      expect(format.stdout).not.toContain("s.pyi");
      const check = await server.call("format_check", { path: name, language: "python" });
      expect(check.unformatted_files).toEqual(["p.py"]);
      expect(check.notes).toEqual(
        expect.arrayContaining([expect.stringMatching(/1 stub file\(s\) \(s\.pyi\) left out/)]),
      );
      await server.call("autoformat", { path: name, language: "python" });
      expect(fs.readFileSync(path.join(root, name, "s.pyi"), "utf8")).toBe(stub);
      expect(fs.readFileSync(path.join(root, name, "p.py"), "utf8")).not.toBe(stub);
      const lint = await server.call("lint", { path: name, linter: "ruff" });
      expect(lint.notes).toEqual(
        expect.arrayContaining([expect.stringMatching(/checks stubs as \.py files/)]),
      );
    });
    it("a script (a shebang first thing in the file) or a file beside the config gets no INP001, as from the CLI (pip's noxfile.py)", async () => {
      const cli = project("scripts", {
        "pyproject.toml": '[tool.ruff]\nsrc = ["src"]\n[tool.ruff.lint]\nselect = ["INP001"]\n',
        "scripts/run.py": "#!/usr/bin/env python\nx = 1\n",
        "scripts/lead.py": "\n  #!/usr/bin/env python\nx = 1\n",
        "scripts/plain.py": "x = 1\n",
        // Beside the config: no INP001 even though `src` does not name the folder.
        "noxfile.py": "x = 1\n",
        "sub/pyproject.toml": '[tool.ruff]\nsrc = ["lib"]\n[tool.ruff.lint]\nselect = ["INP001"]\n',
        "sub/noxfile.py": "x = 1\n",
        "sub/tools/t.py": "x = 1\n",
      });
      expect(cli).toEqual([
        "scripts/lead.py:1:1: INP001",
        "scripts/plain.py:1:1: INP001",
        "sub/tools/t.py:1:1: INP001",
      ]);
      expect(await embeddedFindings("scripts")).toEqual(cli);
    });
    it("a per-file ignore's selector covers what ruff's does: T is not TD, F is not FBT, PL is all of pylint (pydantic's tests)", async () => {
      const cli = project("selectors", {
        "pyproject.toml": [
          "[tool.ruff.lint]",
          'select = ["T20", "TD002", "PLR2004", "FBT001"]',
          "[tool.ruff.lint.per-file-ignores]",
          '"t.py" = ["T"]',
          '"p.py" = ["PL"]',
          '"f.py" = ["F"]',
          "",
        ].join("\n"),
        "t.py": "print(1)  # TODO: later\n",
        "p.py": "def g(x):\n    return x == 5\n",
        "f.py": "def f(a: bool):\n    return a\n",
      });
      expect(cli).toEqual(["f.py:1:7: FBT001", "t.py:1:13: TD002"]);
      expect(await embeddedFindings("selectors")).toEqual(cli);
    });
  },
);
