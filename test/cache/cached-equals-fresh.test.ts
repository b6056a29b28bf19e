/**
 * Every cached tool: the result served from the result cache (whole, and after a one-file edit with the
 * rest from the cache) is the same, byte for byte, as the result of a server without a cache on the same
 * tree, apart from timings, the `cached` marker and the notes naming a worker's process.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PATH = `${TOOLS_VENV_BIN}:${process.env.PATH}`;

/** A result without what differs between any two runs: durations, the cache marker, worker pids. */
function comparable(result: Record<string, unknown>): string {
  return JSON.stringify(result, (key, value: unknown) => {
    if (key === "duration_ms" || key === "durationMs" || key === "cached") return undefined;
    if (key === "notes" && Array.isArray(value))
      return value.filter((n) => typeof n !== "string" || !/\bpid \d+/.test(n));
    return value;
  });
}

interface Case {
  name: string;
  /** Programs the case needs (besides the bundled ones). */
  needs: string[];
  fixture: string;
  tool: string;
  args: Record<string, unknown>;
  /** Extra files written into the copy before the first call. */
  extra?: Record<string, string>;
  /** The file to edit, and the line appended (it changes the result). */
  edit: [string, string];
  /** Keyed by the whole input set (runs whole after an edit), besides type_check and flake8. */
  whole?: boolean;
}

const CASES: Case[] = [
  {
    name: "ruff check",
    needs: ["ruff"],
    fixture: "python/lint-project",
    tool: "lint",
    args: { linter: "ruff" },
    edit: ["pkg/clean.py", "import json\n"],
  },
  {
    name: "ruff format --check",
    needs: ["ruff"],
    fixture: "python/lint-project",
    tool: "format_check",
    args: { language: "python" },
    edit: ["pkg/clean.py", "x  =  1\n"],
  },
  {
    name: "black --check",
    needs: ["black"],
    fixture: "python/lint-project",
    tool: "format_check",
    args: { language: "python", formatter: "black" },
    edit: ["pkg/clean.py", "x  =  1\n"],
  },
  {
    name: "flake8 (whole project)",
    needs: ["flake8"],
    fixture: "python/lint-project",
    tool: "lint",
    args: { linter: "flake8" },
    edit: ["pkg/clean.py", "import json\n"],
  },
  {
    name: "eslint",
    needs: [],
    fixture: "check/js",
    tool: "lint",
    args: { linter: "eslint", format: "full" },
    extra: { "src/other.ts": "export const other = 1;\n" },
    edit: ["src/other.ts", "let unused = 2;\n"],
  },
  {
    name: "prettier --check",
    needs: [],
    fixture: "check/js",
    tool: "format_check",
    args: { formatter: "prettier" },
    extra: { "src/other.ts": "export const other = 1;\n" },
    edit: ["src/other.ts", "const  spaced  =  2;\n"],
  },
  {
    name: "rubocop",
    needs: ["rubocop"],
    fixture: "ruby/project",
    tool: "lint",
    args: { linter: "rubocop" },
    edit: ["app.rb", "x = 1\n"],
  },
  {
    name: "rubocop (format full, with corrections)",
    needs: ["rubocop"],
    fixture: "ruby/project",
    tool: "lint",
    args: { linter: "rubocop", format: "full" },
    edit: ["app.rb", "x = 1\n"],
  },
  {
    name: "gofmt -l",
    needs: ["gofmt"],
    fixture: "go/lint-project",
    tool: "format_check",
    args: { language: "go" },
    edit: ["main.go", "var  spaced  =  1\n"],
  },
  {
    name: "cargo fmt --check (whole crate)",
    needs: ["cargo"],
    fixture: "rust/lint-crate",
    tool: "format_check",
    args: { language: "rust" },
    extra: {
      "src/lib.rs": "pub mod other;\n\npub fn messy( a:i32 )->i32{ a+1 }\n",
      "src/other.rs": "pub fn other() -> i32 {\n    1\n}\n",
    },
    edit: ["src/other.rs", "pub fn  spaced( ) {}\n"],
    whole: true,
  },
  {
    name: "ty (whole project)",
    needs: ["ty"],
    fixture: "python/typecheck-project",
    tool: "type_check",
    args: { checker: "ty" },
    edit: ["pkg/good.py", "x: int = 'no'\n"],
  },
];

const runnable = CASES.filter((c) => !c.needs.some((p) => missing(p, [TOOLS_VENV_BIN])));
const dirs = new Map<Case, string>();
let cached: Connected;
let fresh: Connected;

beforeAll(async () => {
  for (const c of runnable) {
    const dir = copyFixture(path.join(FIXTURES, c.fixture));
    for (const [rel, text] of Object.entries(c.extra ?? {})) fs.writeFileSync(path.join(dir, rel), text);
    dirs.set(c, dir);
  }
  const allowed = ["--allowed-paths", [...dirs.values()].join(","), "--rate-limit", "false"];
  const env = { PATH, XDG_CACHE_HOME: tempDir("mcq-xdg-") };
  [cached, fresh] = await Promise.all([
    connectStdio({ args: [...allowed, "--result-cache", "true"], env }),
    connectStdio({ args: [...allowed, "--result-cache", "false"], env }),
  ]);
});

afterAll(async () => {
  await Promise.all([cached?.close(), fresh?.close()]);
});

// The cases are independent (a copy each): they run side by side, within the servers' --max-concurrent.
describe.concurrent.each(runnable)("$name: cached equals fresh", (c) => {
  it("whole from the cache, then one edited file run and the rest from the cache", async ({ expect }) => {
    const dir = dirs.get(c) as string;
    const args = { ...c.args, path: dir };
    const first = await cached.call(c.tool, args);
    expect(first.success, JSON.stringify(first)).toBe(true);
    expect(first.cached).toMatch(/^0 of \d+ files?$/);
    const total = Number(/of (\d+)/.exec(first.cached as string)?.[1]);
    const hit = await cached.call(c.tool, args);
    expect(hit.cached).toBe(`${total} of ${total} file${total === 1 ? "" : "s"}`);
    const direct = await fresh.call(c.tool, args);
    expect(direct.cached).toBeUndefined();
    expect(comparable(hit)).toBe(comparable(direct));
    expect(comparable(first)).toBe(comparable(direct));

    fs.appendFileSync(path.join(dir, c.edit[0]), c.edit[1]);
    const partial = await cached.call(c.tool, args);
    const directAfter = await fresh.call(c.tool, args);
    expect(comparable(directAfter)).not.toBe(comparable(direct)); // the edit changed the result
    expect(comparable(partial)).toBe(comparable(directAfter));
    // Per-file tools ran the edited file alone; a whole-program tool ran whole.
    const whole = c.whole === true || c.tool === "type_check" || c.args.linter === "flake8";
    expect(partial.cached).toBe(whole ? `0 of ${total} files` : `${total - 1} of ${total} files`);
  });
});
