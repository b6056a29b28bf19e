/**
 * A nested project (a Go module or Cargo workspace inside another) whose own manifest reaches beside the
 * outer project (go.mod `replace example.com/other => ../../other`, Cargo `path = "../../other"`): its
 * whole-program result was keyed by the closure of the OUTER project, which does not name that folder, so
 * after the dependency broke, the cached server still said "passed" while the tool by hand failed. After
 * each change the cached answer must be the tool's own on the command line.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** The rule ids of a result's issue strings, sorted (`inner/main.go:9:33: compile ...` → `inner/main.go compile`). */
function issueIds(result: Record<string, unknown>): string[] {
  return ((result.issues as string[]) ?? [])
    .map((i) => i.replace(/^(.+?):\d+:\d+: (\S+).*$/s, "$1 $2"))
    .sort();
}

let root: string;
let cached: Connected;

beforeAll(async () => {
  root = tempDir("mcq-nested-closure-");
  cached = await connectStdio({
    args: ["--allowed-paths", root, "--rate-limit", "false", "--result-cache", "true"],
    env: {
      PATH: `${TOOLS_VENV_BIN}:${process.env.PATH}`,
      XDG_CACHE_HOME: tempDir("mcq-xdg-"),
      MCP_CODE_QUALITY_RESULT_CACHE: "true",
    },
  });
});

