/** Parsers and argv builders of the Python type checkers, on output in each tool's documented format. */
import { describe, expect, it } from "vitest";
import { parseTyConcise, tyArgs } from "../../src/adapters/python/ty.js";
import { mypyArgs, parseMypyOutput } from "../../src/adapters/python/mypy.js";
import { parsePyrightJson } from "../../src/adapters/python/pyright.js";

describe("ty", () => {
  it("builds argv: strict → --error-on-warning, pyproject.toml → --project, ty.toml → --config-file", () => {
    expect(tyArgs("/p/src", false)).toEqual(["check", "--output-format", "concise", "--", "/p/src"]);
    expect(tyArgs("/p", true, "/p/pyproject.toml")).toEqual([
      "check",
      "--output-format",
      "concise",
      "--error-on-warning",
      "--project",
      "/p",
      "--",
      "/p",
    ]);
    expect(tyArgs("/p", false, "/p/conf/ty.toml")).toContain("--config-file");
  });

  it("parses concise output (as ty's docs and release notes show it)", () => {
    // ty check --output-format concise, as documented: `path:line:col: severity[rule] message`.
    const output = [
      'src/app/main.py:5:13: error[invalid-assignment] Object of type `Literal["three"]` is not assignable to `int`',
      'src/app/main.py:6:16: error[invalid-argument-type] Argument to function `add` is incorrect: Expected `int`, found `Literal["2"]`',
      "src/app/util.py:1:8: warning[unresolved-import] Cannot resolve imported module `yaml`",
      "src/app/util.py:9:5: info[revealed-type] Revealed type: `int`",
      "Found 4 diagnostics",
    ].join("\n");
    const findings = parseTyConcise(output, "/proj");
    expect(findings.map((f) => [f.file, f.line, f.column, f.severity, f.rule_id])).toEqual([
      ["/proj/src/app/main.py", 5, 13, "error", "invalid-assignment"],
      ["/proj/src/app/main.py", 6, 16, "error", "invalid-argument-type"],
      ["/proj/src/app/util.py", 1, 8, "warning", "unresolved-import"],
      ["/proj/src/app/util.py", 9, 5, "info", "revealed-type"],
    ]);
    expect(findings[0]?.message).toBe('Object of type `Literal["three"]` is not assignable to `int`');
    expect(findings[0]?.docs_url).toBe("https://docs.astral.sh/ty/reference/rules/#invalid-assignment");
    expect(parseTyConcise("All checks passed!\n", "/proj")).toEqual([]);
  });
});

describe("mypy", () => {
  it("builds argv with --strict / --config-file, the cache where asked (none by default)", () => {
    expect(mypyArgs([], false, "/p/pyproject.toml", "/c/m").slice(-4)).toEqual([
      "--cache-dir",
      "/c/m",
      "--config-file",
      "/p/pyproject.toml",
    ]);
    const args = mypyArgs(["/p"], true, "/p/mypy.ini");
    expect(args).toContain("--strict");
    expect(args.slice(args.indexOf("--cache-dir"), args.indexOf("--cache-dir") + 2)).toEqual([
      "--cache-dir",
      "/dev/null",
    ]);
    expect(args.slice(-4)).toEqual(["--config-file", "/p/mypy.ini", "--", "/p"]);
  });

  it("folds a note into the diagnostic on its line and keeps lone notes as info", () => {
    const output = [
      'app.py:3:5: error: Name "foo" is not defined  [name-defined]',
      'app.py:3:5: note: Did you mean "food"?',
      'app.py:9: note: Revealed type is "builtins.int"',
      'app.py:12:1: error: Unused "type: ignore" comment  [unused-ignore]',
    ].join("\n");
    const f = parseMypyOutput(output, "/p");
    expect(f).toHaveLength(3);
    expect(f[0]).toMatchObject({
      line: 3,
      column: 5,
      rule_id: "name-defined",
      message: 'Name "foo" is not defined\nDid you mean "food"?',
    });
    expect(f[1]).toMatchObject({ line: 9, column: 0, rule_id: "note", severity: "info" });
    expect(f[2]).toMatchObject({ rule_id: "unused-ignore", severity: "error" });
  });
});

describe("pyright", () => {
  it("converts 0-based ranges and severities; rejects non-reports", () => {
    const json = JSON.stringify({
      version: "1.1.414",
      generalDiagnostics: [
        {
          file: "/p/a.py",
          severity: "information",
          message: "Import cycle",
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 4 } },
        },
      ],
      summary: { errorCount: 0, warningCount: 0, informationCount: 1 },
    });
    expect(parsePyrightJson(json)).toEqual([
      expect.objectContaining({
        file: "/p/a.py",
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 5,
        severity: "info",
        rule_id: "",
      }),
    ]);
    expect(parsePyrightJson("No configuration file found.")).toBeUndefined();
  });
});
