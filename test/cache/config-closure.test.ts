/**
 * The result cache answers only for inputs it looked at (issue 39): on real project shapes whose
 * configuration reaches outside the project (a ruff `extend`, a tsconfig `extends`, a module an ESLint
 * config imports, a go.mod `replace`, a cargo path dependency), whose configuration adds a file kind
 * (ruff's `extend-include`, an ESLint `files` pattern), a ruff project with a Markdown file, two clones of
 * one tree of which one has its dependencies installed, and a config outside the allowed paths: after
 * each change the cached server answers what a server without the cache answers, which is what the tool
 * itself says on the command line.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PATH = `${TOOLS_VENV_BIN}:${process.env.PATH}`;
const RUFF = path.join(TOOLS_VENV_BIN, "ruff");
const NO_RUFF = missing("ruff", [TOOLS_VENV_BIN]);
const NO_GO = missing("go");
const NO_CARGO = missing("cargo");
const TSC = path.join(REPO_ROOT, "node_modules", ".bin", "tsc");
const ESLINT = path.join(REPO_ROOT, "node_modules", ".bin", "eslint");

/** A result without what differs between two servers' runs: durations, cache markers, worker pids. */
function comparable(result: Record<string, unknown>): string {
  return JSON.stringify(result, (key, value: unknown) => {
    if (key === "duration_ms" || key === "durationMs" || key === "cached" || key === "uncached")
      return undefined;
    if (key === "notes" && Array.isArray(value))
      return value.filter((n) => typeof n !== "string" || !/\bpid \d+/.test(n));
    return value;
  });
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** The rule ids of a result's issue strings, sorted (`a.py:1:8: F401 ...` → `a.py F401`). */
function issueIds(result: Record<string, unknown>): string[] {
  return ((result.issues as string[]) ?? [])
    .map((i) => i.replace(/^(.+?):\d+:\d+: (\S+).*$/s, "$1 $2"))
    .sort();
}

let root: string;
let outside: string;
let cached: Connected;
let fresh: Connected;

/**
 * The call on the cached server only: the shapes whose cached result is compared with an uncached server's
 * after each change in cached-equals-fresh.test.ts (tsc's extends, go's replace) are compared here with the
 * tool's own command, which spares two cold starts of a slow toolchain.
 */
async function cachedCall(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const c = await cached.call(tool, args);
  expect(c.success, JSON.stringify(c)).toBe(true);
  return c;
}

/** The call on both servers: equal results (the cached one's marker returned for the caller to check). */
async function both(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const [c, f] = await Promise.all([cached.call(tool, args), fresh.call(tool, args)]);
  expect(c.success, JSON.stringify(c)).toBe(true);
  expect(comparable(c)).toBe(comparable(f));
  return c;
}

beforeAll(async () => {
  root = tempDir("mcq-closure-");
  // A project whose tsconfig extends a file outside every allowed path.
  outside = tempDir("mcq-closure-outside-");
  write(path.join(outside, "base", "tsconfig.json"), '{ "compilerOptions": { "strict": true } }\n');
  write(
    path.join(outside, "app", "tsconfig.json"),
    '{ "extends": "../base/tsconfig.json", "include": ["src"] }\n',
  );
  write(path.join(outside, "app", "src", "a.ts"), "export function f(x) {\n  return x;\n}\n");
  const allowed = ["--allowed-paths", `${root},${path.join(outside, "app")}`, "--rate-limit", "false"];
  const env = { PATH, XDG_CACHE_HOME: tempDir("mcq-xdg-") };
  [cached, fresh] = await Promise.all([
    connectStdio({ args: [...allowed, "--result-cache", "true"], env }),
    connectStdio({ args: [...allowed, "--result-cache", "false"], env }),
  ]);
});

afterAll(async () => {
  await Promise.all([cached?.close(), fresh?.close()]);
});

describe.concurrent("a configuration that reaches outside the project, and file kinds it adds", () => {
  it.skipIf(NO_RUFF)("ruff: extend = ../shared/ruff.toml, extend-include = *.pyw", async () => {
    const dir = path.join(root, "ruff");
    write(path.join(dir, "shared", "ruff.toml"), '[lint]\nselect = ["F401"]\n');
    write(
      path.join(dir, "py", "pyproject.toml"),
      '[tool.ruff]\nextend = "../shared/ruff.toml"\nextend-include = ["*.pyw"]\n',
    );
    write(
      path.join(dir, "py", "a.py"),
      "import os\n\nx = 1  # a line long enough for E501 once it is selected: abcdefghij\n",
    );
    const args = { path: path.join(dir, "py"), linter: "ruff" };
    const direct = () =>
      spawnSync(RUFF, ["check", "--no-cache", "--output-format", "concise", "."], {
        cwd: path.join(dir, "py"),
        encoding: "utf8",
      })
        .stdout.split("\n")
        .filter((l) => /:\d+:\d+: /.test(l))
        .map((l) => l.replace(/^(.+?):\d+:\d+: (\S+).*$/, "$1 $2"))
        .sort();

    await both("lint", args);
    const hit = await both("lint", args);
    expect(hit.cached).toBe("2 of 2 files");
    expect(issueIds(hit)).toEqual(["a.py F401"]);

    write(path.join(dir, "shared", "ruff.toml"), 'line-length = 40\n\n[lint]\nselect = ["E501"]\n');
    const changed = await both("lint", args);
    expect(issueIds(changed)).toEqual(direct());
    expect(issueIds(changed)).toEqual(["a.py E501"]);

    write(
      path.join(dir, "py", "b.pyw"),
      "import sys\n\ny = 2  # another line long enough for E501 to report it\n",
    );
    // Written a second ago: a file changed just before a whole run is not stored by it (racily clean).
    const past = new Date(Date.now() - 1000);
    fs.utimesSync(path.join(dir, "py", "b.pyw"), past, past);
    const added = await both("lint", args);
    expect(issueIds(added)).toEqual(direct());
    expect(issueIds(added)).toContain("b.pyw E501");
    expect(added.uncached, JSON.stringify(added)).toBeUndefined();
    expect((await cached.call("lint", args)).cached).toBe("3 of 3 files");
  });

  it.skipIf(NO_RUFF)("ruff format on a project with a Markdown file is served from the cache", async () => {
    const dir = path.join(root, "md");
    write(path.join(dir, "pyproject.toml"), '[project]\nname = "md"\nversion = "0"\n');
    write(path.join(dir, "a.py"), "x = 1\n");
    write(path.join(dir, "README.md"), "# md\n\n```python\nx  =  1\n```\n");
    const args = { path: dir, language: "python" };
    const first = await both("format_check", args);
    expect(first.uncached).toBeUndefined();
    const hit = await both("format_check", args);
    expect(hit.cached).toBe("2 of 2 files");
    const run = spawnSync(RUFF, ["format", "--check", "--no-cache", "."], { cwd: dir, encoding: "utf8" });
    const listed = [...run.stdout.matchAll(/-->\s+(\S+?):\d+:\d+/g)].map((m) => m[1]);
    expect(hit.unformatted_files).toEqual(listed);
    expect(listed).toEqual(["README.md"]);
  });

  it("tsc: extends ../base/tsconfig.json", async () => {
    const dir = path.join(root, "ts");
    write(
      path.join(dir, "base", "tsconfig.json"),
      '{ "compilerOptions": { "strict": false, "noEmit": true } }\n',
    );
    write(
      path.join(dir, "app", "tsconfig.json"),
      '{ "extends": "../base/tsconfig.json", "include": ["src"] }\n',
    );
    write(path.join(dir, "app", "src", "a.ts"), "export function f(x) {\n  return x;\n}\n");
    const args = { path: path.join(dir, "app"), checker: "tsc" };
    // tsc's own diagnostics: `src/a.ts(1,19): error TS7006: ...` → `src/a.ts TS7006`.
    const direct = () =>
      [
        ...spawnSync(TSC, ["--noEmit", "-p", "."], {
          cwd: path.join(dir, "app"),
          encoding: "utf8",
        }).stdout.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+)/gm),
      ].map((m) => `${m[1]} ${m[2]}`);

    expect((await cachedCall("type_check", args)).passed).toBe(true);
    expect((await cachedCall("type_check", args)).cached).toBe("2 of 2 files");
    write(
      path.join(dir, "base", "tsconfig.json"),
      '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
    );
    const strict = await cachedCall("type_check", args);
    expect(strict.passed).toBe(false);
    expect(issueIds(strict)).toEqual(direct());
    expect(issueIds(strict)).toEqual(["src/a.ts TS7006"]);
  }, 180_000);

  it("eslint: a rule module the config imports from ../shared, and files: **/*.es6", async () => {
    const dir = path.join(root, "eslint");
    write(path.join(dir, "shared", "package.json"), '{ "type": "module" }\n');
    write(path.join(dir, "shared", "rules.js"), 'export const rules = { "no-unused-vars": "error" };\n');
    write(path.join(dir, "app", "package.json"), '{ "name": "app", "type": "module" }\n');
    write(
      path.join(dir, "app", "eslint.config.js"),
      'import { rules } from "../shared/rules.js";\n\nexport default [{ files: ["**/*.js", "**/*.es6"], rules }];\n',
    );
    write(path.join(dir, "app", "src", "a.js"), 'const unused = 1;\nconsole.log("a");\n');
    const args = { path: path.join(dir, "app"), linter: "eslint" };
    const direct = () => {
      const run = spawnSync(ESLINT, ["-f", "json", "."], { cwd: path.join(dir, "app"), encoding: "utf8" });
      const files = JSON.parse(run.stdout) as { filePath: string; messages: { ruleId: string }[] }[];
      return files
        .flatMap((f) =>
          f.messages.map((m) => `${path.relative(path.join(dir, "app"), f.filePath)} ${m.ruleId}`),
        )
        .sort();
    };

    expect(issueIds(await both("lint", args))).toEqual(["src/a.js no-unused-vars"]);
    expect((await both("lint", args)).cached).toBe("2 of 2 files");
    // A module the config imports, outside the project: ESLint (and the warm worker) reload it.
    write(path.join(dir, "shared", "rules.js"), 'export const rules = { "no-console": "error" };\n');
    const changed = await both("lint", args);
    expect(issueIds(changed)).toEqual(direct());
    expect(issueIds(changed)).toEqual(["src/a.js no-console"]);
    // A file of a kind only the config's `files` adds.
    write(path.join(dir, "app", "src", "b.es6"), 'console.log("b");\n');
    const added = await both("lint", args);
    expect(issueIds(added)).toEqual(direct());
    expect(issueIds(added)).toContain("src/b.es6 no-console");
  });

  it.skipIf(NO_GO)(
    "go: replace example.com/lib => ../lib",
    async () => {
      const dir = path.join(root, "go");
      write(path.join(dir, "lib", "go.mod"), "module example.com/lib\n\ngo 1.21\n");
      write(path.join(dir, "lib", "lib.go"), "package lib\n\nfunc Answer() int { return 42 }\n");
      write(
        path.join(dir, "app", "go.mod"),
        "module example.com/app\n\ngo 1.21\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n",
      );
      write(
        path.join(dir, "app", "main.go"),
        'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/lib"\n)\n\nfunc main() { fmt.Println(lib.Answer()) }\n',
      );
      const args = { path: path.join(dir, "app"), checker: "go" };
      const direct = () =>
        spawnSync("go", ["build", "-o", "/dev/null", "./..."], {
          cwd: path.join(dir, "app"),
          encoding: "utf8",
        }).status;

      expect((await cachedCall("type_check", args)).passed).toBe(true);
      expect((await cachedCall("type_check", args)).cached).toBe("2 of 2 files");
      write(path.join(dir, "lib", "lib.go"), "package lib\n\nfunc Renamed() int { return 42 }\n");
      const broken = await cachedCall("type_check", args);
      expect(broken.passed).toBe(false);
      expect(direct()).not.toBe(0);
    },
    180_000,
  );

  it.skipIf(NO_CARGO)("cargo: a path dependency ../dep", async () => {
    const dir = path.join(root, "rust");
    write(
      path.join(dir, "dep", "Cargo.toml"),
      '[package]\nname = "dep"\nversion = "0.1.0"\nedition = "2021"\n',
    );
    write(path.join(dir, "dep", "src", "lib.rs"), "pub fn answer() -> i32 {\n    42\n}\n");
    write(
      path.join(dir, "app", "Cargo.toml"),
      '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ndep = { path = "../dep" }\n',
    );
    write(path.join(dir, "app", "src", "lib.rs"), "pub fn run() -> i32 {\n    dep::answer()\n}\n");
    const args = { path: path.join(dir, "app"), checker: "cargo" };
    const direct = () =>
      spawnSync("cargo", ["check", "--quiet", "--offline"], {
        cwd: path.join(dir, "app"),
        env: { ...process.env, CARGO_TARGET_DIR: path.join(tempDir("mcq-target-")) },
        encoding: "utf8",
      }).status;

    expect((await both("type_check", args)).passed).toBe(true);
    // A run is stored only when no file changed just before it (the files were written a moment ago):
    // by the third call at the latest the answer comes from the cache.
    await both("type_check", args);
    expect((await both("type_check", args)).cached).toMatch(/^(\d+) of \1 files$/);
    write(path.join(dir, "dep", "src", "lib.rs"), "pub fn renamed() -> i32 {\n    42\n}\n");
    const broken = await both("type_check", args);
    expect(broken.passed).toBe(false);
    expect(issueIds(broken)).toEqual(["src/lib.rs E0425"]);
    expect(direct()).not.toBe(0);
  });
});

