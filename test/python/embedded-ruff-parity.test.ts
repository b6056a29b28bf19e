/**
 * Issue 26.11: the embedded ruff (wasm, 0.17.4) against the ruff CLI of the same version with every rule
 * selected (`extend-select = ["ALL"]`), on a fixture with a package, its `__init__.py` re-export and a folder
 * without one: the same findings, file, line, column and rule. The wasm sees no file's place in a package;
 * ruff-file-context.ts adds what the CLI knows of it (D104 for `__init__.py`, no PLC0414 there, INP001).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";
import { EMBEDDED_FORMAT_DIFFERENCE } from "../../src/adapters/python/format.js";

const CLI_BIN = path.join(REPO_ROOT, ".tools", "ruff-embedded", "bin");

describe.skipIf(missing("ruff", [CLI_BIN]))("the embedded ruff and the ruff CLI of its version", () => {
  it("report the same findings with every rule selected", async () => {
    const dir = copyFixture(path.join(FIXTURES, "python", "embedded-parity"));
    const cli = spawnSync(path.join(CLI_BIN, "ruff"), ["--version"], { encoding: "utf8" }).stdout.trim();
    expect(cli).toBe("ruff 0.17.4");
    const own = (
      JSON.parse(
        spawnSync(path.join(CLI_BIN, "ruff"), ["check", "--no-cache", "--output-format", "json", "."], {
          cwd: dir,
          encoding: "utf8",
        }).stdout,
      ) as { filename: string; location: { row: number; column: number }; code: string }[]
    )
      .map((d) => `${path.relative(dir, d.filename)}:${d.location.row}:${d.location.column}: ${d.code}`)
      .sort();
    expect(own).toContain("pkg/__init__.py:1:1: D104");
    expect(own).toContain("scripts/run.py:1:1: INP001");
    // No ruff on PATH: the server uses the embedded build.
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
    try {
      const r = await s.call("lint", { path: ".", max_result_tokens: 50_000 });
      expect(r.command).toMatch(/\(embedded\)$/);
      const embedded = (r.issues as string[]).map((i) => /^(\S+:\d+:\d+: \S+)/.exec(i)?.[1]).sort();
      expect(embedded).toEqual(own);
    } finally {
      await s.close();
    }
  });
});

describe.skipIf(missing("ruff", [CLI_BIN]))("the embedded formatter and the ruff CLI of its version", () => {
  it("names the one difference it has: Python code blocks in Markdown, which the CLI formats in preview", async () => {
    const dir = copyFixture(path.join(FIXTURES, "python", "embedded-parity"));
    const md = path.join(dir, "README.md");
    const before = "# Notes\n\n```python\nx=[1,2]\n```\n";
    fs.writeFileSync(md, before);
    const own = spawnSync(
      path.join(CLI_BIN, "ruff"),
      ["format", "--no-cache", "--preview", "--check", "README.md"],
      { cwd: dir, encoding: "utf8" },
    );
    // The CLI would reformat the code block (exit 1 and the file named) ...
    expect(own.status).toBe(1);
    expect(own.stdout).toContain("README.md");
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
    try {
      // ... the embedded formatter leaves it and says so.
      const r = await s.call("format_check", { path: ".", language: "python" });
      expect(r.command).toMatch(/\(embedded\)$/);
      expect(JSON.stringify(r.unformatted_files ?? [])).not.toContain("README.md");
      expect(r.notes as string[]).toContain(EMBEDDED_FORMAT_DIFFERENCE);
      expect(fs.readFileSync(md, "utf8")).toBe(before);
    } finally {
      await s.close();
    }
  });
});
