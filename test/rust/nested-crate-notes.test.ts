/**
 * A lint over several projects names the project of each per-project note: dtolnay/anyhow's nested crate
 * `tests/crate` (outside the workspace, no Cargo.lock) gave the call "the crate has no Cargo.lock: ..." as if
 * it were the root's, which has one. check --json's per-check notes stay their unit's. Real cargo clippy.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectNotes } from "../../src/mcp/tools/project-failures.js";
import { parseJson, runCheck } from "../helpers/check.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const NO_LOCK = "the crate has no Cargo.lock: cargo resolved one for the run, and it was removed afterwards";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

describe("a project's notes in a call over several", () => {
  it("name the project, once", () => {
    expect(projectNotes("tests/crate", [NO_LOCK, "tests/crate: said already"])).toEqual([
      `tests/crate: ${NO_LOCK}`,
      "tests/crate: said already",
    ]);
  });
});

describe.skipIf(missing("cargo"))("a crate with a nested crate of its own (anyhow's tests/crate)", () => {
  const root = tempDir("mcq-rust-nested-notes-");
  write(
    path.join(root, "Cargo.toml"),
    '[package]\nname = "top"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n',
  );
  write(path.join(root, "src", "lib.rs"), "pub fn one() -> u32 {\n    1\n}\n");
  write(
    path.join(root, "tests", "crate", "Cargo.toml"),
    '[package]\nname = "inner"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[lib]\npath = "test.rs"\n\n[workspace]\n',
  );
  write(path.join(root, "tests", "crate", "test.rs"), "pub fn two() -> u32 {\n    2\n}\n");
  let s: Connected;
  beforeAll(async () => {
    const lock = spawnSync("cargo", ["generate-lockfile", "--offline"], { cwd: root, encoding: "utf8" });
    expect(lock.status, lock.stderr).toBe(0);
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root });
  }, 120_000);
  afterAll(() => s?.close());

  it("lint's notes say the nested crate has no Cargo.lock, not the root", async () => {
    const r = await s.call("lint", { path: root });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(r.linters).toEqual([
      expect.objectContaining({ linter: "clippy", command: expect.stringContaining("--locked") }),
      expect.objectContaining({ linter: "clippy", path: "tests/crate" }),
    ]);
    const notes = r.notes as string[];
    expect(notes).toContain(`tests/crate: ${NO_LOCK}`);
    expect(notes).not.toContain(NO_LOCK);
    expect(fs.existsSync(path.join(root, "tests", "crate", "Cargo.lock"))).toBe(false);
  }, 300_000);

  it("check --json: the note stays with its own check, as it was", async () => {
    const json = parseJson(await runCheck([".", "--only", "clippy", "--json"], { cwd: root }));
    const inner = json.checks.find((c) => c.target === path.join(fs.realpathSync(root), "tests", "crate"));
    expect(inner?.notes).toContain(NO_LOCK);
  }, 300_000);
});
