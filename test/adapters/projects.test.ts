/**
 * Issue 39: the projects a path holds (src/adapters/projects.ts), on real trees in the temp dir: each
 * language's rule of what a project covers, what the search skips, and files outside any project.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { ownUnitOnly, projectLayout } from "../../src/adapters/projects.js";
import { missing, tempDir } from "../helpers/tools.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

/** A tree from `{relative path: content}`. */
function tree(files: Record<string, string>): string {
  const dir = tempDir("mcq-projects-");
  made.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** `kind ecosystem relative-dir` of each unit, and the notes. */
function layoutOf(dir: string, target = dir) {
  const layout = projectLayout(target, dir);
  return {
    units: layout.units.map((u) => `${u.kind} ${u.ecosystem} ${path.relative(dir, u.dir) || "."}`),
    notes: layout.notes,
  };
}

describe("projectLayout", () => {
  it("a monorepo root without a manifest: one unit per project; a project path is itself", () => {
    const dir = tree({
      "py/pyproject.toml": "[project]\nname='p'\n",
      "py/src/p/__init__.py": "",
      "go/go.mod": "module m\n",
      "go/main.go": "package main\n",
      "rs/Cargo.toml": "[package]\nname='r'\n",
      "rs/src/lib.rs": "",
      "js/package.json": "{}",
      "js/src/a.ts": "",
      "rb/Gemfile": "",
      "rb/a.rb": "",
    });
    expect(layoutOf(dir).units.sort()).toEqual(
      ["project go go", "project js js", "project python py", "project ruby rb", "project rust rs"].sort(),
    );
    expect(layoutOf(dir, path.join(dir, "py")).units).toEqual(["target python py"]);
    expect(layoutOf(dir, path.join(dir, "py", "src")).units).toEqual(["target python py/src"]);
  });

  it("Python, JS and Ruby projects cover nested ones; every Go module is its own; a Cargo workspace covers its members", () => {
    const dir = tree({
      "pyproject.toml": "[project]\nname='p'\n",
      "app.py": "",
      "plugins/x/pyproject.toml": "[project]\nname='x'\n",
      "plugins/x/x.py": "",
      "go.mod": "module m\n",
      "main.go": "package main\n",
      "tools/go.mod": "module t\n",
      "tools/t.go": "package main\n",
      "crates/Cargo.toml": "[workspace]\nmembers = ['a']\n",
      "crates/a/Cargo.toml": "[package]\nname='a'\n",
      "crates/a/src/lib.rs": "",
      "crates/fuzz/Cargo.toml": "[package]\nname='f'\n[workspace]\n",
      "crates/fuzz/src/lib.rs": "",
    });
    expect(layoutOf(dir).units.sort()).toEqual(
      [
        "target python .",
        "target go .",
        "project go tools",
        "project rust crates",
        "project rust crates/fuzz",
      ].sort(),
    );
  });

  it("an npm workspace root covers its packages, as its own `eslint .` and `prettier --check .` do", () => {
    const dir = tree({
      "package.json": JSON.stringify({ workspaces: ["packages/*"] }),
      "eslint.config.js": "export default [];\n",
      "packages/a/package.json": "{}",
      "packages/a/tsconfig.json": "{}",
      "packages/a/src/a.ts": "",
      "packages/b/package.json": "{}",
      "packages/b/b.js": "",
    });
    expect(layoutOf(dir).units).toEqual(["target js ."]);
    // Checked from a folder above it (one of its own: the temp folder's other entries are not this test's).
    const above = tempDir("mcq-projects-above-");
    made.push(above);
    fs.renameSync(dir, path.join(above, "ws"));
    expect(layoutOf(above, above).units).toEqual(["project js ws"]);
  });

  it("skips dependencies, virtualenvs (by pyvenv.cfg), hidden folders, test data and vendored code", () => {
    const dir = tree({
      "py/pyproject.toml": "[project]\nname='p'\n",
      "py/p.py": "",
      "node_modules/dep/package.json": "{}",
      "node_modules/dep/index.js": "",
      "env-3.12/pyvenv.cfg": "",
      "env-3.12/lib/site/pyproject.toml": "",
      "env-3.12/lib/site/m.py": "",
      ".cache/x/go.mod": "module x\n",
      ".cache/x/x.go": "package x\n",
      "test/fixtures/broken/Cargo.toml": "[package]\n",
      "test/fixtures/broken/src/lib.rs": "",
      "vendor/lib/Gemfile": "",
      "vendor/lib/l.rb": "",
    });
    expect(layoutOf(dir).units).toEqual(["project python py"]);
  });

  it.skipIf(missing("git"))("skips .gitignore'd folders in a git repository", () => {
    const dir = tree({
      ".gitignore": "generated/\n",
      "svc/go.mod": "module s\n",
      "svc/s.go": "package s\n",
      "generated/go.mod": "module g\n",
      "generated/g.go": "package g\n",
    });
    spawnSync("git", ["init", "-q"], { cwd: dir });
    expect(layoutOf(dir).units).toEqual(["project go svc"]);
  });

  it("files outside their language's projects are units where they are; Go and Rust ones are only noted", () => {
    const dir = tree({
      "py/pyproject.toml": "[project]\nname='p'\n",
      "py/p.py": "",
      "tools/gen.py": "",
      "setup_env.py": "",
      "go/go.mod": "module m\n",
      "go/m.go": "package main\n",
      "scripts/build.go": "package main\n",
      "rs/Cargo.toml": "[package]\nname='r'\n",
      "rs/src/lib.rs": "",
      "snippets/a.rs": "",
    });
    const { units, notes } = layoutOf(dir);
    expect(units).toEqual(
      expect.arrayContaining(["project python py", "loose python setup_env.py", "loose python tools"]),
    );
    expect(units.filter((u) => u.includes("scripts") || u.includes("snippets"))).toEqual([]);
    expect(notes).toEqual(
      expect.arrayContaining([
        `go: scripts is in no Go module below ${dir}: not checked`,
        `rust: snippets is in no crate below ${dir}: not checked`,
      ]),
    );
  });

  it("a folder of loose code with no project is the path itself, as before", () => {
    const dir = tree({ "a.py": "", "lib/b.py": "" });
    expect(layoutOf(dir).units).toEqual(["target python ."]);
  });

  it("inside ownUnitOnly (check's calls, each at a unit it placed): only the units at the path itself", async () => {
    const dir = tree({
      "go.mod": "module m\n",
      "main.go": "package main\n",
      "_examples/rest/go.mod": "module r\n",
      "_examples/rest/main.go": "package main\n",
      "rs/Cargo.toml": "[package]\nname='r'\n",
      "rs/src/lib.rs": "",
      "rs/inner/Cargo.toml": "[package]\nname='i'\n",
      "rs/inner/main.rs": "",
    });
    const rs = path.join(dir, "rs");
    expect(layoutOf(dir).units).toEqual([
      "target go .",
      "project go _examples/rest",
      "project rust rs",
      "project rust rs/inner",
    ]);
    expect(layoutOf(dir, rs).units).toEqual(["target rust rs", "project rust rs/inner"]);
    const own = await ownUnitOnly(() => Promise.resolve([layoutOf(dir).units, layoutOf(dir, rs).units]));
    expect(own).toEqual([["target go ."], ["target rust rs"]]);
    // A path that is no unit itself (a monorepo root's): its units as before.
    const mono = tree({ "go/go.mod": "module m\n", "go/main.go": "package main\n" });
    expect(await ownUnitOnly(() => Promise.resolve(layoutOf(mono).units))).toEqual(["project go go"]);
  });
});
