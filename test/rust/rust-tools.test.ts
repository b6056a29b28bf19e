/**
 * Rust through the real server and the real toolchain: cargo fmt / rustfmt (edition from Cargo.toml, following
 * edition.workspace), clippy with its suggestions as corrections on a read-only copy, cargo check, cargo test.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";

const RUST = path.join(FIXTURES, "rust");

/** Every file of a tree with its content, to prove a read-only call left it as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      out[path.relative(dir, file)] = fs.readFileSync(file, "utf8");
    }
  return out;
}

describe.skipIf(missing("cargo"))("Rust", () => {
  let lintCrate: string;
  let testsCrate: string;
  let workspace: string;
  let compileError: string;
  let docCrate: string;
  let s: Connected;
  beforeAll(async () => {
    lintCrate = copyFixture(path.join(RUST, "lint-crate"));
    testsCrate = copyFixture(path.join(RUST, "tests-crate"));
    workspace = copyFixture(path.join(RUST, "workspace"));
    compileError = copyFixture(path.join(RUST, "compile-error"));
    docCrate = tempDir("mcq-doc-crate-");
    fs.mkdirSync(path.join(docCrate, "src"));
    fs.writeFileSync(
      path.join(docCrate, "Cargo.toml"),
      '[package]\nname = "doc-crate"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    );
    fs.writeFileSync(
      path.join(docCrate, "src", "lib.rs"),
      "/// Adds one.\n///\n/// Doc comments sit in the diff rustfmt prints.\npub fn add_one( a:i32 )->i32{ a+1 }\n",
    );
    s = await connectStdio({
      args: ["--allowed-paths", [lintCrate, testsCrate, workspace, compileError, docCrate].join(",")],
      cwd: lintCrate,
    });
  });
  afterAll(async () => s?.close());

  it("format_check on a crate runs cargo fmt --check and names the files it would change", async () => {
    const before = snapshot(lintCrate);
    const r = await s.call("format_check", { path: ".", language: "rust", diff: true });
    expect(r).toMatchObject({
      success: true,
      formatted: false,
      command: "cargo fmt --check -- --color never",
      unformatted_files: ["src/lib.rs"],
    });
    expect(r.output).toContain("+pub fn messy(a: i32) -> i32 {");
    expect(snapshot(lintCrate)).toEqual(before);
  });

  it("a doc comment in cargo fmt's diff is no path the sandbox hid (`///` was one)", async () => {
    const direct = spawnSync("cargo", ["fmt", "--check", "--", "--color", "never"], {
      cwd: docCrate,
      encoding: "utf8",
    });
    expect(direct.stdout).toContain(" /// Adds one.\n ///\n");
    const r = await s.call("format_check", { path: docCrate, language: "rust" });
    expect(r).toMatchObject({ success: true, formatted: false, unformatted_files: ["src/lib.rs"] });
    expect(JSON.stringify(r.notes ?? [])).not.toContain("could not see");
  });

  it("a single file gets rustfmt with the edition of its workspace (edition.workspace = true)", async () => {
    const file = path.join(workspace, "member", "src", "lib.rs");
    const direct = spawnSync("rustfmt", ["--check", "--edition", "2018", "--color", "never", "--", file], {
      encoding: "utf8",
    });
    const r = await s.call("format_check", { path: file, language: "rust", diff: true });
    expect(r).toMatchObject({
      formatted: false,
      command: `rustfmt --check --edition 2018 --color never -- ${file}`,
      unformatted_files: ["member/src/lib.rs"],
      output: direct.stdout,
    });
    const w = await s.call("autoformat", { path: file, language: "rust" });
    expect(w).toMatchObject({ success: true, changed_files: ["member/src/lib.rs"] });
    expect(fs.readFileSync(file, "utf8")).toBe("pub fn spaced() -> u8 {\n    1\n}\n");
  });

  it("a Rust syntax error is a tool_error", async () => {
    const file = path.join(compileError, "src", "broken.rs");
    fs.writeFileSync(file, "fn main( {\n");
    try {
      const r = await s.call("format_check", { path: file, language: "rust" });
      expect(r).toMatchObject({ success: false, error_type: "tool_error" });
      expect(r.error).toBe("rustfmt failed: error: this file contains an unclosed delimiter");
    } finally {
      fs.rmSync(file);
    }
  });

  it("clippy lists its warnings in seed 000's short format, with machine-applicable fixes as safe corrections", async () => {
    const before = snapshot(lintCrate);
    const r = await s.call("lint", { path: ".", linter: "clippy" });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      command: "cargo clippy --locked --message-format=json --quiet --all-targets",
      issue_count: 3,
    });
    expect(r.issues).toEqual([
      "src/lib.rs:2:5: warning: unneeded `return` statement",
      "src/lib.rs:5:24: warning: writing `&Vec` instead of `&[_]` involves a new object where a slice will do",
      "src/lib.rs:6:5: warning: length comparison to zero: help: using `is_empty` is clearer and more explicit: `v.is_empty()`",
    ]);
    const findings = r.findings as Record<string, unknown>[];
    expect(findings[0]).toMatchObject({
      tool: "clippy",
      file: path.join(lintCrate, "src", "lib.rs"),
      rule_id: "clippy::needless_return",
      severity: "warning",
      line: 2,
      column: 5,
      end_line: 2,
      end_column: 17,
      correctable: true,
      correction: {
        safe: true,
        edits: [
          { line: 2, column: 5, end_line: 2, end_column: 17, text: "x * 2" },
          { line: 2, column: 17, end_line: 2, end_column: 18, text: "" },
        ],
      },
      docs_url: "https://rust-lang.github.io/rust-clippy/master/index.html#needless_return",
    });
    expect(findings[1]).toMatchObject({
      rule_id: "clippy::ptr_arg",
      correctable: false,
      correction: { safe: false },
    });
    expect(snapshot(lintCrate)).toEqual(before);
  });

  it("clippy on a crate without Cargo.lock leaves none behind; on a folder without Cargo.toml it is invalid_input", async () => {
    expect(fs.existsSync(path.join(testsCrate, "Cargo.lock"))).toBe(false);
    const r = await s.call("lint", { path: testsCrate, linter: "clippy" });
    expect(r).toMatchObject({
      success: true,
      passed: true,
      command: "cargo clippy --message-format=json --quiet --all-targets",
    });
    expect(r.notes).toContain(
      "the crate has no Cargo.lock: cargo resolved one for the run, and it was removed afterwards",
    );
    expect(fs.existsSync(path.join(testsCrate, "Cargo.lock"))).toBe(false);
    const bad = await s.call("lint", { path: path.join(testsCrate, "src"), linter: "clippy" });
    expect(bad).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(bad.error).toBe(
      `clippy runs on a crate: ${path.join(testsCrate, "src")} is not a directory with a Cargo.toml`,
    );
  });

  it("clippy on a crate that does not compile is a tool_error with the compiler's message", async () => {
    const r = await s.call("lint", { path: compileError, linter: "clippy" });
    expect(r).toMatchObject({ success: false, error_type: "tool_error" });
    expect(r.error).toMatch(
      /^the crate does not compile, so clippy could not lint it: .*src\/lib\.rs:2:5: error\[E0308\]: mismatched types: expected `i32`, found `&str`$/,
    );
  });

  it("type_check with cargo check reports the type error as a finding", async () => {
    const r = await s.call("type_check", { path: compileError });
    expect(r).toMatchObject({ success: true, passed: false, checker: "cargo", issue_count: 1 });
    expect((r.findings as unknown[])[0]).toMatchObject({
      tool: "rustc",
      file: path.join(compileError, "src", "lib.rs"),
      line: 2,
      column: 5,
      rule_id: "E0308",
      severity: "error",
      message: "mismatched types",
      docs_url: "https://doc.rust-lang.org/error_codes/E0308.html",
    });
    expect(fs.readdirSync(compileError).sort()).toEqual(["Cargo.toml", "src"]);
  });

  it("run_tests runs cargo test: counts, the failure at its panic line, filters", async () => {
    const r = await s.call("run_tests", { path: testsCrate });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "cargo test",
      command: "cargo test --no-fail-fast",
      summary: { passed: 1, failed: 1, ignored: 1, measured: 0, filtered_out: 0 },
      failure_count: 1,
    });
    expect(r.failures).toEqual([
      {
        node_id: "tests::fails",
        kind: "failed",
        file: "src/lib.rs",
        line: 18,
        message: "assertion `left == right` failed: two plus two\n  left: 4\n right: 5",
      },
    ]);
    // cargo's "Running …" lines name the server's own target dir: nothing the sandbox hid from the tool.
    expect(JSON.stringify(r.notes ?? [])).not.toContain("could not see");
    const only = await s.call("run_tests", { path: testsCrate, pattern: "adds" });
    expect(only).toMatchObject({ passed: true, command: "cargo test --no-fail-fast adds" });
    expect((only.summary as Record<string, number>).passed).toBe(1);
    expect(fs.existsSync(path.join(testsCrate, "Cargo.lock"))).toBe(false);
    expect(fs.existsSync(path.join(testsCrate, "target"))).toBe(false);
  });

  it("run_tests on a crate that builds no test (cargo-fuzz's `test = false` targets): no tests ran, no tool_error", async () => {
    const fuzz = tempDir("mcq-no-test-crate-");
    fs.mkdirSync(path.join(fuzz, "src"));
    fs.writeFileSync(
      path.join(fuzz, "Cargo.toml"),
      '[package]\nname = "no-tests"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\ntest = false\ndoctest = false\n\n[dependencies]\n',
    );
    fs.writeFileSync(path.join(fuzz, "src", "lib.rs"), "pub fn one() -> i32 {\n    1\n}\n");
    const own = spawnSync("cargo", ["test"], {
      cwd: fuzz,
      encoding: "utf8",
      env: { ...process.env, CARGO_TARGET_DIR: tempDir("mcq-no-test-target-") },
    });
    expect(own.status).toBe(0);
    expect(own.stdout).not.toMatch(/test result:/);
    const t = await connectStdio({ args: ["--allowed-paths", fuzz], cwd: fuzz });
    try {
      const r = await t.call("run_tests", { path: fuzz });
      expect(r).toMatchObject({ success: true, passed: false, runner: "cargo test", returncode: 0 });
      expect(r.summary).toMatchObject({ passed: 0, failed: 0 });
      expect(r.notes).toContain("no tests ran");
    } finally {
      await t.close();
      fs.rmSync(fuzz, { recursive: true, force: true });
    }
  }, 300_000);
});
