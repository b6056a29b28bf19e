/**
 * The embedded ruff gives exactly the findings of the ruff CLI on the same project: the target version
 * inferred from `requires-python`, first-party modules from `src` (isort's I001), namespace packages,
 * per-file target versions and ignores, and `extend-*` keys. The CLI is run directly, as a user would.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PROJECT = path.join(FIXTURES, "python", "ruff-settings-project");
const RUFF = path.join(TOOLS_VENV_BIN, "ruff");

/** `ruff check` run directly in `dir`, its concise lines without the `[*]` fix markers. */
function cliIssues(dir: string): string[] {
  let out: string;
  try {
    out = execFileSync(RUFF, ["check", "--no-cache", "--no-fix", "--output-format", "concise", "."], {
      cwd: dir,
      encoding: "utf8",
    });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  return out
    .split("\n")
    .filter((l) => /^[^\s:][^:]*:\d+:\d+: /.test(l))
    .map((l) => l.replace(" [*]", ""));
}

async function embeddedIssues(dir: string): Promise<string[]> {
  const s = await connectStdio({
    args: ["--allowed-paths", dir, "--rate-limit", "false"],
    cwd: dir,
    env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
  });
  try {
    const r = await s.call("lint", { path: "." });
    expect(r.success).toBe(true);
    expect(r.command).toContain("(embedded)");
    return r.issues as string[];
  } finally {
    await s.close();
  }
}

function edit(dir: string, from: string | RegExp, to: string): void {
  const file = path.join(dir, "pyproject.toml");
  const text = fs.readFileSync(file, "utf8");
  const next = text.replace(from, to);
  expect(next).not.toBe(text);
  fs.writeFileSync(file, next);
}

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("embedded ruff settings match the ruff CLI", () => {
  it("on the project as configured (requires-python >=3.9, src, namespace packages, per-file settings)", async () => {
    const dir = copyFixture(PROJECT);
    const cli = cliIssues(dir);
    // The fixture's point: what the CLI reports, and what an embedded build blind to paths got wrong.
    expect(cli).toEqual([
      "scripts/stamp.py:8:25: UP017 Use `datetime.UTC` alias",
      "tests/test_core.py:10:20: B006 Do not use mutable data structures for argument defaults",
    ]);
    expect(await embeddedIssues(dir)).toEqual(cli);
  });

  it("with a newer requires-python (more pyupgrade rules apply)", async () => {
    const dir = copyFixture(PROJECT);
    edit(dir, 'requires-python = ">=3.9"', 'requires-python = ">=3.11, <4"');
    const cli = cliIssues(dir);
    expect(cli).toContain("src/mylib/core.py:10:25: UP017 Use `datetime.UTC` alias");
    expect(await embeddedIssues(dir)).toEqual(cli);
  });

  it("with an explicit target-version, which wins over requires-python", async () => {
    const dir = copyFixture(PROJECT);
    edit(dir, "[tool.ruff]\n", '[tool.ruff]\ntarget-version = "py310"\n');
    const cli = cliIssues(dir);
    expect(cli).toContain("src/mylib/core.py:13:30: UP045 Use `X | None` for type annotations");
    expect(await embeddedIssues(dir)).toEqual(cli);
  });

  it("without the namespace package setting (I001 in the namespace package)", async () => {
    const dir = copyFixture(PROJECT);
    edit(dir, ', "tools/nsx"]', "]");
    const cli = cliIssues(dir);
    expect(cli).toContain("tools/nsx/run.py:1:1: I001 Import block is un-sorted or un-formatted");
    expect(await embeddedIssues(dir)).toEqual(cli);
  });

  it("with ruff's default src (the project folder and src/)", async () => {
    const dir = copyFixture(PROJECT);
    edit(dir, 'src = ["src"]\n', "");
    expect(await embeddedIssues(dir)).toEqual(cliIssues(dir));
  });

  it("with settings in ruff.toml and requires-python in the pyproject.toml beside it", async () => {
    const dir = copyFixture(PROJECT);
    const pyproject = fs.readFileSync(path.join(dir, "pyproject.toml"), "utf8");
    const [project, ruff] = pyproject.split("[tool.ruff]\n") as [string, string];
    fs.writeFileSync(path.join(dir, "pyproject.toml"), project.replace(">=3.9", ">=3.12"));
    fs.writeFileSync(path.join(dir, "ruff.toml"), ruff.replaceAll("[tool.ruff.", "["));
    const cli = cliIssues(dir);
    expect(cli).toContain("src/mylib/core.py:10:25: UP017 Use `datetime.UTC` alias");
    expect(await embeddedIssues(dir)).toEqual(cli);
  });
});
