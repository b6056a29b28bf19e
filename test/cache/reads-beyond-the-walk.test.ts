/**
 * Files a type checker reads that the project's input walk does not key: an editable install's source
 * folder (a `.pth` in the virtualenv names it), a mypy plugin beside the project, a tsconfig `extends` into
 * a package in node_modules, a declaration file under `build/` that `include` names. Each was left out of
 * the whole-program key, so after it changed the cached server still said "passed" while the tool by hand
 * failed. After each change the cached answer must be the tool's own on the command line.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { makeVenv } from "../python/venv-helper.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** The rule ids of a result's issue strings, sorted (`src/a.py:3:10: invalid-assignment ...` → `src/a.py invalid-assignment`). */
function issueIds(result: Record<string, unknown>): string[] {
  return ((result.issues as string[]) ?? [])
    .map((i) => i.replace(/^(.+?):\d+:\d+: (\S+).*$/s, "$1 $2"))
    .sort();
}

let root: string;
let cached: Connected;

beforeAll(async () => {
  root = tempDir("mcq-reads-beyond-");
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

/** Warm, then `change`: the cached answer is the tool's own by hand, which now fails with `expected`. */
async function staysTrue(
  args: Record<string, unknown>,
  byHand: () => { status: number | null; ids: string[] },
  change: () => void,
  expected: string[],
): Promise<void> {
  const before = byHand();
  expect(before.status, JSON.stringify(before)).toBe(0);
  expect((await untilCached(args)).passed).toBe(true);
  change();
  const after = await cached.call("type_check", args);
  const hand = byHand();
  expect(hand.status).not.toBe(0);
  expect(after.passed, JSON.stringify(after)).toBe(false);
  expect(issueIds(after)).toEqual(hand.ids);
  expect(issueIds(after)).toEqual(expected);
}

const RETURNS_INT = "def f() -> int:\n    return 1\n";
const RETURNS_STR = "def f() -> str:\n    return ''\n";

/**
 * Projects a/ and b/: b's virtualenv has a installed editable (`pip install -e ../a` with setuptools' path
 * `.pth`: `__editable__.liba-0.1.pth` holding a/src), and b's code uses it.
 */
function editableInstall(dir: string, bConfig: string): string {
  write(path.join(dir, "a", "pyproject.toml"), '[project]\nname = "liba"\nversion = "0.1"\n');
  write(path.join(dir, "a", "src", "liba", "__init__.py"), RETURNS_INT);
  write(path.join(dir, "a", "src", "liba", "py.typed"), "");
  const b = path.join(dir, "b");
  write(path.join(b, "pyproject.toml"), `[project]\nname = "appb"\nversion = "0.1"\n${bConfig}`);
  write(path.join(b, "src", "appb", "__init__.py"), "from liba import f\n\nx: int = f()\n");
  makeVenv(path.join(b, ".venv"), { systemSitePackages: false });
  const lib = path.join(b, ".venv", "lib");
  const site = path.join(lib, fs.readdirSync(lib)[0] as string, "site-packages");
  write(path.join(site, "__editable__.liba-0.1.pth"), `${path.join(dir, "a", "src")}\n`);
  write(
    path.join(site, "liba-0.1.dist-info", "METADATA"),
    "Metadata-Version: 2.1\nName: liba\nVersion: 0.1\n",
  );
  return b;
}

describe.concurrent("a Python project whose virtualenv has a package installed editable", () => {
  it.skipIf(missing("ty", [TOOLS_VENV_BIN]))(
    "ty: the installed package's source folder, named by a .pth file",
    async () => {
      const dir = path.join(root, "editable-ty");
      const b = editableInstall(dir, "");
      // `src/appb/__init__.py:3:10: error[invalid-assignment] ...` → `src/appb/__init__.py invalid-assignment`.
      const byHand = () => {
        const r = spawnSync(path.join(TOOLS_VENV_BIN, "ty"), ["check", "--output-format", "concise", "."], {
          cwd: b,
          encoding: "utf8",
        });
        const ids = [...r.stdout.matchAll(/^(\S+?):\d+:\d+: error\[([\w-]+)\]/gm)].map(
          (m) => `${m[1]} ${m[2]}`,
        );
        return { status: r.status, ids: ids.sort() };
      };
      await staysTrue(
        { path: b, checker: "ty" },
        byHand,
        () => write(path.join(dir, "a", "src", "liba", "__init__.py"), RETURNS_STR),
        ["src/appb/__init__.py invalid-assignment"],
      );
    },
    300_000,
  );

  it.skipIf(missing("mypy"))(
    "mypy (python_executable = .venv/bin/python): the installed package's source folder",
    async () => {
      const dir = path.join(root, "editable-mypy");
      const b = editableInstall(
        dir,
        '[tool.mypy]\npython_executable = ".venv/bin/python"\nfiles = ["src"]\n',
      );
      const byHand = () => mypyByHand(b);
      await staysTrue(
        { path: b, checker: "mypy" },
        byHand,
        () => write(path.join(dir, "a", "src", "liba", "__init__.py"), RETURNS_STR),
        ["src/appb/__init__.py assignment"],
      );
    },
    300_000,
  );
});

/** mypy's own errors in `cwd` (`src/p/__init__.py:4: error: ... [assignment]` → `src/p/__init__.py assignment`). */
function mypyByHand(cwd: string): { status: number | null; ids: string[] } {
  const r = spawnSync("mypy", ["--no-incremental", "--cache-dir", "/dev/null"], { cwd, encoding: "utf8" });
  const ids = [...r.stdout.matchAll(/^(\S+?):\d+: error: .*\[([\w-]+)\]$/gm)].map((m) => `${m[1]} ${m[2]}`);
  return { status: r.status, ids: ids.sort() };
}

describe("a mypy plugin beside the project", () => {
  it.skipIf(missing("mypy"))(
    'mypy: [tool.mypy] plugins = ["../tools/plug.py"]',
    async () => {
      const dir = path.join(root, "plugin");
      const plugin = (ret: string) =>
        "from mypy.plugin import Plugin\n\n\nclass P(Plugin):\n    def get_function_hook(self, fullname):\n" +
        `        if fullname == "p.g":\n            return lambda ctx: ctx.api.named_generic_type("${ret}", [])\n` +
        "        return None\n\n\ndef plugin(version):\n    return P\n";
      write(path.join(dir, "tools", "plug.py"), plugin("builtins.int"));
      const proj = path.join(dir, "proj");
      write(
        path.join(proj, "pyproject.toml"),
        '[project]\nname = "p"\nversion = "0.1"\n\n[tool.mypy]\nplugins = ["../tools/plug.py"]\nfiles = ["src"]\n',
      );
      write(path.join(proj, "src", "p", "__init__.py"), "def g():\n    return 1\n\n\nx: int = g()\n");
      await staysTrue(
        { path: proj, checker: "mypy" },
        () => mypyByHand(proj),
        () => write(path.join(dir, "tools", "plug.py"), plugin("builtins.str")),
        ["src/p/__init__.py assignment"],
      );
    },
    300_000,
  );
});

const TSC = path.join(REPO_ROOT, "node_modules", ".bin", "tsc");

/** tsc's own diagnostics: `src/index.ts(1,19): error TS7006: ...` → `src/index.ts TS7006`. */
function tscByHand(cwd: string): { status: number | null; ids: string[] } {
  const r = spawnSync(TSC, ["--noEmit", "-p", "."], { cwd, encoding: "utf8" });
  const ids = [...r.stdout.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+)/gm)].map((m) => `${m[1]} ${m[2]}`);
  return { status: r.status, ids: ids.sort() };
}

