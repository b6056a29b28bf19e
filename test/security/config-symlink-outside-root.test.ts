/**
 * Config files found by walking up from the target (eslint.config.js, tsconfig.json, .prettierrc) are read,
 * or even loaded as code, by the tools. One that is a symlink inside the project pointing out of it must be
 * refused with path_validation, not followed.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** outer/proj (allowed, a small JS project) and outer/ for the configs it links to. */
function layout(): { outer: string; proj: string } {
  const outer = tempDir("mcq-config-link-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(proj, "src"), { recursive: true });
  fs.writeFileSync(path.join(proj, "package.json"), '{ "name": "p", "type": "module" }\n');
  fs.writeFileSync(path.join(proj, "src", "a.js"), "console.log(1);\n");
  return { outer, proj };
}

describe("config files that are symlinks out of the project", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const serve = async (proj: string) =>
    (s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj }));

  it("control: the same eslint config inside the project is used", async () => {
    const { proj } = layout();
    fs.writeFileSync(
      path.join(proj, "eslint.config.js"),
      'export default [{ rules: { "no-console": "error" } }];\n',
    );
    const r = await (await serve(proj)).call("lint", { path: ".", linter: "eslint" });
    expect(r.success).toBe(true);
    expect(String(r.issues)).toContain("no-console");
  });

  it("an eslint.config.js linked from outside is not loaded", async () => {
    const { outer, proj } = layout();
    fs.writeFileSync(
      path.join(outer, "evil.config.js"),
      'export default [{ rules: { "no-console": "error" } }];\n',
    );
    fs.symlinkSync(path.join(outer, "evil.config.js"), path.join(proj, "eslint.config.js"));
    const r = await (await serve(proj)).call("lint", { path: ".", linter: "eslint" });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });

  it("a tsconfig.json linked from outside is not read", async () => {
    const { outer, proj } = layout();
    fs.writeFileSync(
      path.join(outer, "tsconfig.json"),
      '{ "compilerOptions": { "allowJs": true, "checkJs": true, "noEmit": true } }\n',
    );
    fs.symlinkSync(path.join(outer, "tsconfig.json"), path.join(proj, "tsconfig.json"));
    const r = await (await serve(proj)).call("type_check", { path: ".", checker: "tsc" });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });

  it("a .prettierrc linked from outside is not read", async () => {
    const { outer, proj } = layout();
    fs.writeFileSync(path.join(outer, "prettierrc.json"), '{ "semi": false }\n');
    fs.symlinkSync(path.join(outer, "prettierrc.json"), path.join(proj, ".prettierrc"));
    const r = await (await serve(proj)).call("format_check", { path: ".", language: "javascript" });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });
});
