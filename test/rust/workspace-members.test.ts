/**
 * A workspace whose root is also a package (BurntSushi/ripgrep: the `rg` package, and crates/* as members):
 * cargo run there builds the root package only, and lint, type_check and run_tests ran it so: ripgrep's
 * members were never linted, checked or tested (450 tests of the 1,229 `cargo test --workspace` runs). They
 * now run with `--workspace` at a workspace's root, and give what cargo gives with it by hand. The real cargo.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cargoMessagePlaces } from "../helpers/cargo.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

describe.skipIf(missing("cargo"))("a workspace whose root is a package", () => {
  const root = tempDir("mcq-rust-members-");
  const targetDir = tempDir("mcq-rust-members-target-");
  write(
    path.join(root, "Cargo.toml"),
    '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\nmembers = ["crates/util"]\n',
  );
  write(
    path.join(root, "src", "lib.rs"),
    "pub fn app() -> u32 {\n    1\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn app_is_one() {\n        assert_eq!(super::app(), 1);\n    }\n}\n",
  );
  write(
    path.join(root, "crates", "util", "Cargo.toml"),
    '[package]\nname = "util"\nversion = "0.1.0"\nedition = "2021"\n',
  );
  write(
    path.join(root, "crates", "util", "src", "lib.rs"),
    "pub fn empty(v: &[u32]) -> bool {\n    let unused = 1;\n    v.len() == 0\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn empty_is_empty() {\n        assert!(super::empty(&[]));\n    }\n\n    #[test]\n    fn one_is_not() {\n        assert!(!super::empty(&[1]));\n    }\n}\n",
  );
  const cargo = (...args: string[]) =>
    spawnSync("cargo", args, {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, CARGO_TARGET_DIR: targetDir },
    });
  /** rule@file:line of cargo's JSON messages, as by hand. */
  const byHand = (...args: string[]) =>
    cargoMessagePlaces(cargo(...args, "--message-format=json", "--quiet").stdout)
      .map((m) => `${m.code}@${m.file}:${m.line}`)
      .sort();
  let s: Connected;
  beforeAll(async () => {
    expect(cargo("generate-lockfile", "--offline").status).toBe(0);
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root });
  }, 120_000);
  afterAll(() => s?.close());

  const ours = (r: Record<string, unknown>) =>
    ((r.findings ?? r.issues) as { rule_id?: string; rule?: string; file: string; line: number }[])
      .map((f) => `${f.rule_id ?? f.rule}@${path.relative(root, path.resolve(root, f.file))}:${f.line}`)
      .sort();

  it("lint runs clippy on every member, as cargo clippy --workspace", async () => {
    const workspace = byHand("clippy", "--workspace", "--all-targets");
    expect(workspace).toContain("clippy::len_zero@crates/util/src/lib.rs:3");
    // Without --workspace cargo lints the root package only: the member's findings are not there.
    expect(byHand("clippy")).not.toContain("clippy::len_zero@crates/util/src/lib.rs:3");
    const r = await s.call("lint", { path: root, linter: "clippy" });
    expect(r.command).toBe("cargo clippy --locked --workspace --message-format=json --quiet --all-targets");
    expect(ours(r)).toEqual(workspace);
  }, 180_000);

  it("type_check runs cargo check on every member", async () => {
    const workspace = byHand("check", "--workspace", "--all-targets");
    expect(workspace).toContain("unused_variables@crates/util/src/lib.rs:2");
    const r = await s.call("type_check", { path: root, checker: "cargo" });
    expect(r.command).toBe("cargo check --locked --workspace --message-format=json --quiet --all-targets");
    expect(ours(r)).toEqual(workspace);
  }, 180_000);

  it("run_tests runs every member's tests, as cargo test --workspace", async () => {
    const r = await s.call("run_tests", { path: root });
    expect(r).toMatchObject({
      success: true,
      passed: true,
      command: "cargo test --locked --workspace --no-fail-fast",
    });
    // app's one test and util's two (and the doc tests' empty runs).
    expect((r.summary as { passed: number }).passed).toBe(3);
    const hand = cargo("test", "--workspace", "--no-fail-fast");
    const passed = [...hand.stdout.matchAll(/test result: ok\. (\d+) passed/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(passed).toBe(3);
  }, 180_000);
});
