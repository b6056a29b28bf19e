/**
 * The project config `.mcp-code-quality/config.yaml` is read through the allowlist: a config file, or
 * a `.mcp-code-quality` directory, that is a symbolic link out of the allowed root is refused with
 * path_validation and never read (the outside file is a FIFO: opening it for reading would block).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

function layout() {
  const base = tempDir("mcq-projcfg-link-");
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, "doc.md"), "# Doc\n\n[gone](gone.md)\n");
  execFileSync("mkfifo", [path.join(outside, "config.yaml")]);
  return { root, outside };
}

describe("project config links out of the root", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it("a config.yaml linked from outside is refused, not read", async () => {
    const { root, outside } = layout();
    fs.mkdirSync(path.join(root, ".mcp-code-quality"));
    fs.symlinkSync(path.join(outside, "config.yaml"), path.join(root, ".mcp-code-quality", "config.yaml"));
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root });
    const r = await s.call("check_markdown_links", { path: ".", check_external: false });
    expect(r).toMatchObject({ success: false, error_type: "path_validation" });
    expect(r.error).toMatch(/config\.yaml is a symbolic link; not read/);
  });

  it("a .mcp-code-quality directory linked from outside is refused, not read", async () => {
    const { root, outside } = layout();
    fs.symlinkSync(outside, path.join(root, ".mcp-code-quality"));
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root });
    const r = await s.call("check_markdown_links", { path: ".", check_external: false });
    expect(r).toMatchObject({ success: false, error_type: "path_validation" });
    expect(r.error).toMatch(/not a directory \(a link\?\); not read/);
  });
});
