/**
 * `check pkgs/b pkgs/b/src/b/m.py`: the file is inside the folder, whose checks report on it already, and
 * each of its findings was listed twice. A path inside another one given is left to it (outer-paths.ts).
 * The real ruff, compared with `ruff check` by hand.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson, PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("check of overlapping paths", () => {
  it("reports each finding once, as ruff by hand on the folder", async () => {
    const dir = tempDir("mcq-overlap-");
    const pkg = path.join(dir, "pkgs", "b");
    fs.mkdirSync(path.join(pkg, "src", "b"), { recursive: true });
    fs.writeFileSync(path.join(pkg, "pyproject.toml"), '[project]\nname = "b"\nversion = "0"\n');
    fs.writeFileSync(path.join(pkg, "src", "b", "m.py"), "import os\n");
    const byHand = spawnSync("ruff", ["check", "--no-cache", "--output-format", "concise", "."], {
      cwd: pkg,
      encoding: "utf8",
      env: { ...process.env, PATH: PATH_WITH_TOOLS },
    });
    expect(byHand.stdout).toContain("src/b/m.py:1:8: F401");
    const args = ["pkgs/b", "pkgs/b/src/b/m.py", "--only", "ruff", "--json", "--result-cache", "false"];
    const json = parseJson(await runCheck([...args, "--allowed-paths", dir], { cwd: dir }));
    expect(json.findings.map((f) => `${f.file}:${f.line} ${f.rule_id}`)).toEqual([
      "pkgs/b/src/b/m.py:1 F401",
    ]);
    expect(json.checks.map((c) => `${c.id} ${path.relative(dir, c.target)}`)).toEqual([
      "ruff-format pkgs/b",
      "ruff pkgs/b",
    ]);
  }, 120_000);
});
