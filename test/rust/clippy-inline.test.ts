/**
 * clippy with inline `source_code` (issue 16): linted and corrected as the file it names, in a scratch copy of
 * its crate (the project is never written), compared with clippy run on a crate holding that text.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";

const CODE = "pub fn triple(x: i32) -> i32 {\n    return x * 3;\n}\n";

describe.skipIf(missing("cargo"))("clippy with source_code", () => {
  let crate: string;
  let s: Connected;
  beforeAll(async () => {
    crate = copyFixture(path.join(FIXTURES, "rust", "lint-crate"));
    s = await connectStdio({ args: ["--allowed-paths", crate], cwd: crate });
  });
  afterAll(async () => s?.close());

  it("lints the code as src/lib.rs of the crate, as clippy does on that text, writing nothing", async () => {
    const lib = path.join(crate, "src", "lib.rs");
    const before = fs.readFileSync(lib, "utf8");
    const r = await s.call("lint", { path: lib, linter: "clippy", source_code: CODE });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 1 });
    expect(r.issues).toEqual(["src/lib.rs:2:5: warning: unneeded `return` statement"]);
    expect(fs.readFileSync(lib, "utf8")).toBe(before);
    // clippy itself on a crate whose lib.rs is that text.
    const direct = tempDir("mcq-clippy-direct-");
    fs.cpSync(crate, direct, { recursive: true });
    fs.writeFileSync(path.join(direct, "src", "lib.rs"), CODE);
    const out = spawnSync("cargo", ["clippy", "--quiet", "--message-format=short"], {
      cwd: direct,
      encoding: "utf8",
    });
    expect(out.stderr).toContain("src/lib.rs:2:5: warning: unneeded `return` statement");
  });

  it("the crate's own lint levels apply: in a crate that allows needless_return the same code passes", async () => {
    const lenient = path.join(crate, "lenient");
    fs.mkdirSync(path.join(lenient, "src"), { recursive: true });
    fs.writeFileSync(
      path.join(lenient, "Cargo.toml"),
      '[package]\nname = "lenient"\nversion = "0.1.0"\nedition = "2021"\n\n[lints.clippy]\nneedless_return = "allow"\n',
    );
    fs.writeFileSync(path.join(lenient, "src", "lib.rs"), "pub fn one() -> i32 {\n    1\n}\n");
    const r = await s.call("lint", {
      path: path.join(lenient, "src", "lib.rs"),
      linter: "clippy",
      source_code: CODE,
    });
    expect(r).toMatchObject({ success: true, passed: true, issue_count: 0 });
    expect(fs.readFileSync(path.join(lenient, "src", "lib.rs"), "utf8")).toBe(
      "pub fn one() -> i32 {\n    1\n}\n",
    );
  });

  it("lint_fix returns the corrected text and writes nothing; a file cargo would not compile is refused", async () => {
    const lib = path.join(crate, "src", "lib.rs");
    const before = fs.readFileSync(lib, "utf8");
    const r = await s.call("lint_fix", { path: lib, linter: "clippy", source_code: CODE });
    expect(r).toMatchObject({ success: true, corrected: true });
    expect(r.corrected_source).toBe("pub fn triple(x: i32) -> i32 {\n    x * 3\n}\n");
    expect(fs.readFileSync(lib, "utf8")).toBe(before);
    const orphan = await s.call("lint", {
      path: path.join(crate, "src", "orphan.rs"),
      linter: "clippy",
      source_code: CODE,
    });
    expect(orphan).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(orphan.error).toMatch(/no module declares it/);
    const broken = await s.call("lint", { path: lib, linter: "clippy", source_code: "pub fn f( {\n" });
    expect(broken).toMatchObject({ success: false, error_type: "tool_error" });
  });
});
