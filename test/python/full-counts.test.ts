/**
 * Issue 9.2: counts come from the tools' whole output, not from the head and tail that survive the
 * 100 KB output cap. Each project here makes its tool print well over 100 KB; the counts must equal
 * what the tool itself reports when run directly on the same project.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const RUFF = path.join(TOOLS_VENV_BIN, "ruff");

/** Ten modules of 400 unused imports each, and twenty badly formatted ones of 300 lines. */
function bigProject(): string {
  const dir = tempDir("mcq-big-output-");
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "big"\nversion = "0"\n');
  fs.mkdirSync(path.join(dir, "pkg"));
  for (let i = 0; i < 10; i++)
    fs.writeFileSync(
      path.join(dir, "pkg", `imports_${i}.py`),
      Array.from({ length: 400 }, (_, j) => `import module_${j}\n`).join(""),
    );
  for (let i = 0; i < 20; i++)
    fs.writeFileSync(
      path.join(dir, "pkg", `messy_${i}.py`),
      Array.from({ length: 300 }, (_, j) => `value_${j}=[ ${j},${j} ]\n`).join(""),
    );
  fs.mkdirSync(path.join(dir, "risky"));
  fs.writeFileSync(
    path.join(dir, "risky", "asserts.py"),
    Array.from({ length: 400 }, (_, j) => `assert value_${j} == ${j}\n`).join(""),
  );
  return dir;
}

/** stdout+stderr of a tool run directly, however long. */
function direct(program: string, args: string[], cwd: string): string {
  const r = spawnSync(program, args, { cwd, encoding: "utf8", maxBuffer: 1 << 30 });
  return `${r.stdout}\n${r.stderr}`;
}

describe("counts from output over the 100 KB cap", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = bigProject();
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("ruff check: issue_count is ruff's own count", async () => {
    const own = direct(RUFF, ["check", "--no-cache", "--output-format", "concise", "pkg"], dir);
    const expected = Number(/Found (\d+) errors?\./.exec(own)?.[1]);
    expect(own.length).toBeGreaterThan(100_000);
    expect(expected).toBe(4000);
    // A budget large enough that the list cap (500) is what limits the listing.
    const r = await s.call("lint", { path: "pkg", max_result_tokens: 250_000 });
    expect(r.issue_count).toBe(expected);
    expect((r.issues as string[]).length).toBe(500);
    expect((r.issues as string[])[0]).toBe("pkg/imports_0.py:1:8: F401 [*] `module_0` imported but unused");
  });

  it.skipIf(missing("flake8"))("flake8: issue_count is flake8's --count", async () => {
    const own = direct("flake8", ["--count", "pkg"], dir);
    const expected = Number(own.trim().split("\n").at(-1));
    expect(own.length).toBeGreaterThan(100_000);
    const r = await s.call("lint", { path: "pkg", linter: "flake8" });
    expect(r.issue_count).toBe(expected);
    expect(r.issue_count).toBeGreaterThanOrEqual(4000);
  });

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "ruff format --check: unformatted_count is ruff's own count",
    async () => {
      const own = direct(RUFF, ["format", "--check", "--no-cache", "pkg"], dir);
      expect(own.length).toBeGreaterThan(100_000);
      const expected = Number(/(\d+) files? would be reformatted/.exec(own)?.[1]);
      expect(expected).toBe(20);
      const r = await s.call("format_check", { path: "pkg" });
      expect(r.unformatted_count).toBe(expected);
    },
  );

  it.skipIf(missing("bandit"))("bandit: a report over 100 KB is read whole", async () => {
    const own = spawnSync("bandit", ["-r", path.join(dir, "risky"), "-f", "json", "-q"], {
      encoding: "utf8",
      maxBuffer: 1 << 30,
    }).stdout;
    expect(own.length).toBeGreaterThan(100_000);
    const expected = (JSON.parse(own) as { results: unknown[] }).results.length;
    expect(expected).toBe(400);
    const r = await s.call("security_scan", { path: "risky" });
    expect(r.success).toBe(true);
    expect(r.finding_count).toBe(expected);
    expect(r.summary).toMatchObject({ low: 400, medium: 0, high: 0 });
  });
});
