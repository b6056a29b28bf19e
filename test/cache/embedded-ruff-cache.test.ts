/**
 * The embedded ruff (no ruff CLI on PATH) through the result cache: a warm format_check and lint come
 * from the cache whole, an edited file runs alone, and every result is the same, byte for byte, as a
 * server's without a cache on the same tree (apart from timings and the `cached` marker). Writes and
 * diffs are not cached.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, tempDir } from "../helpers/tools.js";

/** No ruff CLI: the server uses the embedded build. */
const ENV = { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined };

function comparable(result: Record<string, unknown>): string {
  return JSON.stringify(result, (key, value: unknown) =>
    key === "duration_ms" || key === "durationMs" || key === "cached" ? undefined : value,
  );
}

let cached: Connected;
let fresh: Connected;
const dirs: Record<string, string> = {};

beforeAll(async () => {
  for (const name of ["format", "lint", "settings", "write"])
    dirs[name] = copyFixture(path.join(FIXTURES, "python/lint-project"));
  dirs.settings = copyFixture(path.join(FIXTURES, "python/ruff-settings-project"));
  dirs.config = copyFixture(path.join(FIXTURES, "python/ruff-settings-project"));
  const allowed = ["--allowed-paths", Object.values(dirs).join(","), "--rate-limit", "false"];
  const env = { ...ENV, XDG_CACHE_HOME: tempDir("mcq-xdg-") };
  [cached, fresh] = await Promise.all([
    connectStdio({
      args: [...allowed, "--result-cache", "true", "--result-cache-dir", tempDir("mcq-embedded-cache-")],
      env,
    }),
    connectStdio({ args: [...allowed, "--result-cache", "false"], env }),
  ]);
});

afterAll(async () => {
  await Promise.all([cached?.close(), fresh?.close()]);
});

const CASES = [
  {
    name: "format_check",
    dir: "format",
    tool: "format_check",
    args: { language: "python" },
    edit: ["pkg/clean.py", "x  =  1\n"],
  },
  {
    name: "lint",
    dir: "lint",
    tool: "lint",
    args: { linter: "ruff" },
    edit: ["pkg/clean.py", "import json\n"],
  },
  {
    name: "lint (full, with settings: src, per-file ignores, namespace packages)",
    dir: "settings",
    tool: "lint",
    args: { linter: "ruff", format: "full" },
    edit: ["src/mylib/helpers.py", "import os\n"],
  },
] as const;

describe.each(CASES)("embedded ruff $name through the result cache", (c) => {
  it("fresh, then whole from the cache, then the edited file alone; each equal to an uncached server's", async () => {
    const dir = dirs[c.dir] as string;
    const args = { ...c.args, path: dir };
    const first = await cached.call(c.tool, args);
    expect(first.success, JSON.stringify(first)).toBe(true);
    expect(JSON.stringify(first.notes)).toContain("embedded ruff");
    expect(first.cached).toMatch(/^0 of \d+ files?$/);
    const total = Number(/of (\d+)/.exec(first.cached as string)?.[1]);
    expect(total).toBeGreaterThan(1);
    const hit = await cached.call(c.tool, args);
    expect(hit.cached).toBe(`${total} of ${total} files`);
    const direct = await fresh.call(c.tool, args);
    expect(direct.cached).toBeUndefined();
    expect(comparable(hit)).toBe(comparable(first));
    expect(comparable(hit)).toBe(comparable(direct));

    fs.appendFileSync(path.join(dir, c.edit[0]), c.edit[1]);
    const partial = await cached.call(c.tool, args);
    const directAfter = await fresh.call(c.tool, args);
    expect(comparable(directAfter)).not.toBe(comparable(direct)); // the edit changed the result
    expect(partial.cached).toBe(`${total - 1} of ${total} files`);
    expect(comparable(partial)).toBe(comparable(directAfter));
    const again = await cached.call(c.tool, args);
    expect(again.cached).toBe(`${total} of ${total} files`);
    expect(comparable(again)).toBe(comparable(directAfter));
  });
});

describe("embedded ruff: what the cache is keyed by", () => {
  it("a change of settings, of the src folders' modules or of a package marker re-runs every file", async () => {
    const dir = dirs.config as string;
    const args = { path: dir, linter: "ruff", format: "full" };
    const check = async (expected: RegExp) => {
      const hit = await cached.call("lint", args);
      expect(hit.cached).toMatch(expected);
      expect(comparable(hit)).toBe(comparable(await fresh.call("lint", args)));
      return hit;
    };
    const first = await check(/^\d+ of \d+ files$/);
    const total = Number(/of (\d+)/.exec(first.cached as string)?.[1]);
    await check(new RegExp(`^${total} of ${total} files$`));
    const pyproject = path.join(dir, "pyproject.toml");
    fs.writeFileSync(pyproject, fs.readFileSync(pyproject, "utf8").replace(">=3.9", ">=3.12"));
    await check(new RegExp(`^0 of ${total} files$`));
    await check(new RegExp(`^${total} of ${total} files$`));
    // A new module in a `src` folder is first-party for every file's import sorting.
    fs.writeFileSync(path.join(dir, "src", "newmod.py"), "X = 1\n");
    await check(new RegExp(`^0 of ${total + 1} files$`));
    fs.writeFileSync(path.join(dir, "tools", "__init__.py"), "");
    await check(new RegExp(`^0 of ${total + 2} files$`));
    await check(new RegExp(`^${total + 2} of ${total + 2} files$`));
  });
});

describe("embedded ruff: what is not cached", () => {
  it("a diff and a write are not cached, and a check after the write sees the written files", async () => {
    const dir = dirs.write as string;
    const check = { path: dir, language: "python" };
    const before = await cached.call("format_check", check);
    expect(before.formatted).toBe(false);
    // Cached (the other copies of the fixture share entries: keys are relative to the project root).
    expect(before.cached).toMatch(/^\d+ of \d+ files$/);
    const diff = await cached.call("format_check", { ...check, diff: true });
    expect(diff.cached).toBeUndefined();
    expect(comparable(diff)).toBe(comparable(await fresh.call("format_check", { ...check, diff: true })));
    const written = await cached.call("autoformat", check);
    expect(written.success, JSON.stringify(written)).toBe(true);
    expect(written.cached).toBeUndefined();
    const after = await cached.call("format_check", check);
    expect(after.formatted).toBe(true);
    expect(comparable(after)).toBe(comparable(await fresh.call("format_check", check)));
    const inline = await cached.call("lint", {
      path: path.join(dir, "pkg/clean.py"),
      linter: "ruff",
      source_code: "import os\n",
    });
    expect(inline.cached).toBeUndefined();
  });
});
