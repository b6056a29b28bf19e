/**
 * The embedded ruff reads the project's ruff settings itself, so a config that points outside the allowed
 * paths (`extend = "../…"`, `extend = "/abs/…"`, or a config file that is a symlink out of the tree) must be
 * refused with a typed error instead of being read.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

/** No ruff on PATH: the embedded build runs, and the server parses the settings. */
const NO_RUFF_PATH = "/usr/bin:/bin";
/** The ruff CLI, which reads the settings itself: the server checks them before running it. */
const CLI_PATH = `${TOOLS_VENV_BIN}:${NO_RUFF_PATH}`;

/** outer/proj (the allowed path) with one F401 finding, and outer/outside.toml that would silence it. */
function layout(): { proj: string; outsideToml: string } {
  const outer = tempDir("mcq-ruff-extend-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(proj, "pkg"), { recursive: true });
  fs.writeFileSync(path.join(proj, "pkg", "app.py"), "import os\n");
  const outsideToml = path.join(outer, "outside.toml");
  fs.writeFileSync(outsideToml, '[lint]\nignore = ["F401"]\n');
  return { proj, outsideToml };
}

describe.each([
  ["embedded ruff", NO_RUFF_PATH, false],
  ["ruff CLI", CLI_PATH, missing("ruff", [TOOLS_VENV_BIN])],
])("%s: settings never come from outside the allowed paths", (_name, PATH, skip) => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  async function lint(proj: string) {
    s = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd: proj,
      env: { PATH, VIRTUAL_ENV: undefined },
    });
    return s.call("lint", { path: "." });
  }

  it.skipIf(skip)("control: a project without an outside reference lints normally", async () => {
    const { proj } = layout();
    fs.writeFileSync(path.join(proj, "ruff.toml"), "line-length = 100\n");
    const r = await lint(proj);
    expect(r.success).toBe(true);
    expect(String(r.issues)).toContain("F401");
  });

  it.skipIf(skip).each([
    ["a relative extend with ..", () => "../outside.toml"],
    ["an absolute extend", (outside: string) => outside],
  ])("%s is refused with path_validation", async (_name, extendOf) => {
    const { proj, outsideToml } = layout();
    fs.writeFileSync(path.join(proj, "ruff.toml"), `extend = ${JSON.stringify(extendOf(outsideToml))}\n`);
    const r = await lint(proj);
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
    expect(String(r.error)).toMatch(/extend/);
  });

  it.skipIf(skip)("a config file that is a symlink out of the tree is refused", async () => {
    const { proj, outsideToml } = layout();
    fs.symlinkSync(outsideToml, path.join(proj, "ruff.toml"));
    const r = await lint(proj);
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });

  it.skipIf(skip)("format_check refuses an outside extend too", async () => {
    const { proj, outsideToml } = layout();
    fs.writeFileSync(path.join(proj, "ruff.toml"), `extend = ${JSON.stringify(outsideToml)}\n`);
    await lint(proj);
    const r = await s!.call("format_check", { path: "." });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });
});