describe("what the server cannot see into is not cached, and says so", () => {
  it("a tsconfig that extends a file outside the allowed paths", async () => {
    const args = { path: path.join(outside, "app"), checker: "tsc" };
    for (let i = 0; i < 2; i++) {
      const r = await both("type_check", args);
      expect(r.cached).toBe("0 of 2 files");
      expect(r.uncached).toBe(
        `the configuration reads ${path.join(outside, "base", "tsconfig.json")}, outside the allowed paths: the server does not read it`,
      );
    }
  });
});

describe("two clones of one tree, one with its dependencies installed", () => {
  it("type_check tsc answers each clone as tsc does, never the other's result", async () => {
    const clones = ["a", "b"].map((c) => path.join(root, "clones", c));
    for (const dir of clones) {
      write(
        path.join(dir, "tsconfig.json"),
        '{ "compilerOptions": { "strict": true, "noEmit": true, "types": ["node"] }, "include": ["src"] }\n',
      );
      write(path.join(dir, "package.json"), '{ "name": "clone", "private": true }\n');
      write(path.join(dir, "src", "env.ts"), "export const home: string | undefined = process.env.HOME;\n");
    }
    // Clone b has its dependencies: the project's own TypeScript and @types/node, copied as npm would.
    const [a, b] = clones as [string, string];
    for (const pkg of ["typescript", path.join("@types", "node"), "undici-types"])
      fs.cpSync(path.join(REPO_ROOT, "node_modules", pkg), path.join(b, "node_modules", pkg), {
        recursive: true,
      });
    const direct = (dir: string) =>
      spawnSync(TSC, ["--noEmit", "-p", dir], { encoding: "utf8" }).stdout.match(/TS\d+/g)?.sort() ?? [];

    // Clone a, without its dependencies: tsc cannot find @types/node (TS2688), as tsc itself says.
    const withoutDeps = await both("type_check", { path: a, checker: "tsc" });
    expect(issueIds(withoutDeps)).toContain("tsconfig.json TS2688");
    expect(direct(a)).toContain("TS2688");
    // Clone b, the same tree: never clone a's result, but its own TypeScript's, as its tsc says.
    const withDeps = await both("type_check", { path: b, checker: "tsc" });
    expect(withDeps.cached).toBe("0 of 3 files");
    expect(withDeps.passed).toBe(true);
    expect(direct(b)).toEqual([]);
    expect((withDeps.notes as string[]).some((n) => n.includes("from the project"))).toBe(true);
  }, 180_000);
});
