/**
 * clippy through lint / lint_fix as `cargo clippy` and `cargo clippy --fix` print and write on the same crate
 * (issue 27): a deny-level lint is a finding, a dry run's diff is what the real fix writes (several passes),
 * `safety: "unsafe"` applies what `__CARGO_FIX_YOLO=1 cargo clippy --fix` applies, groups in `only`, unknown
 * lint names refused with a did-you-mean.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { applyPatch } from "diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

const FIX_CRATE = path.join(FIXTURES, "rust", "fix-crate");

/** `cargo` run directly in a fresh copy of the fixture: its stderr, and the files it left. */
function cargoDirect(args: string[], env: Record<string, string> = {}) {
  const dir = copyFixture(FIX_CRATE);
  const r = spawnSync("cargo", args, { cwd: dir, encoding: "utf8", env: { ...process.env, ...env } });
  return {
    stderr: r.stderr,
    status: r.status,
    lib: fs.readFileSync(path.join(dir, "src", "lib.rs"), "utf8"),
  };
}

describe.skipIf(missing("cargo"))("clippy as its own CLI reports and fixes", () => {
  let crate: string;
  let lib: string;
  let original: string;
  let s: Connected;
  beforeAll(async () => {
    crate = copyFixture(FIX_CRATE);
    lib = path.join(crate, "src", "lib.rs");
    original = fs.readFileSync(lib, "utf8");
    s = await connectStdio({ args: ["--allowed-paths", crate], cwd: crate });
  });
  afterAll(async () => s?.close());

  it("a deny-level lint (clippy::eq_op) is a finding, as cargo clippy prints it", async () => {
    const direct = cargoDirect(["clippy", "--quiet", "--message-format=short"]);
    expect(direct.status).toBe(101);
    const r = await s.call("lint", { path: ".", linter: "clippy" });
    expect(r).toMatchObject({ success: true, passed: false, returncode: 101, issue_count: 6 });
    expect(r.issues).toEqual(direct.stderr.split("\n").filter((l) => l.startsWith("src/")));
    expect(r.issues).toContain("src/lib.rs:2:5: error: equal expressions as operands to `==`");
  });

  it("a dry run's diff is what the real run writes, which is what cargo clippy --fix writes", async () => {
    const direct = cargoDirect(["clippy", "--fix", "--allow-no-vcs", "--quiet"]);
    // Two passes: needless_return first, then len_zero in the code it left; and identity_op.
    expect(direct.lib).toContain("    v.is_empty()\n");
    expect(direct.lib).toContain("    a\n");
    const dry = await s.call("lint_fix", { path: ".", linter: "clippy", dry_run: true });
    expect(dry).toMatchObject({ success: true, dry_run: true, changed_files: [lib] });
    expect(fs.readFileSync(lib, "utf8")).toBe(original);
    expect(applyPatch(original, dry.diff as string)).toBe(direct.lib);
    // What is left is located in the code the diff gives: eq_op at its own level, with the unsafe ones.
    const [file] = dry.files as { file: string; status: string; messages: Record<string, unknown>[] }[];
    expect(file).toMatchObject({ file: "src/lib.rs", status: "would-fix" });
    expect(file!.messages.map((m) => [m.rule_id, m.line, m.column, m.severity])).toEqual([
      ["clippy::inconsistent_digit_grouping", 14, 5, "warning"],
      ["clippy::eq_op", 2, 5, "error"],
      ["clippy::ptr_arg", 5, 16, "warning"],
    ]);
    expect(file!.messages[2]).toMatchObject({
      end_line: 5,
      end_column: 25,
      fixable: false,
      correction: {
        safe: false,
        edits: [{ line: 5, column: 16, end_line: 5, end_column: 25, text: "&[i32]" }],
      },
      docs_url: "https://rust-lang.github.io/rust-clippy/master/index.html#ptr_arg",
    });
    const real = await s.call("lint_fix", { path: ".", linter: "clippy" });
    expect(real).toMatchObject({ success: true, passed: false, changed_files: [lib] });
    expect(fs.readFileSync(lib, "utf8")).toBe(direct.lib);
    expect(real.files).toEqual([{ ...file, status: "fixable", diff: undefined }].map(stripUndefined));
    expect(await s.call("rollback", { path: crate })).toMatchObject({ success: true });
    expect(fs.readFileSync(lib, "utf8")).toBe(original);
  });

  it('safety "unsafe" applies MaybeIncorrect suggestions, as __CARGO_FIX_YOLO=1 cargo clippy --fix does', async () => {
    const direct = cargoDirect(["clippy", "--fix", "--allow-no-vcs", "--quiet"], { __CARGO_FIX_YOLO: "1" });
    expect(direct.lib).toContain("    12_345_678\n");
    expect(direct.lib).toContain("pub fn none(v: &[i32]) -> bool {");
    const dry = await s.call("lint_fix", { path: ".", linter: "clippy", safety: "unsafe", dry_run: true });
    expect(applyPatch(original, dry.diff as string)).toBe(direct.lib);
    const r = await s.call("lint_fix", { path: ".", linter: "clippy", safety: "unsafe" });
    expect(r).toMatchObject({ success: true, passed: false });
    expect(fs.readFileSync(lib, "utf8")).toBe(direct.lib);
    expect((r.files as { messages: { rule_id: string }[] }[])[0]!.messages.map((m) => m.rule_id)).toEqual([
      "clippy::eq_op",
    ]);
    expect(await s.call("rollback", { path: crate })).toMatchObject({ success: true });
    expect(fs.readFileSync(lib, "utf8")).toBe(original);
  });
});

