/**
 * ESLint walks a glob from its literal leading directories, and follows a symlink there. A `files` glob whose
 * literal prefix is a symlink inside the project that points out of it (`link/*.js`) must be refused, or
 * lint reads and lint_fix rewrites files outside the allowed paths.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const OUTSIDE_SOURCE = "const b = !!globalThis.x ? 1 : 2;\nexport { b };\n";

describe("eslint files globs never reach through a symlink out of the project", () => {
  let s: Connected;
  let proj: string;
  let outsideFile: string;
  beforeAll(async () => {
    const outer = tempDir("mcq-eslint-link-");
    proj = path.join(outer, "proj");
    fs.mkdirSync(path.join(proj, "src"), { recursive: true });
    fs.writeFileSync(path.join(proj, "package.json"), '{ "name": "p", "type": "module" }\n');
    fs.writeFileSync(path.join(proj, "src", "ok.js"), OUTSIDE_SOURCE);
    fs.mkdirSync(path.join(outer, "elsewhere", "deep"), { recursive: true });
    outsideFile = path.join(outer, "elsewhere", "deep", "bad.js");
    fs.writeFileSync(outsideFile, OUTSIDE_SOURCE);
    fs.symlinkSync(path.join(outer, "elsewhere"), path.join(proj, "link"));
    s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj });
  });
  afterAll(() => s?.close());

  it("control: a glob inside the project lints", async () => {
    const r = await s.call("lint", { path: ".", linter: "eslint", files: ["src/*.js"] });
    expect(r.success).toBe(true);
    expect(String(r.issues)).toContain("no-extra-boolean-cast");
  });

  it.each([["link/deep/*.js"], ["link/**/*.js"]])("lint refuses %s with path_validation", async (glob) => {
    const r = await s.call("lint", { path: ".", linter: "eslint", files: [glob] });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });

  it("lint_fix refuses it and leaves the outside file alone", async () => {
    const r = await s.call("lint_fix", { path: ".", linter: "eslint", files: ["link/deep/*.js"] });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
    expect(fs.readFileSync(outsideFile, "utf8")).toBe(OUTSIDE_SOURCE);
  });
});
