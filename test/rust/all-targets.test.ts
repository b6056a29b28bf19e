/**
 * cargo check and clippy build every target, as `cargo clippy --all-targets` does by hand: without it a type
 * error in `tests/` or a lint in a `#[cfg(test)]` module passed (dtolnay/anyhow: `check` said "no findings"
 * where `cargo check --tests` reports E0308). A bench that needs nightly is left out, and said. The real cargo.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cargoMessagePlaces } from "../helpers/cargo.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { nightlyOnlyBenches } from "../../src/adapters/rust/cargo-targets.js";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

describe.skipIf(missing("cargo"))("cargo check and clippy on every target", () => {
  const root = tempDir("mcq-rust-targets-");
  const targetDir = tempDir("mcq-rust-targets-target-");
  write(path.join(root, "Cargo.toml"), '[package]\nname = "t"\nversion = "0.1.0"\nedition = "2021"\n');
  write(
    path.join(root, "src", "lib.rs"),
    "pub fn one() -> u32 {\n    1\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn empty() {\n        let v: Vec<u32> = Vec::new();\n        assert!(v.len() == 0);\n    }\n}\n",
  );
  write(
    path.join(root, "tests", "it.rs"),
    '#[test]\nfn typed() {\n    let n: u32 = "not a number";\n    assert_eq!(n, t::one());\n}\n',
  );
  const cargo = (...args: string[]) =>
    spawnSync("cargo", args, {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, CARGO_TARGET_DIR: targetDir },
    });
  const byHand = (...args: string[]) =>
    cargoMessagePlaces(cargo(...args, "--message-format=json", "--quiet").stdout)
      .map((m) => `${m.code}@${m.file}:${m.line}`)
      .sort();
  const ours = (r: Record<string, unknown>) =>
    ((r.findings ?? r.issues) as { rule_id?: string; rule?: string; file: string; line: number }[])
      .map((f) => `${f.rule_id ?? f.rule}@${path.relative(root, path.resolve(root, f.file))}:${f.line}`)
      .sort();
  let s: Connected;
  beforeAll(async () => {
    expect(cargo("generate-lockfile", "--offline").status).toBe(0);
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root });
  }, 120_000);
  afterAll(() => s?.close());

  it("type_check reports the integration test's type error, as cargo check --all-targets", async () => {
    const hand = byHand("check", "--all-targets");
    expect(hand).toContain("E0308@tests/it.rs:3");
    // The default targets (library and binaries) alone pass: the error was never seen.
    expect(byHand("check")).toEqual([]);
    const r = await s.call("type_check", { path: root, checker: "cargo" });
    expect(r).toMatchObject({ success: true, passed: false });
    expect(ours(r)).toEqual(hand);
  }, 180_000);

  it("lint runs clippy over the test module, as cargo clippy --all-targets", async () => {
    // The integration test does not compile: lint the library's test module alone.
    fs.rmSync(path.join(root, "tests"), { recursive: true });
    const hand = byHand("clippy", "--all-targets");
    expect(hand).toContain("clippy::len_zero@src/lib.rs:10");
    expect(byHand("clippy")).toEqual([]);
    const r = await s.call("lint", { path: root, linter: "clippy" });
    expect(r.command).toBe("cargo clippy --locked --message-format=json --quiet --all-targets");
    expect(ours(r)).toEqual(hand);
  }, 180_000);

  it("lint_fix fixes the test module too, as cargo clippy --fix --tests by hand", async () => {
    const lib = path.join(root, "src", "lib.rs");
    const before = fs.readFileSync(lib, "utf8");
    const hand = tempDir("mcq-rust-targets-hand-");
    fs.cpSync(root, hand, { recursive: true });
    const fixedByHand = spawnSync(
      "cargo",
      [
        "clippy",
        "--fix",
        "--allow-dirty",
        "--allow-no-vcs",
        "--quiet",
        "--lib",
        "--bins",
        "--tests",
        "--examples",
      ],
      {
        cwd: hand,
        encoding: "utf8",
        env: { ...process.env, CARGO_TARGET_DIR: tempDir("mcq-rust-hand-target-") },
      },
    );
    expect(fixedByHand.status, fixedByHand.stderr).toBe(0);
    const expected = fs.readFileSync(path.join(hand, "src", "lib.rs"), "utf8");
    expect(expected).not.toBe(before);
    const r = await s.call("lint_fix", { path: root, linter: "clippy" });
    expect(r).toMatchObject({ success: true, changed_files: [lib] });
    expect(fs.readFileSync(lib, "utf8")).toBe(expected);
    await s.call("rollback", { path: root });
    expect(fs.readFileSync(lib, "utf8")).toBe(before);
  }, 180_000);

  it("a bench that needs nightly is left out, the other targets checked, and a note says so", async () => {
    write(path.join(root, "benches", "speed.rs"), "#![feature(test)]\nextern crate test;\n");
    const hand = cargo("check", "--all-targets", "--message-format=json", "--quiet");
    expect(hand.status).not.toBe(0);
    expect(nightlyOnlyBenches(hand.stdout.split("\n"))).toEqual(["speed"]);
    const r = await s.call("type_check", { path: root, checker: "cargo" });
    expect(r.command).toBe(
      "cargo check --locked --message-format=json --quiet --lib --bins --tests --examples",
    );
    expect(r.notes).toContain(
      "bench speed needs nightly (`#![feature]` on a stable toolchain): every other target was built (--lib --bins --tests --examples)",
    );
    expect(ours(r)).toEqual(byHand("check", "--lib", "--bins", "--tests", "--examples"));
  }, 180_000);
});
