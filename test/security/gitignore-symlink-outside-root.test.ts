/**
 * The server reads .gitignore files itself while walking a project (the embedded ruff's file discovery, the
 * Markdown link checker). A .gitignore that is a symlink out of the project must not be read: its rules
 * (here: ignore everything) would otherwise come from outside the allowed paths.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** outer/proj (allowed, looks like a git repository) whose .gitignore links to outer/ignore-all. */
function layout(linked: boolean): string {
  const outer = tempDir("mcq-gitignore-link-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(proj, ".git"), { recursive: true });
  fs.mkdirSync(path.join(proj, "pkg"));
  fs.writeFileSync(path.join(proj, "pkg", "app.py"), "import os\n");
  fs.writeFileSync(path.join(proj, "README.md"), "[gone](missing.md)\n");
  fs.writeFileSync(path.join(outer, "ignore-all"), "pkg/\n*.md\n");
  if (linked) fs.symlinkSync(path.join(outer, "ignore-all"), path.join(proj, ".gitignore"));
  return proj;
}

describe("a .gitignore linked from outside the project is not read", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const serve = async (proj: string) =>
    (s = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd: proj,
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    }));

  it.each([false, true])("embedded ruff lint still sees pkg/app.py (linked: %s)", async (linked) => {
    const proj = layout(linked);
    const r = await (await serve(proj)).call("lint", { path: "." });
    expect(r.success).toBe(true);
    expect(r.issues).toEqual(["pkg/app.py:1:8: F401 `os` imported but unused"]);
  });

  it.each([false, true])("check_markdown_links still checks README.md (linked: %s)", async (linked) => {
    const proj = layout(linked);
    const r = await (await serve(proj)).call("check_markdown_links", { path: ".", check_external: false });
    expect(r.success).toBe(true);
    expect(r.files_checked).toBe(1);
    expect(r.broken_links).toBe(1);
  });
});
