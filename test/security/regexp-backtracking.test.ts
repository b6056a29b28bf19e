/**
 * A pattern from the project that backtracks exponentially must not hold the server: an exclude glob of
 * ruff's (`*a*a…b*`, which becomes `.*a.*a….*b.*`) against a long file name took minutes on the event loop,
 * where no time limit reaches. Every entry point sets V8's fallback to its linear-time engine
 * (src/regexp-guard.ts): the same answer as the ruff CLI (Rust's globset) gives, at once.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const RUFF = path.join(REPO_ROOT, ".tools", "ruff-embedded", "bin", "ruff");
const EVIL = `${"*a".repeat(16)}b*`;

/** A project whose exclude is EVIL, with files it does and does not match. */
function project(): string {
  const dir = tempDir("mcq-redos-");
  fs.writeFileSync(
    path.join(dir, "pyproject.toml"),
    `[tool.ruff]\nextend-exclude = ["${EVIL}"]\n[tool.ruff.lint]\nselect = ["F401"]\n`,
  );
  // Long runs of `a` with no `b` after them: the worst case of the backtracking match.
  fs.mkdirSync(path.join(dir, "a".repeat(60)));
  fs.writeFileSync(path.join(dir, "a".repeat(60), `${"a".repeat(80)}.py`), "import os\n");
  // Matched (a `b` after sixteen `a`s): excluded by ruff.
  fs.writeFileSync(path.join(dir, `${"a".repeat(20)}b.py`), "import os\n");
  return dir;
}

describe("a pattern that backtracks exponentially", () => {
  it("the embedded ruff's excludes answer as the ruff CLI does, without holding the process", () => {
    if (missing("ruff", [path.dirname(RUFF)])) return;
    const dir = project();
    const byHand = spawnSync(RUFF, ["check", "--no-fix", "--output-format", "json", "."], {
      cwd: dir,
      encoding: "utf8",
    });
    const expected = (JSON.parse(byHand.stdout) as { filename: string; code: string }[])
      .map((f) => `${path.relative(dir, path.resolve(dir, f.filename))} ${f.code}`)
      .sort();
    expect(expected).toEqual([`${"a".repeat(60)}/${"a".repeat(80)}.py F401`]);
    // No ruff on PATH: the embedded ruff walks the tree with the project's excludes.
    const check = spawnSync(
      process.execPath,
      [
        CLI,
        "check",
        ".",
        "--only",
        "ruff",
        "--json",
        "--audit-log",
        path.join(tempDir("mcq-redos-audit-"), "a"),
      ],
      {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, PATH: path.dirname(process.execPath) },
        timeout: 50_000,
      },
    );
    expect(check.error, "the check did not end").toBeUndefined();
    const report = JSON.parse(check.stdout) as { findings: { file: string; rule_id: string }[] };
    expect(
      report.findings.map((f) => `${path.relative(dir, path.resolve(dir, f.file))} ${f.rule_id}`).sort(),
    ).toEqual(expected);
  });
});
