/**
 * The ruff CLI, black and flake8 look for their configuration beyond the allowed root: ruff and black in
 * every ancestor of the files (then the user's config), flake8 from the server's working directory. A
 * config above the root (here: line length 20, so any of them would report the project's 50-column line)
 * must not be applied; the project's own config inside the root still is.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const CODE = [
  "def some_function(a, b):",
  "    return a + b",
  "",
  "",
  "argument_one = 1",
  "argument_two = 2",
  "result = some_function(argument_one, argument_two)",
  "",
].join("\n");

/** outer/{pyproject.toml,setup.cfg} asking for 20 columns, above outer/proj (the allowed root). */
function layout(): { outer: string; proj: string } {
  const outer = tempDir("mcq-configs-above-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(proj);
  fs.writeFileSync(path.join(proj, "app.py"), CODE);
  fs.writeFileSync(
    path.join(outer, "pyproject.toml"),
    '[tool.ruff]\nline-length = 20\n[tool.ruff.lint]\nselect = ["E501"]\n[tool.black]\nline-length = 20\n',
  );
  fs.writeFileSync(path.join(outer, "setup.cfg"), "[flake8]\nmax-line-length = 20\n");
  return { outer, proj };
}

const PATH = `${TOOLS_VENV_BIN}:/usr/bin:/bin`;

describe("Python tools take no configuration from above the allowed root", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  async function serve(proj: string, cwd: string): Promise<Connected> {
    s = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd,
      env: { PATH, VIRTUAL_ENV: undefined },
    });
    return s;
  }

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "ruff CLI: lint and format_check ignore a parent's config",
    async () => {
      const { proj } = layout();
      const t = await serve(proj, proj);
      const lint = await t.call("lint", { path: "." });
      expect(lint).toMatchObject({ success: true, passed: true, issues: [] });
      expect(lint.command).toContain("--isolated");
      const format = await t.call("format_check", { path: "." });
      expect(format).toMatchObject({ success: true, formatted: true });
    },
  );

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "ruff CLI: the project's own config inside the root applies",
    async () => {
      const { proj } = layout();
      fs.writeFileSync(path.join(proj, "ruff.toml"), 'line-length = 30\n[lint]\nselect = ["E501"]\n');
      const t = await serve(proj, proj);
      const lint = await t.call("lint", { path: "." });
      expect(lint.issues).toEqual(["app.py:7:31: E501 Line too long (50 > 30)"]);
      expect(lint.command).not.toContain("--isolated");
    },
  );

  it.skipIf(missing("black"))("black ignores a parent's pyproject.toml", async () => {
    const { proj } = layout();
    const t = await serve(proj, proj);
    const r = await t.call("format_check", { path: ".", formatter: "black" });
    expect(r).toMatchObject({ success: true, formatted: true });
  });

  it.skipIf(missing("black"))("black refuses when it would read a parent's .gitignore", async () => {
    const { outer, proj } = layout();
    fs.writeFileSync(path.join(outer, ".gitignore"), "*.py\n");
    const t = await serve(proj, proj);
    const r = await t.call("format_check", { path: ".", formatter: "black" });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toContain("above the allowed root");
  });

  it.skipIf(missing("black"))("black uses the project's pyproject.toml inside the root", async () => {
    const { proj } = layout();
    fs.writeFileSync(path.join(proj, "pyproject.toml"), "[tool.black]\nline-length = 30\n");
    const t = await serve(proj, proj);
    const r = await t.call("format_check", { path: ".", formatter: "black" });
    expect(r).toMatchObject({ success: true, formatted: false });
  });

  it.skipIf(missing("flake8"))("flake8 ignores the config of the server's working directory", async () => {
    const { outer, proj } = layout();
    const t = await serve(proj, outer);
    const r = await t.call("lint", { path: proj, linter: "flake8" });
    expect(r).toMatchObject({ success: true, passed: true, issues: [] });
  });

  it.skipIf(missing("flake8"))("flake8 uses the project's config inside the root", async () => {
    const { outer, proj } = layout();
    fs.writeFileSync(path.join(proj, ".flake8"), "[flake8]\nmax-line-length = 30\n");
    const t = await serve(proj, outer);
    const r = await t.call("lint", { path: proj, linter: "flake8" });
    expect(r.issues).toEqual(["app.py:7:31: E501 line too long (50 > 30 characters)"]);
  });
});
