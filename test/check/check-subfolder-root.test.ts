/**
 * `check` of a folder or file inside a project, without --allowed-paths: its tools find the configuration
 * they find by hand (ruff walks up to the project's pyproject.toml). The allowed root was the path itself,
 * which hid that pyproject.toml: ruff linted with the embedded defaults (flask's `check src/flask` reported 44
 * findings of rules the project does not select; `ruff check src/flask` passes). Compared with the real ruff.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCheck } from "../helpers/check.js";
import { IN_CI, TOOLS_VENV_BIN } from "../helpers/tools.js";

const RUFF = path.join(TOOLS_VENV_BIN, "ruff");
const skip = !fs.existsSync(RUFF) && !IN_CI;

/** A project whose pyproject.toml selects E711 only; its module also imports os unused (F401 by default). */
function makeProject(dir: string, git: boolean) {
  fs.mkdirSync(path.join(dir, "src", "pkg"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "pyproject.toml"),
    '[project]\nname = "pkg"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["E711"]\n',
  );
  fs.writeFileSync(
    path.join(dir, "src", "pkg", "mod.py"),
    "import os\n\n\ndef f(x):\n    return x == None\n",
  );
  if (git) spawnSync("git", ["init", "-q", dir]);
}

/** The rules `ruff check` prints by hand in `cwd` for `target`. */
function ruffByHand(cwd: string, target: string): string[] {
  const r = spawnSync(RUFF, ["check", "--no-cache", "--output-format", "json", target], {
    cwd,
    encoding: "utf8",
  });
  return (JSON.parse(r.stdout) as { code: string }[]).map((d) => d.code).sort();
}

async function checkedRules(cwd: string, args: string[]): Promise<string[]> {
  const run = await runCheck([...args, "--only", "ruff", "--json", "--result-cache", "false"], {
    cwd,
    env: { MCP_CODE_QUALITY_CHECK_REPLAY: "0" },
  });
  expect(run.stderr).not.toMatch(/outside --allowed-paths/);
  return parseJson(run)
    .findings.map((f) => f.rule_id)
    .sort();
}

describe.skipIf(skip)("check of a path inside a project, with its configuration", () => {
  let base: string;
  beforeAll(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-subfolder-root-"));
    makeProject(path.join(base, "in-git"), true);
    makeProject(path.join(base, "no-git"), false);
  });
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  for (const kind of ["in-git", "no-git"]) {
    it(`${kind}: a subfolder, a file and the subfolder as the working directory lint as ruff does`, async () => {
      const project = path.join(base, kind);
      expect(ruffByHand(project, "src/pkg")).toEqual(["E711"]);
      expect(await checkedRules(project, ["src/pkg"])).toEqual(["E711"]);
      expect(await checkedRules(project, ["src/pkg/mod.py"])).toEqual(["E711"]);
      expect(await checkedRules(path.join(project, "src", "pkg"), [])).toEqual(["E711"]);
    });
  }

  it("an explicit --allowed-paths is still the bound: the project's config above it is not read", async () => {
    const project = path.join(base, "in-git");
    const pkg = path.join(project, "src", "pkg");
    // The embedded defaults (not the project's select) lint it: F401 among them.
    expect(await checkedRules(project, ["src/pkg", "--allowed-paths", pkg])).toContain("F401");
  });
});
