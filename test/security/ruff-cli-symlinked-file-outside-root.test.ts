/**
 * The ruff CLI, given a directory, also checks (and with --fix or format, rewrites) Python files that are
 * symlinks, following them wherever they point. A `pkg/link.py` pointing out of the project must not make
 * lint read, or lint_fix / autoformat write, the file outside the allowed paths.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const OUTSIDE = "import os\nx  =  1\n";

function layout(): { proj: string; outsideFile: string } {
  const outer = tempDir("mcq-ruff-link-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(proj, "pkg"), { recursive: true });
  fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(proj, "pkg", "a.py"), "x = 1\n");
  const outsideFile = path.join(outer, "outside.py");
  fs.writeFileSync(outsideFile, OUTSIDE);
  fs.symlinkSync(outsideFile, path.join(proj, "pkg", "link.py"));
  return { proj, outsideFile };
}

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("ruff CLI and Python files symlinked from outside", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const serve = async (proj: string) =>
    (s = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd: proj,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    }));

  it.each([
    ["lint", {}],
    ["format_check", {}],
    ["lint_fix", { safety: "unsafe" }],
    ["autoformat", {}],
  ])("%s is refused with path_validation and the outside file is untouched", async (tool, extra) => {
    const { proj, outsideFile } = layout();
    const r = await (await serve(proj)).call(tool, { path: ".", ...extra });
    expect(fs.readFileSync(outsideFile, "utf8")).toBe(OUTSIDE);
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
    expect(String(r.error)).toContain("link.py");
  });
});