describe.skipIf(missing("cargo") || missing("clippy-driver"))(
  "clippy lint names, groups and explanations",
  () => {
    let crate: string;
    let s: Connected;
    beforeAll(async () => {
      crate = copyFixture(FIX_CRATE);
      s = await connectStdio({ args: ["--allowed-paths", crate], cwd: crate });
    });
    afterAll(async () => s?.close());

    it("only takes a group, as cargo clippy -- -A clippy::all -W clippy::style reports it", async () => {
      const direct = cargoDirect([
        "clippy",
        "--quiet",
        "--message-format=short",
        "--",
        "-A",
        "clippy::all",
        "-W",
        "clippy::style",
      ]);
      const r = await s.call("lint", { path: ".", linter: "clippy", only: ["clippy::style"] });
      expect(r).toMatchObject({ success: true, passed: false, issue_count: 4 });
      expect(r.issues).toEqual(direct.stderr.split("\n").filter((l) => l.startsWith("src/")));
      // And a fix of that group applies its lints' suggestions only (needless_return, then len_zero).
      const dry = await s.call("lint_fix", {
        path: ".",
        linter: "clippy",
        only: ["clippy::style"],
        dry_run: true,
      });
      const fixed = applyPatch(
        fs.readFileSync(path.join(crate, "src", "lib.rs"), "utf8"),
        dry.diff as string,
      );
      expect(fixed).toContain("pub fn none(v: &Vec<i32>) -> bool {\n    v.is_empty()\n}");
      expect(fixed).toContain("    a + 0\n");
    });

    it("an unknown lint name is invalid_input with a did-you-mean, for lint and lint_fix", async () => {
      const r = await s.call("lint", { path: ".", linter: "clippy", only: ["needles_return"] });
      expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
      expect(r.error).toBe(
        'only: clippy has no lint or group "needles_return"; did you mean clippy::needless_return?',
      );
      const bare = await s.call("lint_fix", { path: ".", linter: "clippy", except: ["needless_return"] });
      expect(bare.error).toBe(
        'except: clippy has no lint or group "needless_return"; did you mean clippy::needless_return?',
      );
    });

    it("explain_rules knows rustc's lints that clippy reports", async () => {
      const r = await s.call("explain_rules", {
        path: ".",
        linter: "clippy",
        rules: ["unused_variables", "unused"],
      });
      const [lint, group] = r.rules as Record<string, unknown>[];
      expect(lint).toMatchObject({
        name: "unused_variables",
        kind: "rule",
        summary: "detect variables which are not used in any way (a rustc lint; default level: warn)",
        configuration: { default_level: "warn" },
        docs_url: "https://doc.rust-lang.org/rustc/lints/listing/warn-by-default.html#unused-variables",
      });
      expect(group).toMatchObject({ name: "unused", kind: "category" });
      expect(group!.rules).toContain("unused_variables");
    });
  },
);

function stripUndefined<T extends object>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}