afterAll(async () => {
  await cached?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Calls until the answer comes from the cache (a run right after a write is not stored); the last call. */
async function untilCached(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  let r: Record<string, unknown> = {};
  for (let i = 0; i < 3; i++) {
    r = await cached.call("type_check", args);
    expect(r.success, JSON.stringify(r)).toBe(true);
    if (typeof r.cached === "string" && /^(\d+) of \1 files$/.test(r.cached)) return r;
  }
  throw new Error(`never served from the cache: ${JSON.stringify(r)}`);
}

describe.concurrent("a nested project whose dependency lies beside the outer project", () => {
  it.skipIf(missing("go"))(
    "go: a nested module with replace example.com/other => ../../other",
    async () => {
      const dir = path.join(root, "go");
      write(path.join(dir, "other", "go.mod"), "module example.com/other\n\ngo 1.21\n");
      write(path.join(dir, "other", "other.go"), "package other\n\nfunc Answer() int { return 42 }\n");
      write(path.join(dir, "outer", "go.mod"), "module example.com/outer\n\ngo 1.21\n");
      write(path.join(dir, "outer", "outer.go"), "package outer\n\nfunc One() int { return 1 }\n");
      const inner = path.join(dir, "outer", "inner");
      write(
        path.join(inner, "go.mod"),
        "module example.com/inner\n\ngo 1.21\n\nrequire example.com/other v0.0.0\n\nreplace example.com/other => ../../other\n",
      );
      write(
        path.join(inner, "main.go"),
        'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/other"\n)\n\nfunc main() { fmt.Println(other.Answer()) }\n',
      );
      // go build's own errors: `./main.go:9:33: undefined: other.Answer` → `inner/main.go`.
      const byHand = () => {
        const r = spawnSync("go", ["build", "-o", "/dev/null", "./..."], { cwd: inner, encoding: "utf8" });
        const files = [...r.stderr.matchAll(/^\.\/(\S+?):\d+:\d+: /gm)].map((m) => `inner/${m[1]}`);
        return { status: r.status, files };
      };
      const args = { path: inner, checker: "go" };

      expect(byHand().status).toBe(0);
      expect((await untilCached(args)).passed).toBe(true);
      write(path.join(dir, "other", "other.go"), "package other\n\nfunc Renamed() int { return 42 }\n");
      const broken = await cached.call("type_check", args);
      const hand = byHand();
      expect(hand.status).not.toBe(0);
      expect(broken.passed, JSON.stringify(broken)).toBe(false);
      expect(issueIds(broken)).toEqual(hand.files.map((f) => `${f} compile`));
      expect(issueIds(broken)).toEqual(["inner/main.go compile"]);
    },
    300_000,
  );

  it.skipIf(missing("cargo"))(
    "cargo: a nested workspace with a path dependency ../../other",
    async () => {
      const dir = path.join(root, "rust");
      const pkg = (name: string) => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`;
      write(path.join(dir, "other", "Cargo.toml"), pkg("other"));
      write(path.join(dir, "other", "src", "lib.rs"), "pub fn answer() -> i32 {\n    42\n}\n");
      write(path.join(dir, "outer", "Cargo.toml"), `${pkg("outer")}\n[workspace]\nexclude = ["inner"]\n`);
      write(path.join(dir, "outer", "src", "lib.rs"), "pub fn one() -> i32 {\n    1\n}\n");
      const inner = path.join(dir, "outer", "inner");
      write(
        path.join(inner, "Cargo.toml"),
        `${pkg("inner")}\n[workspace]\n\n[dependencies]\nother = { path = "../../other" }\n`,
      );
      write(path.join(inner, "src", "lib.rs"), "pub fn run() -> i32 {\n    other::answer()\n}\n");
      // The lock files first: a run that writes one changes the inputs, which would hide a stale key.
      for (const d of [inner, path.join(dir, "outer")])
        expect(spawnSync("cargo", ["generate-lockfile", "--offline"], { cwd: d }).status).toBe(0);
      const target = tempDir("mcq-nested-target-");
      const byHand = () => {
        const r = spawnSync("cargo", ["check", "--quiet", "--offline", "--message-format=short"], {
          cwd: inner,
          env: { ...process.env, CARGO_TARGET_DIR: target, CARGO_TERM_COLOR: "never" },
          encoding: "utf8",
        });
        // `src/lib.rs:2:12: error[E0425]: ...` → `inner/src/lib.rs E0425`.
        const ids = [...r.stderr.matchAll(/^(\S+?):\d+:\d+: error\[(E\d+)\]/gm)].map(
          (m) => `inner/${m[1]} ${m[2]}`,
        );
        return { status: r.status, ids };
      };
      const args = { path: inner, checker: "cargo" };

      expect(byHand().status).toBe(0);
      expect((await untilCached(args)).passed).toBe(true);
      write(path.join(dir, "other", "src", "lib.rs"), "pub fn renamed() -> i32 {\n    42\n}\n");
      const broken = await cached.call("type_check", args);
      const hand = byHand();
      expect(hand.status).not.toBe(0);
      expect(broken.passed, JSON.stringify(broken)).toBe(false);
      expect(issueIds(broken)).toEqual(hand.ids);
      expect(issueIds(broken)).toEqual(["inner/src/lib.rs E0425"]);
    },
    300_000,
  );
});

/** mypy's own errors in `cwd` (`app.py:3: error: ... [assignment]` → `<prefix>app.py assignment`), no cache written. */
function mypyByHand(cwd: string, prefix: string): { status: number | null; ids: string[] } {
  const r = spawnSync("mypy", ["--no-incremental", "--cache-dir", "/dev/null", "."], {
    cwd,
    encoding: "utf8",
  });
  const ids = [...r.stdout.matchAll(/^(\S+?):\d+: error: .*\[([\w-]+)\]$/gm)].map(
    (m) => `${prefix}${m[1]} ${m[2]}`,
  );
  return { status: r.status, ids: ids.sort() };
}

const RETURNS_INT = "def answer() -> int:\n    return 42\n";
const RETURNS_STR = "def answer() -> str:\n    return 'x'\n";
const APP = "from otherpkg import answer\n\nx: int = answer()\n";

describe.concurrent("a Python project whose configuration puts a folder beside it on the import path", () => {
  it.skipIf(missing("mypy"))(
    "mypy: mypy_path = ../../other in a nested project, ../other in a plain one",
    async () => {
      for (const [label, app, rel, prefix] of [
        ["nested", ["outer", "inner"], "../../other", "inner/"],
        ["plain", ["app"], "../other", ""],
      ] as const) {
        const dir = path.join(root, `mypy-${label}`);
        write(path.join(dir, "other", "otherpkg", "__init__.py"), RETURNS_INT);
        if (label === "nested")
          write(path.join(dir, "outer", "pyproject.toml"), '[project]\nname = "outer"\nversion = "0"\n');
        const inner = path.join(dir, ...app);
        write(
          path.join(inner, "pyproject.toml"),
          `[project]\nname = "inner"\nversion = "0"\n\n[tool.mypy]\nmypy_path = "${rel}"\n`,
        );
        write(path.join(inner, "app.py"), APP);
        const args = { path: inner, checker: "mypy" };

        expect(mypyByHand(inner, prefix).status, label).toBe(0);
        expect((await untilCached(args)).passed, label).toBe(true);
        write(path.join(dir, "other", "otherpkg", "__init__.py"), RETURNS_STR);
        const broken = await cached.call("type_check", args);
        const hand = mypyByHand(inner, prefix);
        expect(hand.status, label).toBe(1);
        expect(broken.passed, JSON.stringify(broken)).toBe(false);
        expect(issueIds(broken)).toEqual(hand.ids);
        expect(issueIds(broken)).toEqual([`${prefix}app.py assignment`]);
      }
    },
    300_000,
  );

  it.skipIf(missing("ty", [TOOLS_VENV_BIN]))(
    'ty: [tool.ty.environment] extra-paths = ["../other"]',
    async () => {
      const dir = path.join(root, "ty");
      write(path.join(dir, "other", "otherpkg", "__init__.py"), RETURNS_INT);
      const app = path.join(dir, "app");
      write(
        path.join(app, "pyproject.toml"),
        '[project]\nname = "app"\nversion = "0"\n\n[tool.ty.environment]\nextra-paths = ["../other"]\n',
      );
      write(path.join(app, "app.py"), APP);
      // ty's own diagnostics: `app.py:3:10: error[invalid-assignment] ...` → `app.py invalid-assignment`.
      const byHand = () => {
        const r = spawnSync(path.join(TOOLS_VENV_BIN, "ty"), ["check", "--output-format", "concise", "."], {
          cwd: app,
          encoding: "utf8",
        });
        const ids = [...r.stdout.matchAll(/^(\S+?):\d+:\d+: error\[([\w-]+)\]/gm)].map(
          (m) => `${m[1]} ${m[2]}`,
        );
        return { status: r.status, ids: ids.sort() };
      };
      const args = { path: app, checker: "ty" };

      expect(byHand().status).toBe(0);
      expect((await untilCached(args)).passed).toBe(true);
      write(path.join(dir, "other", "otherpkg", "__init__.py"), RETURNS_STR);
      const broken = await cached.call("type_check", args);
      const hand = byHand();
      expect(hand.status).toBe(1);
      expect(broken.passed, JSON.stringify(broken)).toBe(false);
      expect(issueIds(broken)).toEqual(hand.ids);
      expect(issueIds(broken)).toEqual(["app.py invalid-assignment"]);
    },
    300_000,
  );

  it.skipIf(missing("mypy"))(
    "mypy: mypy_path outside the allowed paths is not read, and not cached",
    async () => {
      const beyond = tempDir("mcq-nested-beyond-");
      write(path.join(beyond, "otherpkg", "__init__.py"), RETURNS_INT);
      const app = path.join(root, "mypy-beyond");
      write(
        path.join(app, "pyproject.toml"),
        `[project]\nname = "app"\nversion = "0"\n\n[tool.mypy]\nmypy_path = "${beyond}"\n`,
      );
      write(path.join(app, "app.py"), APP);
      for (let i = 0; i < 2; i++) {
        const r = await cached.call("type_check", { path: app, checker: "mypy" });
        expect(r.success, JSON.stringify(r)).toBe(true);
        expect(r.cached).toBe("0 of 2 files");
        expect(r.uncached).toBe(
          `the configuration reads ${beyond}, outside the allowed paths: the server does not read it`,
        );
      }
    },
  );
});

describe("a TypeScript project that references a project beside the outer one", () => {
  it("tsc: references ../../outside, whose source then changes", async () => {
    const TSC = path.join(REPO_ROOT, "node_modules", ".bin", "tsc");
    const dir = path.join(root, "ts-refs");
    const outside = path.join(dir, "outside");
    const composite = (outDir: string) =>
      `{ "compilerOptions": { "composite": true, "outDir": "${outDir}", "rootDir": "src" }, "include": ["src"] }\n`;
    write(path.join(outside, "tsconfig.json"), composite("dist"));
    write(path.join(outside, "src", "lib.ts"), "export function answer(): number {\n  return 42;\n}\n");
    expect(spawnSync(TSC, ["-b"], { cwd: outside }).status).toBe(0);
    write(path.join(dir, "outer", "package.json"), '{ "name": "outer", "private": true }\n');
    write(
      path.join(dir, "outer", "tsconfig.json"),
      '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n',
    );
    write(path.join(dir, "outer", "src", "a.ts"), "export const one = 1;\n");
    const inner = path.join(dir, "outer", "inner");
    write(
      path.join(inner, "tsconfig.json"),
      '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"], "references": [{ "path": "../../outside" }] }\n',
    );
    write(
      path.join(inner, "src", "b.ts"),
      'import { answer } from "../../../outside/src/lib";\n\nexport const n: number = answer();\n',
    );
    // tsc's own diagnostics: `src/b.ts(3,14): error TS2322: ...` → `inner/src/b.ts TS2322`. `tsc -b`: the
    // references built first, as type_check reads them (from their sources, src/adapters/js/tsconfig-references.ts).
    const byHand = () => {
      const r = spawnSync(TSC, ["-b"], { cwd: inner, encoding: "utf8" });
      const ids = [...r.stdout.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+)/gm)].map(
        (m) => `inner/${m[1]} ${m[2]}`,
      );
      return { status: r.status, ids };
    };
    const args = { path: inner, checker: "tsc" };

    expect(byHand().status).toBe(0);
    expect((await untilCached(args)).passed).toBe(true);
    // Only the referenced project changes: its function now returns a string, which b.ts stores in a number.
    write(path.join(outside, "src", "lib.ts"), 'export function answer(): string {\n  return "42";\n}\n');
    const broken = await cached.call("type_check", args);
    const hand = byHand();
    expect(hand.status).not.toBe(0);
    expect(broken.passed, JSON.stringify(broken)).toBe(false);
    expect(issueIds(broken)).toEqual(hand.ids);
    expect(issueIds(broken)).toEqual(["inner/src/b.ts TS2322"]);
  }, 300_000);
});
