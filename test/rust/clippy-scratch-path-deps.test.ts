/**
 * clippy's scratch copy (inline source_code, dry runs, fix passes) and the crate's path dependencies. A
 * relative `path = "../shared"` names a folder beside the workspace; copied as it is, it would name a folder
 * beside the scratch copy, where another local user could have planted a crate with a `build.rs`. A path
 * dependency inside the allowed paths is pointed at the real folder; one outside them is refused, naming
 * --allowed-paths; nothing planted beside the scratch copy is ever built.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const CODE = "pub fn triple(x: i32) -> i32 {\n    return shared::one() * x * 3;\n}\n";

/** outer/{app,shared}: app depends on ../shared. */
function layout(): { outer: string; app: string; lib: string } {
  const outer = tempDir("mcq-clippy-pathdep-");
  const app = path.join(outer, "app");
  const shared = path.join(outer, "shared");
  for (const dir of [app, shared]) fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(
    path.join(app, "Cargo.toml"),
    '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nshared = { path = "../shared" }\n',
  );
  fs.writeFileSync(path.join(app, "src", "lib.rs"), "pub fn f() -> i32 {\n    shared::one()\n}\n");
  fs.writeFileSync(
    path.join(shared, "Cargo.toml"),
    '[package]\nname = "shared"\nversion = "0.1.0"\nedition = "2021"\n',
  );
  fs.writeFileSync(path.join(shared, "src", "lib.rs"), "pub fn one() -> i32 {\n    1\n}\n");
  return { outer, app, lib: path.join(app, "src", "lib.rs") };
}

/** A crate named `shared` with a build.rs that leaves a mark, planted where `../shared` of a scratch copy would point. */
function plantBesideScratch(): { planted: string; mark: string } {
  const scratchRoot = path.join(os.tmpdir(), `mcq-${process.getuid?.() ?? 0}`);
  const planted = path.join(scratchRoot, "shared");
  // Inside the scratch folder, which the sandbox binds read-write: a build script that ran leaves it there.
  const mark = path.join(planted, "build-ran");
  fs.mkdirSync(path.join(planted, "src"), { recursive: true, mode: 0o700 });
  fs.writeFileSync(
    path.join(planted, "Cargo.toml"),
    '[package]\nname = "shared"\nversion = "0.1.0"\nedition = "2021"\n',
  );
  fs.writeFileSync(path.join(planted, "src", "lib.rs"), "pub fn one() -> i32 {\n    1\n}\n");
  fs.writeFileSync(
    path.join(planted, "build.rs"),
    `fn main() { std::fs::write(${JSON.stringify(mark)}, "ran").unwrap(); }\n`,
  );
  return { planted, mark };
}

describe.skipIf(missing("cargo"))("clippy's scratch copy and path dependencies", () => {
  let s: Connected | undefined;
  const cleanup: string[] = [];
  afterEach(async () => {
    await s?.close();
    s = undefined;
    for (const p of cleanup.splice(0)) fs.rmSync(p, { recursive: true, force: true });
  });

  it("a path dependency inside the allowed paths is the real one: inline code that uses it lints as clippy lints it", async () => {
    const { outer, app, lib } = layout();
    const { planted, mark } = plantBesideScratch();
    cleanup.push(planted, mark);
    s = await connectStdio({ args: ["--allowed-paths", outer, "--rate-limit", "false"], cwd: app });
    const r = await s.call("lint", { path: lib, linter: "clippy", source_code: CODE });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 1 });
    expect(r.issues).toEqual(["src/lib.rs:2:5: warning: unneeded `return` statement"]);
    expect(fs.existsSync(mark)).toBe(false);
  }, 180_000);

  for (const sandbox of ["off", "auto"])
    it(`a path dependency outside the allowed paths is refused, naming --allowed-paths (--sandbox ${sandbox}); nothing planted is built`, async () => {
      const { app, lib } = layout();
      const { planted, mark } = plantBesideScratch();
      cleanup.push(planted, mark);
      s = await connectStdio({
        args: ["--allowed-paths", app, "--rate-limit", "false", "--sandbox", sandbox],
        cwd: app,
      });
      for (const [tool, args] of [
        ["lint", { path: lib, linter: "clippy", source_code: CODE }],
        ["lint_fix", { path: ".", linter: "clippy", dry_run: true }],
      ] as const) {
        const r = await s.call(tool, args);
        expect(r).toMatchObject({ success: false, error_type: "path_validation" });
        expect(String(r.error)).toContain('dependencies.shared.path = "../shared"');
        expect(String(r.error)).toContain("--allowed-paths");
      }
      expect(fs.existsSync(mark)).toBe(false);
    }, 180_000);
});
