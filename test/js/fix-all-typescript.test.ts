/**
 * The core fix_all on a TypeScript project (issue 9.9): the format step covers every language in scope
 * (.ts and .js), errors that were there before the fix do not roll it back (only new ones do, compared by
 * file, rule and message), the notes say which errors were there before, and a dry run verifies as the real
 * run does (on a scratch copy with the fixes applied), so it says what the real run will.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

type Json = Record<string, unknown>;
const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), "utf8");

describe("fix_all with eslint on TypeScript", () => {
  it("formats .ts and .js files, keeps a fix that adds no type error, and names the errors already there", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "fix-all-ts"));
    const before = Object.fromEntries(
      ["src/old.ts", "src/fixme.ts", "src/plain.ts", "src/legacy.js"].map((f) => [f, read(dir, f)]),
    );
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const dry = await s.call("fix_all", { path: ".", linter: "eslint", dry_run: true });
      expect((dry.format as Json).changed_files).toEqual(
        ["src/legacy.js", "src/fixme.ts", "src/plain.ts"].map((f) => path.join(dir, f)),
      );
      expect((dry.format as Json).command).toBe(`prettier --check -- ${dir}`);
      expect(dry.notes).toContain(
        "dry run: the type check (tsc) ran on a scratch copy of the project with the fixes and formatting applied, as the real run verifies",
      );
      for (const [f, text] of Object.entries(before)) expect(read(dir, f)).toBe(text);

      const r = await s.call("fix_all", { path: ".", linter: "eslint" });
      expect(r).toMatchObject({ success: true, rolled_back: false, passed: false });
      // The dry run said what the real run says: no pass, the same type check, no rollback.
      expect(dry).toMatchObject({ passed: false, would_roll_back: false });
      expect((dry.type_check as Json).issues).toEqual((r.type_check as Json).issues);
      expect(dry.notes).toContain(
        "1 type error(s) were there before the fix and do not count against it (tsc): " +
          "src/old.ts:2:14: TS2322 Type 'string' is not assignable to type 'number'.",
      );
      expect((r.transaction as Json).result).toBe("commit");
      expect((r.transaction as Json).files_written).toEqual([
        "src/fixme.ts",
        "src/legacy.js",
        "src/plain.ts",
      ]);
      expect((r.format as Json).command).toBe(`prettier --write -- ${dir}`);
      expect(read(dir, "src/fixme.ts")).toBe(
        "export function f(): number {\n  const y = 1;\n  return y;\n}\n",
      );
      expect(read(dir, "src/plain.ts")).toBe("export const z = 3;\n");
      expect(read(dir, "src/legacy.js")).toBe("export const w = 4;\n");
      expect(read(dir, "src/old.ts")).toBe(before["src/old.ts"]);
      expect((r.type_check as Json).issues).toEqual([
        "src/old.ts:2:14: TS2322 Type 'string' is not assignable to type 'number'.",
      ]);
      expect(r.notes).toContain(
        "1 type error(s) were there before the fix and do not count against it (tsc): " +
          "src/old.ts:2:14: TS2322 Type 'string' is not assignable to type 'number'.",
      );
    } finally {
      await s.close();
    }
  });

  it("rolls back a fix that adds a type error, naming the new one (not the one already there)", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "fix-breaks-types"));
    fs.writeFileSync(path.join(dir, "src", "old.ts"), 'export const n: number = "x";\n');
    const before = fs.readFileSync(path.join(dir, "src", "direction.ts"), "utf8");
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const dry = await s.call("fix_all", { path: ".", linter: "eslint", dry_run: true });
      expect(dry).toMatchObject({ success: true, dry_run: true, passed: false, would_roll_back: true });
      expect(dry.notes).toContain(
        "type check (tsc) failed: 1 new error(s), first: src/direction.ts:5:14: TS2322 Type '\"down\"' is not " +
          "assignable to type '\"up\"'.; the real run would roll the fix back",
      );
      expect(fs.readFileSync(path.join(dir, "src", "direction.ts"), "utf8")).toBe(before);

      const r = await s.call("fix_all", { path: ".", linter: "eslint" });
      expect(r).toMatchObject({ success: true, rolled_back: true, passed: false });
      expect(r.rollback_reason).toBe(
        "type check (tsc) failed: 1 new error(s), first: src/direction.ts:5:14: TS2322 Type '\"down\"' is not " +
          "assignable to type '\"up\"'.",
      );
      expect(fs.readFileSync(path.join(dir, "src", "direction.ts"), "utf8")).toBe(before);
    } finally {
      await s.close();
    }
  });
});
