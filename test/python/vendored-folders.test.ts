/**
 * A virtualenv inside the project must not drown the project: flake8, bandit and ruff skip virtualenvs
 * (`.venv`, or any folder holding `pyvenv.cfg`), dependency, build and VCS folders and, in a git
 * repository, .gitignore'd folders (ruff with its own default excludes, which leave build/ in). The project is generated in a temp dir: a `.venv` with 600 files of
 * findings (more than the 500 a list shows), an oddly named virtualenv, node_modules, build/, and an
 * ignored folder, beside the project's own file with known findings.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectFirst } from "../../src/adapters/python/tree-excludes.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const VENDORED_CODE = 'import os\nimport subprocess\nsubprocess.call("ls", shell=True)\n';
const PROJECT_CODE =
  "import os\nimport subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function makeProject(): string {
  const dir = tempDir("mcq-vendored-");
  write(path.join(dir, "pyproject.toml"), '[project]\nname = "p"\nversion = "0"\n');
  write(path.join(dir, "pkg", "app.py"), PROJECT_CODE);
  const site = path.join(dir, ".venv", "lib", "python3.11", "site-packages");
  write(path.join(dir, ".venv", "pyvenv.cfg"), "home = /usr/bin\n");
  for (let i = 0; i < 600; i++) write(path.join(site, `vendored_${i}.py`), VENDORED_CODE);
  write(path.join(dir, "env-odd-name", "pyvenv.cfg"), "home = /usr/bin\n");
  write(path.join(dir, "env-odd-name", "lib", "thing.py"), VENDORED_CODE);
  write(path.join(dir, "node_modules", "pkg", "x.py"), VENDORED_CODE);
  write(path.join(dir, "build", "lib", "pkg", "app.py"), VENDORED_CODE);
  write(path.join(dir, "generated", "out.py"), VENDORED_CODE);
  write(path.join(dir, ".gitignore"), "generated/\n");
  execFileSync("git", ["init", "-q"], { cwd: dir });
  return dir;
}

describe("vendored folders are excluded by default", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = makeProject();
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(missing("flake8"))("flake8 lints only the project's own file", async () => {
    const r = await s.call("lint", { path: ".", linter: "flake8" });
    expect(r.issues).toEqual(["pkg/app.py:1:1: F401 'os' imported but unused"]);
    expect(r.issue_count).toBe(1);
    expect(r.command).toContain(`,${path.join(dir, ".venv")},${path.join(dir, "build")},`);
  });

  it.skipIf(missing("bandit"))("bandit scans only the project's own file", async () => {
    const r = await s.call("security_scan", { path: "." });
    const files = new Set((r.findings as { filename: string }[]).map((f) => f.filename));
    expect([...files]).toEqual([path.join(dir, "pkg", "app.py")]);
    expect(r.finding_count).toBe(2); // B404 import subprocess, B602 shell=True
    const alone = await s.call("security_scan", { path: "pkg/app.py" });
    expect(r.findings).toEqual(alone.findings);
  });

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "the ruff CLI also skips a virtualenv it does not know by name",
    async () => {
      const r = await s.call("lint", { path: "." });
      // build/ is linted, as ruff itself does (it is not among ruff's default excludes), after the project.
      expect(r.issues).toEqual([
        "pkg/app.py:1:8: F401 [*] `os` imported but unused",
        "build/lib/pkg/app.py:1:1: I001 [*] Import block is un-sorted or un-formatted",
        "build/lib/pkg/app.py:1:8: F401 [*] `os` imported but unused",
      ]);
      expect(r.command).toContain(`--extend-exclude ${path.join(dir, "env-odd-name")}`);
    },
  );

  it("the embedded ruff skips the same folders", async () => {
    const t = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
    try {
      const r = await t.call("lint", { path: "." });
      expect(r.issues).toEqual([
        "pkg/app.py:1:8: F401 `os` imported but unused",
        "build/lib/pkg/app.py:1:1: I001 Import block is un-sorted or un-formatted",
        "build/lib/pkg/app.py:1:8: F401 `os` imported but unused",
      ]);
    } finally {
      await t.close();
    }
  });

  it("findings in vendored files are listed after the project's own", () => {
    const items = [
      ".venv/lib/python3.11/site-packages/vendored_1.py",
      "pkg/app.py",
      "env-odd-name/lib/thing.py",
      "node_modules/pkg/x.py",
      "pkg/other.py",
    ];
    expect(projectFirst(items, (f) => f, dir)).toEqual([
      "pkg/app.py",
      "pkg/other.py",
      ".venv/lib/python3.11/site-packages/vendored_1.py",
      "env-odd-name/lib/thing.py",
      "node_modules/pkg/x.py",
    ]);
  });
});
