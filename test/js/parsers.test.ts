/** Pure parts of the JS adapters, on real captured output. */
import { describe, expect, it } from "vitest";
import { parseTscOutput } from "../../src/adapters/js/tsc-output.js";
import { applyEdits } from "../../src/adapters/js/suggestions.js";
import { staticPrefix } from "../../src/adapters/js/eslint-scope.js";
import { fixStatus, lintStatus } from "../../src/adapters/js/eslint-results.js";

// Captured from `tsc --noEmit --pretty false -p tsconfig.json` (TypeScript 6.0.3) on the type-errors
// fixture plus a file with a message chain, and from `-p missing.json`.
const TSC_OUTPUT = `src/a.ts(4,14): error TS2322: Type 'number' is not assignable to type 'string'.
src/c.ts(2,28): error TS2339: Property 'toUpperCase' does not exist on type '1'.
src/d.ts(3,20): error TS2345: Argument of type '{ a: string; }' is not assignable to parameter of type '{ a: number; }'.
  Types of property 'a' are incompatible.
    Type 'string' is not assignable to type 'number'.
error TS5058: The specified path does not exist: 'missing.json'.
`;

describe("parseTscOutput", () => {
  it("reads located diagnostics, message chains and program-wide errors", () => {
    expect(parseTscOutput(TSC_OUTPUT, "/p")).toEqual([
      {
        file: "/p/src/a.ts",
        line: 4,
        column: 14,
        code: 2322,
        category: "error",
        message: "Type 'number' is not assignable to type 'string'.",
      },
      {
        file: "/p/src/c.ts",
        line: 2,
        column: 28,
        code: 2339,
        category: "error",
        message: "Property 'toUpperCase' does not exist on type '1'.",
      },
      {
        file: "/p/src/d.ts",
        line: 3,
        column: 20,
        code: 2345,
        category: "error",
        message:
          "Argument of type '{ a: string; }' is not assignable to parameter of type '{ a: number; }'.\n" +
          "Types of property 'a' are incompatible.\nType 'string' is not assignable to type 'number'.",
      },
      {
        file: null,
        line: 0,
        column: 0,
        code: 5058,
        category: "error",
        message: "The specified path does not exist: 'missing.json'.",
      },
    ]);
  });
});

describe("applyEdits", () => {
  it("applies non-overlapping edits and leaves overlapping ones for a later pass", () => {
    const r = applyEdits("let a: any = 1;", [
      { range: [7, 10], text: "unknown" },
      { range: [8, 9], text: "X" },
      { range: [0, 3], text: "const" },
    ]);
    expect(r).toEqual({ text: "const a: unknown = 1;", applied: 2 });
  });
});

describe("staticPrefix", () => {
  it("keeps the literal directories of a glob", () => {
    expect(staticPrefix("src/lib/**/*.ts")).toBe("src/lib");
    expect(staticPrefix("**/*.js")).toBe("");
    expect(staticPrefix("src/{a,b}/x.ts")).toBe("src");
  });
});

describe("ESLint statuses", () => {
  const msg = { line: 1, column: 1, rule_id: "r", severity: "error" as const, message: "m" };
  const base = { file: "/f.js", errorCount: 1, warningCount: 0, fatal: false };
  it("lint: clean, fixable, unfixable, error", () => {
    expect(lintStatus({ ...base, messages: [] })).toBe("clean");
    expect(lintStatus({ ...base, messages: [{ ...msg, fixable: true }] })).toBe("fixable");
    expect(lintStatus({ ...base, messages: [{ ...msg, fixable: false }] })).toBe("unfixable");
    expect(lintStatus({ ...base, fatal: true, messages: [msg] })).toBe("error");
  });
  it("lint_fix: seed 001's statuses", () => {
    expect(fixStatus({ ...base, messages: [], output: "x" }, false)).toBe("fixed");
    expect(fixStatus({ ...base, messages: [], output: "x" }, true)).toBe("would-fix");
    expect(fixStatus({ ...base, messages: [msg], output: "x" }, false)).toBe("fixable");
    expect(fixStatus({ ...base, messages: [msg] }, false)).toBe("unfixable");
    expect(fixStatus({ ...base, fatal: true, messages: [msg] }, false)).toBe("error");
  });
});
