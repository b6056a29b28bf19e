/** ESLint through the MCP client: the bundled ESLint on fixture projects, in its warm worker. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

type Json = Record<string, unknown>;
const JS = path.join(FIXTURES, "js");

function workerPid(result: Json): number {
  const note = (result.notes as string[]).find((n) => /worker pid \d+/.test(n));
  return Number(/worker pid (\d+)/.exec(note ?? "")?.[1]);
}

describe("lint and lint_fix with ESLint (bundled, default config)", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(JS, "no-toolchain"));
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(() => s.close());

  it("reports exact rules, lines and statuses, with seed 000's issues and seed 001's files/summary", async () => {
    const r = await s.call("lint", { path: ".", linter: "eslint" });
    expect(r.success).toBe(true);
    expect(r.passed).toBe(false);
    expect(r.issues).toEqual([
      "src/legacy.js:2:3: no-debugger Unexpected 'debugger' statement.",
      "src/legacy.js:5:7: @typescript-eslint/no-unused-vars 'unusedValue' is assigned a value but never used.",
      "src/util.ts:2:7: prefer-const 'total' is never reassigned. Use 'const' instead.",
      "src/util.ts:6:24: @typescript-eslint/no-explicit-any Unexpected any. Specify a different type.",
    ]);
    expect(r.issue_count).toBe(4);
    const files = r.files as Json[];
    expect(files.map((f) => [f.file as string, f.status, f.errorCount, f.warningCount])).toEqual([
      ["src/legacy.js", "unfixable", 2, 0],
      ["src/util.ts", "fixable", 2, 0],
    ]);
    expect((files[1]?.messages as Json[])[0]).toEqual({
      line: 2,
      column: 7,
      end_line: 2,
      end_column: 12,
      rule_id: "prefer-const",
      severity: "error",
      message: "'total' is never reassigned. Use 'const' instead.",
      fixable: true,
      message_id: "useConst",
    });
    expect(r.summary).toMatchObject({ totalFiles: 4, totalErrors: 4, totalWarnings: 0, scope: "full" });
    expect(JSON.stringify(r)).not.toContain("return total"); // no source echoed
    expect(r.notes).toContain(
      "eslint 10.15.0 bundled with mcp-code-quality (the project has none in node_modules)",
    );
  });

  it("format full lists clean files; files globs filter the scope", async () => {
    const full = await s.call("lint", { path: ".", linter: "eslint", format: "full", files: ["src/*.ts"] });
    expect((full.files as Json[]).map((f) => [path.basename(f.file as string), f.status])).toEqual([
      ["ignored.ts", "clean"],
      ["messy.ts", "clean"],
      ["util.ts", "fixable"],
    ]);
    expect(full.summary).toMatchObject({ totalFiles: 3, totalErrors: 2, scope: "filtered" });
  });

  it("sees an edit made between two calls, in the same warm worker", async () => {
    const file = path.join(dir, "src", "edited.js");
    fs.writeFileSync(file, "export const a = 1;\n");
    const first = await s.call("lint", { path: ".", linter: "eslint", files: ["src/edited.js"] });
    expect(first.issues).toEqual([]);
    expect(first.passed).toBe(true);
    fs.writeFileSync(file, "export const a = 1;\nconst b = 2;\n");
    const second = await s.call("lint", { path: ".", linter: "eslint", files: ["src/edited.js"] });
    expect(second.issues).toEqual([
      "src/edited.js:2:7: @typescript-eslint/no-unused-vars 'b' is assigned a value but never used.",
    ]);
    expect(workerPid(second)).toBe(workerPid(first));
    fs.rmSync(file);
  });

  it("a file ESLint cannot parse has status error in lint and lint_fix", async () => {
    fs.writeFileSync(path.join(dir, "src", "broken.js"), "export const = 1;\n");
    try {
      const issue = "src/broken.js:1:13: Parsing error: Variable declaration expected.";
      const lint = await s.call("lint", { path: ".", linter: "eslint", files: ["src/broken.js"] });
      expect(lint.issues).toEqual([issue]);
      expect((lint.files as Json[])[0]).toMatchObject({ status: "error", errorCount: 1 });
      const fix = await s.call("lint_fix", { path: ".", linter: "eslint", files: ["src/broken.js"] });
      expect(fix.issues).toEqual([issue]);
      expect((fix.files as Json[])[0]).toMatchObject({ status: "error", errorCount: 1 });
      expect(fix.changed_files).toEqual([]);
    } finally {
      fs.rmSync(path.join(dir, "src", "broken.js"));
    }
  });

  it("rejects globs and files that leave the project", async () => {
    const r = await s.call("lint", { path: ".", linter: "eslint", files: ["../**/*.js"] });
    expect(r).toMatchObject({ success: false, error_type: "path_validation" });
    const missing = await s.call("lint", { path: ".", linter: "eslint", files: ["src/nope/*.js"] });
    expect(missing).toMatchObject({ success: false, error_type: "invalid_input" });
  });

  it("lint_fix dry_run reports would-fix and the diff, and writes nothing", async () => {
    const before = fs.readFileSync(path.join(dir, "src", "util.ts"), "utf8");
    const r = await s.call("lint_fix", { path: ".", linter: "eslint", dry_run: true });
    expect(r.success).toBe(true);
    expect((r.files as Json[]).map((f) => [path.basename(f.file as string), f.status])).toEqual([
      ["legacy.js", "unfixable"],
      ["util.ts", "would-fix"],
    ]);
    expect(r.diff).toContain("-  let total = a + b;\n+  const total = a + b;");
    // compact lists only files with something to report, but the summary counts every file in scope.
    expect(r.summary).toMatchObject({ totalFiles: 4, fixedFiles: 1, dryRun: true, scope: "full" });
    expect(r.changed_files).toEqual([path.join(dir, "src", "util.ts")]);
    expect(fs.readFileSync(path.join(dir, "src", "util.ts"), "utf8")).toBe(before);
  });

  it("lint_fix safe applies fixes only; leftovers are reported; unsafe applies suggestions", async () => {
    const safe = await s.call("lint_fix", { path: ".", linter: "eslint", files: ["src/util.ts"] });
    expect((safe.files as Json[]).map((f) => f.status)).toEqual(["fixable"]);
    expect(safe.issues).toEqual([
      "src/util.ts:6:24: @typescript-eslint/no-explicit-any Unexpected any. Specify a different type.",
    ]);
    const text = fs.readFileSync(path.join(dir, "src", "util.ts"), "utf8");
    expect(text).toContain("const total = a + b;");
    expect(text).toContain("anyValue: any");

    const unsafe = await s.call("lint_fix", {
      path: ".",
      linter: "eslint",
      files: ["src/util.ts"],
      safety: "unsafe",
    });
    expect((unsafe.files as Json[]).map((f) => f.status)).toEqual(["fixed"]);
    expect(unsafe.issue_count).toBe(0);
    expect(fs.readFileSync(path.join(dir, "src", "util.ts"), "utf8")).toContain("anyValue: unknown");
  });
});

