/**
 * The ruff CLI, given a directory, also checks (and with --fix or format, rewrites) Python files that are
 * symlinks, following them wherever they point. A `pkg/link.py` pointing out of the project must not make
 * lint read, or lint_fix / autoformat write, the file outside the allowed paths.
 */
import { spawnSync } from "node:child_process";
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

  // The refusal comes from the server's general link check (src/paths/outside-links.ts), which ignores excludes.
  it("a nested config's own `exclude` (ruff then walks into venv/ below it): refused too", async () => {
    const { proj, outsideFile } = layout();
    fs.rmSync(path.join(proj, "pkg", "link.py"));
    // ruff's default excludes skip venv/ only where no config replaces them.
    fs.writeFileSync(path.join(proj, "pkg", "ruff.toml"), 'exclude = ["nothing"]\n');
    fs.mkdirSync(path.join(proj, "pkg", "venv"));
    fs.symlinkSync(outsideFile, path.join(proj, "pkg", "venv", "link.py"));
    const shown = spawnSync(path.join(TOOLS_VENV_BIN, "ruff"), ["check", "--no-cache", "--show-files", "."], {
      cwd: proj,
      encoding: "utf8",
    }).stdout;
    expect(shown).toContain(path.join("pkg", "venv", "link.py"));
    const r = await (await serve(proj)).call("lint", { path: ".", linter: "ruff" });
    expect(r.error_type).toBe("path_validation");
    expect(String(r.error)).toContain("link.py");
  });

  it("a link that stays inside the project is no refusal: lint answers as ruff run directly", async () => {
    // pylint's tests link a module to another inside the tree: only a link out is refused, and the
    // refusal's file walk is spared when no link leads out (issue 42).
    const { proj } = layout();
    fs.rmSync(path.join(proj, "pkg", "link.py"));
    fs.writeFileSync(path.join(proj, "pkg", "b.py"), "import os\n");
    fs.symlinkSync(path.join(proj, "pkg", "b.py"), path.join(proj, "pkg", "link.py"));
    const r = await (await serve(proj)).call("lint", { path: ".", linter: "ruff" });
    expect(r.error_type).toBeUndefined();
    const direct = spawnSync(
      path.join(TOOLS_VENV_BIN, "ruff"),
      ["check", "--no-cache", "--no-fix", "--output-format", "json", "."],
      { cwd: proj, encoding: "utf8" },
    );
    const byRuff = (
      JSON.parse(direct.stdout) as { filename: string; code: string; location: { row: number } }[]
    )
      .map((d) => `${path.relative(proj, d.filename)}:${d.location.row}: ${d.code}`)
      .sort();
    expect(byRuff).toContain("pkg/b.py:1: F401");
    expect(byRuff).toContain("pkg/link.py:1: F401");
    const ours = (r.issues as string[])
      .map((i) => /^(\S+:\d+):\d+: (\S+)/.exec(i)?.slice(1).join(": "))
      .sort();
    expect(ours).toEqual(byRuff);
  });
});
