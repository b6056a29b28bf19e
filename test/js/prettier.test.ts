/** format_check and autoformat with the bundled Prettier through the MCP client. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

describe("Prettier for javascript and typescript", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "no-toolchain"));
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(() => s.close());

  it("format_check lists unformatted files, honours .prettierrc and .prettierignore, and gives a diff", async () => {
    const r = await s.call("format_check", { path: ".", language: "typescript", diff: true });
    expect(r).toMatchObject({
      success: true,
      formatted: false,
      unformatted_files: ["src/messy.ts"],
      unformatted_count: 1,
    });
    // singleQuote from .prettierrc.json; src/ignored.ts is in .prettierignore.
    expect(r.output).toBe(
      "--- src/messy.ts\n+++ src/messy.ts\n@@ -1,2 +1,1 @@\n-export const messy = {a:1,\n-    b:\"two\"}\n+export const messy = { a: 1, b: 'two' };\n",
    );
    expect(r.notes).toContain(
      "prettier 3.10.1 bundled with mcp-code-quality (the project has none in node_modules)",
    );
    const js = await s.call("format_check", { path: ".", language: "javascript" });
    expect(js).toMatchObject({ formatted: true, unformatted_files: [] });
    expect(js.notes).toContain("1 javascript file(s) checked");
  });

  it("autoformat dry_run writes nothing; autoformat writes; the edit shows in the next check", async () => {
    const messy = path.join(dir, "src", "messy.ts");
    const before = fs.readFileSync(messy, "utf8");
    const dry = await s.call("autoformat", { path: "src", language: "typescript", dry_run: true });
    expect(dry).toMatchObject({ changed_files: ["src/messy.ts"], dry_run: true });
    expect(dry.diff).toContain("+export const messy = { a: 1, b: 'two' };");
    expect(fs.readFileSync(messy, "utf8")).toBe(before);
    const wet = await s.call("autoformat", { path: "src", language: "typescript" });
    expect(wet).toMatchObject({ changed_files: ["src/messy.ts"], dry_run: false });
    expect(fs.readFileSync(messy, "utf8")).toBe("export const messy = { a: 1, b: 'two' };\n");
    const after = await s.call("format_check", { path: "src", language: "typescript" });
    expect(after).toMatchObject({ formatted: true, unformatted_files: [] });
    fs.writeFileSync(messy, before);
    const again = await s.call("format_check", { path: "src", language: "typescript" });
    expect(again).toMatchObject({ formatted: false, unformatted_files: ["src/messy.ts"] });
  });
});
