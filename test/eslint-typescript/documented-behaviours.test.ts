/**
 * Seed 001's documented behaviours, one row each, on a fresh copy of a fixture project through the SDK
 * client: the result (validated against the original's output schema by `dropIn`), the statuses, whether
 * the tree changed, and the audit entry written in the original's format.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";
import { auditLines, dropIn, readTree, rel, type Json } from "./drop-in.js";

const JS = path.join(FIXTURES, "js");

interface Row {
  behaviour: string;
  fixture: string;
  tool: string;
  /** `cwd` may name a path relative to the copy ("<dir>/..." is replaced). */
  args: Json;
  success: boolean;
  statuses?: [string, string, number][];
  tree: "unchanged" | "changed";
  /** The last audit line, in the original's fields; null: no .mcp-cache at all. */
  audit?: Json | null;
  error?: RegExp;
  note?: RegExp;
}

const ROWS: Row[] = [
  {
    behaviour: "lint_fix dryRun: would-fix, nothing written, no lock or snapshot",
    fixture: "fix-breaks-types",
    tool: "lint_fix",
    args: { dryRun: true },
    success: true,
    statuses: [
      ["src/count.ts", "would-fix", 0],
      ["src/direction.ts", "would-fix", 1],
    ],
    tree: "unchanged",
    audit: null,
  },
  {
    behaviour:
      "lint_fix: fixed and unfixable (a problem left with no fix), committed (verify is off by default)",
    fixture: "fix-breaks-types",
    tool: "lint_fix",
    args: {},
    success: true,
    statuses: [
      ["src/count.ts", "fixed", 0],
      ["src/direction.ts", "unfixable", 1],
    ],
    tree: "changed",
    audit: { tool: "lint_fix", operation: "fix", result: "commit" },
  },
  {
    behaviour: "lint_fix verify: tsc fails after the fix, autoRollback restores it",
    fixture: "fix-breaks-types",
    tool: "lint_fix",
    args: { verify: true },
    success: false,
    tree: "unchanged",
    audit: { tool: "lint_fix", result: "rollback", rollbackReason: "tsc-verify-failed" },
    error: /^Transaction rolled back: type check \(tsc\) failed: 1 error/,
  },
  {
    behaviour: "lint_fix verify with autoRollback false: the failing fix is kept",
    fixture: "fix-breaks-types",
    tool: "lint_fix",
    args: { verify: true, autoRollback: false },
    success: false,
    tree: "changed",
    audit: { tool: "lint_fix", result: "commit" },
    note: /autoRollback is off/,
  },
  {
    behaviour: "fix_all: a type-breaking fix is rolled back byte for byte",
    fixture: "fix-breaks-types",
    tool: "fix_all",
    args: {},
    success: false,
    statuses: [
      ["src/count.ts", "fixed", 0],
      ["src/direction.ts", "unfixable", 2],
    ],
    tree: "unchanged",
    audit: { tool: "fix_all", result: "rollback", rollbackReason: "tsc-verify-failed", filesWritten: [] },
  },
  {
    behaviour: "fix_all skipTypecheck: no verification, the fix stands",
    fixture: "fix-breaks-types",
    tool: "fix_all",
    args: { skipTypecheck: true },
    success: true,
    tree: "changed",
    audit: { tool: "fix_all", result: "commit" },
    note: /Type check skipped \(skipTypecheck\)/,
  },
  {
    behaviour: "typecheck: success false when type errors are in view",
    fixture: "type-errors",
    tool: "typecheck",
    args: {},
    success: false,
    statuses: [
      ["src/a.ts", "unfixable", 1],
      ["src/b.ts", "unfixable", 1],
      ["src/c.ts", "unfixable", 1],
    ],
    tree: "unchanged",
    audit: null,
  },
  {
    behaviour: "a broken ESLint config: an error result with ESLint's message",
    fixture: "broken-config",
    tool: "lint",
    args: {},
    success: false,
    tree: "unchanged",
    audit: null,
    error: /ESLint failed .*eslint\.config\.js/s,
    note: /Error type: tool_error\./,
  },
  {
    behaviour: "a missing cwd: an error result naming it",
    fixture: "no-toolchain",
    tool: "lint",
    args: { cwd: "<dir>/no-such-dir" },
    success: false,
    tree: "unchanged",
    audit: null,
    error: /no-such-dir/,
    note: /Error type: path_validation\./,
  },
  {
    behaviour: "a cwd outside the allowed roots: refused before anything runs",
    fixture: "no-toolchain",
    tool: "fix_all",
    args: { cwd: "/" },
    success: false,
    tree: "unchanged",
    audit: null,
    error: /outside/,
    note: /Error type: path_validation\. Allowed paths: /,
  },
];

