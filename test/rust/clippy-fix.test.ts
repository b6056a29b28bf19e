/** lint_fix and fix_all with clippy --fix, through the real server, on a copy of the lint crate. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { applyPatch } from "diff";
import { splitDiff } from "../../src/findings/diff-budget.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

const FIXED_LIB = `pub fn double(x: i32) -> i32 {
    x * 2
}

pub fn is_empty_len(v: &Vec<i32>) -> bool {
    v.is_empty()
}

pub fn messy( a:i32 )->i32{ a+1 }
`;

describe.skipIf(missing("cargo"))("lint_fix with clippy", () => {
  let crate: string;
  let s: Connected;
  beforeAll(async () => {
    crate = copyFixture(path.join(FIXTURES, "rust", "lint-crate"));
    s = await connectStdio({ args: ["--allowed-paths", crate], cwd: crate });
  });
  afterAll(async () => s?.close());

  it("a dry run writes nothing and its diff, applied, gives what clippy --fix writes", async () => {
    const lib = path.join(crate, "src", "lib.rs");
    const before = fs.readFileSync(lib, "utf8");
    const dry = await s.call("lint_fix", { path: ".", linter: "clippy", dry_run: true });
    expect(dry).toMatchObject({ success: true, dry_run: true, changed_files: [lib] });
    expect(fs.readFileSync(lib, "utf8")).toBe(before);
    expect((dry.files as Record<string, unknown>[])[0]).toMatchObject({
      file: "src/lib.rs",
      status: "would-fix",
    });
    expect(applyPatch(before, dry.diff as string)).toBe(FIXED_LIB);

    const r = await s.call("lint_fix", { path: ".", linter: "clippy" });
    expect(r).toMatchObject({
      success: true,
      changed_files: [lib],
      command:
        "cargo clippy --locked --fix --allow-dirty --allow-staged --allow-no-vcs --message-format=json --quiet --lib --bins --tests --examples",
    });
    expect(r.transaction).toMatchObject({ result: "commit", files_written: ["src/lib.rs"] });
    expect(fs.readFileSync(lib, "utf8")).toBe(FIXED_LIB);
    // What clippy could not fix by itself is left, with its unsafe correction.
    expect((r.files as Record<string, unknown>[])[0]).toMatchObject({
      status: "fixable",
      warningCount: 1,
      messages: [{ line: 5, column: 24, rule_id: "clippy::ptr_arg", severity: "warning", fixable: false }],
    });
    const undo = await s.call("rollback", { path: crate });
    expect(undo).toMatchObject({ success: true });
    expect(fs.readFileSync(lib, "utf8")).toBe(before);
  });

  it("only/except narrow the fix to those lints; the per-file dry-run diff applies to what is written", async () => {
    const lib = path.join(crate, "src", "lib.rs");
    const before = fs.readFileSync(lib, "utf8");
    const only = { path: ".", linter: "clippy", only: ["clippy::len_zero"] };
    const dry = await s.call("lint_fix", { ...only, dry_run: true });
    expect(dry).toMatchObject({ success: true, changed_files: [lib] });
    // Diffs are listed once, in `diff`, by file.
    const entry = splitDiff(dry.diff as string).parts.find((d) => d.name === "src/lib.rs")!;
    expect(entry.text).toContain("+    v.is_empty()");
    expect(entry.text).not.toContain("-    return x * 2;");
    expect(fs.readFileSync(lib, "utf8")).toBe(before);
    const r = await s.call("lint_fix", only);
    expect(r).toMatchObject({ success: true, changed_files: [lib] });
    expect(r.transaction).toMatchObject({ result: "commit", files_written: ["src/lib.rs"] });
    const after = fs.readFileSync(lib, "utf8");
    expect(applyPatch(before, entry.text)).toBe(after);
    expect(after).toContain("v.is_empty()");
    expect(after).toContain("return x * 2;");
    // The other lints' problems are left, outside the scope.
    const except = await s.call("lint_fix", {
      path: ".",
      linter: "clippy",
      except: ["clippy::len_zero"],
      dry_run: true,
    });
    expect((except.diff as string) ?? "").toContain("-    return x * 2;");
    expect(await s.call("rollback", { path: crate })).toMatchObject({ success: true });
    expect(fs.readFileSync(lib, "utf8")).toBe(before);
  });

  it("fix_all: clippy --fix, cargo fmt, then cargo check verifies, in one transaction", async () => {
    const lib = path.join(crate, "src", "lib.rs");
    const r = await s.call("fix_all", { path: ".", linter: "clippy" });
    expect(r).toMatchObject({ success: true });
    expect(r.transaction).toMatchObject({ result: "commit" });
    expect(fs.readFileSync(lib, "utf8")).toContain("pub fn messy(a: i32) -> i32 {\n    a + 1\n}\n");
    expect(fs.readFileSync(lib, "utf8")).toContain("    v.is_empty()\n");
  });
});

describe.skipIf(missing("cargo") || missing("git"))("lint_fix with clippy and changed", () => {
  let crate: string;
  let s: Connected;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: crate });
  beforeAll(async () => {
    crate = copyFixture(path.join(FIXTURES, "rust", "lint-crate"));
    fs.appendFileSync(path.join(crate, "src", "lib.rs"), "\npub mod other;\n");
    fs.writeFileSync(
      path.join(crate, "src", "other.rs"),
      "pub fn none(v: &[i32]) -> bool {\n    v.len() == 0\n}\n",
    );
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "init");
    s = await connectStdio({ args: ["--allowed-paths", crate], cwd: crate });
  });
  afterAll(async () => s?.close());

  it("fixes only the files git says changed; nothing changed is nothing checked", async () => {
    const lib = path.join(crate, "src", "lib.rs");
    const other = path.join(crate, "src", "other.rs");
    const libBefore = fs.readFileSync(lib, "utf8");
    const nothing = await s.call("lint_fix", { path: ".", linter: "clippy", changed: true });
    expect(nothing).toMatchObject({ success: true, nothing_checked: true });
    fs.appendFileSync(other, "\npub fn one(v: &[i32]) -> bool {\n    v.len() == 1\n}\n");
    const r = await s.call("lint_fix", { path: ".", linter: "clippy", changed: true });
    expect(r).toMatchObject({ success: true, changed_files: [other] });
    expect(fs.readFileSync(other, "utf8")).toContain("    v.is_empty()\n");
    // lib.rs has fixable lints too, but it did not change.
    expect(fs.readFileSync(lib, "utf8")).toBe(libBefore);
    expect((r.files as { file: string }[]).map((f) => f.file)).toEqual(["src/other.rs"]);
  });
});