describe.concurrent("a TypeScript program that reads files the project's walk skips", () => {
  it("tsc: a tsconfig that extends a package's config in node_modules (a folder, not a link)", async () => {
    const dir = path.join(root, "ts-extends");
    const base = (strict: boolean) =>
      `{ "compilerOptions": { "strict": ${strict}, "noEmit": true, "target": "ES2020", "module": "commonjs" } }\n`;
    write(path.join(dir, "package.json"), '{ "name": "t2", "version": "1.0.0" }\n');
    write(
      path.join(dir, "node_modules", "@cfg", "base", "package.json"),
      '{ "name": "@cfg/base", "version": "1.0.0" }\n',
    );
    write(path.join(dir, "node_modules", "@cfg", "base", "tsconfig.json"), base(false));
    write(path.join(dir, "tsconfig.json"), '{ "extends": "@cfg/base/tsconfig.json", "include": ["src"] }\n');
    write(path.join(dir, "src", "index.ts"), "export function f(x) {\n  return x;\n}\n");
    await staysTrue(
      { path: dir, checker: "tsc" },
      () => tscByHand(dir),
      () => write(path.join(dir, "node_modules", "@cfg", "base", "tsconfig.json"), base(true)),
      ["src/index.ts TS7006"],
    );
  }, 300_000);

  it('tsc: "include": ["src", "build/gen.d.ts"], a declaration under build/', async () => {
    const dir = path.join(root, "ts-build");
    write(path.join(dir, "package.json"), '{ "name": "t5", "version": "1.0.0" }\n');
    write(
      path.join(dir, "tsconfig.json"),
      '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src", "build/gen.d.ts"] }\n',
    );
    write(path.join(dir, "build", "gen.d.ts"), "declare const GEN: number;\n");
    write(path.join(dir, "src", "index.ts"), "export const n: number = GEN;\n");
    await staysTrue(
      { path: dir, checker: "tsc" },
      () => tscByHand(dir),
      () => write(path.join(dir, "build", "gen.d.ts"), "declare const GEN: string;\n"),
      ["src/index.ts TS2322"],
    );
  }, 300_000);
});