describe("seed 001's documented behaviours", () => {
  it.each(ROWS)("$behaviour", async (row) => {
    const dir = copyFixture(path.join(JS, row.fixture));
    const before = readTree(dir);
    const s = await dropIn(dir);
    try {
      const args = Object.fromEntries(
        Object.entries(row.args).map(([k, v]) => [k, typeof v === "string" ? v.replace("<dir>", dir) : v]),
      );
      const r = await s.call(row.tool, args);
      expect(r.tool).toBe(row.tool);
      expect(r.success).toBe(row.success);
      if (row.statuses) expect(rel(dir, r)).toEqual(row.statuses);
      if (row.error) expect(r.error).toMatch(row.error);
      else if (row.success) expect(r.error).toBeUndefined();
      if (row.note) expect(r.note).toMatch(row.note);
      if (row.tree === "unchanged") expect(readTree(dir)).toEqual(before);
      else expect(readTree(dir)).not.toEqual(before);
      if (row.audit === null) expect(fs.existsSync(path.join(dir, ".mcp-cache"))).toBe(false);
      else if (row.audit) expect(auditLines(dir).at(-1)).toMatchObject({ cwd: dir, ...row.audit });
    } finally {
      await s.close();
    }
  });
});

describe("rollback by count and since; audit_log filters", () => {
  it("undoes the newest transactions by count, then by since; filters by tool, result, since and limit", async () => {
    const dir = copyFixture(path.join(JS, "no-toolchain"));
    const original = readTree(dir);
    const s = await dropIn(dir);
    try {
      await s.call("lint_fix", { files: ["src/util.ts"] });
      const afterFirst = readTree(dir);
      await new Promise((r) => setTimeout(r, 20));
      const t1 = new Date().toISOString();
      fs.writeFileSync(
        path.join(dir, "src", "more.ts"),
        "export function g(): number {\n  let y = 2;\n  return y;\n}\n",
      );
      const withMore = readTree(dir);
      await s.call("fix_all", { files: ["src/more.ts"], skipTypecheck: true });

      const byCount = await s.call("rollback", { count: 1 });
      expect(rel(dir, byCount)).toEqual([["src/more.ts", "fixed", 0]]);
      expect(readTree(dir)).toEqual(withMore);

      // since: everything committed at or after t0 that is not rolled back yet (the lint_fix).
      const bySince = await s.call("rollback", { since: new Date(0).toISOString() });
      expect(rel(dir, bySince)).toEqual([["src/util.ts", "fixed", 0]]);
      fs.rmSync(path.join(dir, "src", "more.ts"));
      expect(readTree(dir)).toEqual(original);
      expect(afterFirst).not.toEqual(original);

      const nothing = await s.call("rollback", {});
      expect(nothing).toMatchObject({ success: true, files: [] });
      expect(nothing.note).toMatch(/No committed transaction to roll back matched\./);

      const ruleIds = (r: Json) => (r.files as Json[]).map((f) => (f.messages as Json[])[0]?.ruleId);
      const tools = (r: Json) =>
        (r.files as Json[]).map((f) => String((f.messages as Json[])[0]?.message).split(" ")[0]);
      // Every rollback call is audited, the one that matched nothing too (the original writes none for it).
      const all = await s.call("audit_log", {});
      expect(tools(all)).toEqual(["lint_fix", "fix_all", "rollback", "rollback", "rollback"]);
      expect(tools(await s.call("audit_log", { tool: "rollback" }))).toEqual([
        "rollback",
        "rollback",
        "rollback",
      ]);
      expect(tools(await s.call("audit_log", { result: "commit" }))).toEqual(["lint_fix", "fix_all"]);
      // Manual rollbacks are audited as the original does: result rollback, reason manual.
      const manual = await s.call("audit_log", { result: "rollback" });
      expect(ruleIds(manual)).toEqual(["rollback", "rollback", "rollback"]);
      expect((manual.files as Json[]).map((f) => f.status)).toEqual(["clean", "clean", "clean"]);
      expect(tools(await s.call("audit_log", { since: t1 }))).toEqual([
        "fix_all",
        "rollback",
        "rollback",
        "rollback",
      ]);
      expect(tools(await s.call("audit_log", { limit: 1 }))).toEqual(["rollback"]);
      expect((await s.call("audit_log", { result: "locked-out" })).files).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