describe("fatal ESLint errors", () => {
  it("a broken config is a tool_error; the worker survives; a repaired config is picked up", async () => {
    const dir = copyFixture(path.join(JS, "broken-config"));
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const r1 = await s.call("lint", { path: ".", linter: "eslint" });
      expect(r1).toMatchObject({ success: false, error_type: "tool_error" });
      expect(r1.error).toMatch(/^ESLint failed \(config: .*eslint\.config\.js\): .*Unexpected token/);
      const r2 = await s.call("lint", { path: ".", linter: "eslint" });
      expect(r2).toMatchObject({ success: false, error_type: "tool_error" });
      fs.writeFileSync(
        path.join(dir, "eslint.config.js"),
        'export default [{ rules: { "no-unused-vars": "error" } }];\nconst later = 1;\n',
      );
      const r3 = await s.call("lint", { path: ".", linter: "eslint", files: ["."] });
      expect(r3.success).toBe(true);
      expect(r3.issues).toEqual([
        "eslint.config.js:2:7: no-unused-vars 'later' is assigned a value but never used.",
      ]);
      expect((r3.notes as string[]).some((n) => n.includes("a watched config file changed"))).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("a rule that throws is a tool_error and the same worker serves the next call", async () => {
    const dir = copyFixture(path.join(JS, "busy-plugin"));
    fs.writeFileSync(path.join(dir, "src", "boom.js"), "export const b = 1; // BOOM\n");
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const ok1 = await s.call("lint", { path: ".", linter: "eslint", files: ["src/a.js"] });
      const boom = await s.call("lint", { path: ".", linter: "eslint", files: ["src/boom.js"] });
      expect(boom).toMatchObject({ success: false, error_type: "tool_error" });
      expect(boom.error).toContain("the trap rule exploded on purpose");
      const ok2 = await s.call("lint", { path: ".", linter: "eslint", files: ["src/a.js"] });
      expect(ok2.success).toBe(true);
      expect(workerPid(ok2)).toBe(workerPid(ok1));
      expect(ok2.notes).toContain(`warm eslint worker pid ${workerPid(ok1)}, request 3`);
    } finally {
      await s.close();
    }
  });
});
