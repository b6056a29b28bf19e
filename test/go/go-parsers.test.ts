/** The Go output parsers on output captured from the real tools (paths rewritten to /proj, timestamps dropped). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseGoBuildJson } from "../../src/adapters/go/go-build.js";
import {
  parseGoVetJson,
  parseGoVetTypeErrors,
  parseGolint,
  parseStaticcheckJson,
} from "../../src/adapters/go/go-lint.js";
import { parseGoTestJson } from "../../src/adapters/go/go-test.js";
import { golangciArgs, parseGolangciJson } from "../../src/adapters/go/golangci-lint.js";
import {
  golangciConfigClosure,
  golangciFormatters,
  goPluginsOf,
  parseGolangciConfig,
} from "../../src/adapters/go/golangci-config.js";
import { golangciFmtWarnings, parseGolangciFmtDiff } from "../../src/adapters/go/golangci-fmt.js";
import { splitJsonObjects } from "../../src/adapters/go/go-json.js";
import { FIXTURES } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const captured = (name: string) => fs.readFileSync(path.join(FIXTURES, "go", "captured", name), "utf8");

describe("Go parsers", () => {
  it("go vet -json: one finding per analyzer diagnostic, with its end", () => {
    expect(parseGoVetJson(captured("govet.json"))).toEqual([
      {
        tool: "govet",
        file: "/proj/main.go",
        line: 11,
        column: 20,
        end_line: 11,
        end_column: 22,
        rule_id: "printf",
        severity: "warning",
        message: "fmt.Printf format %d has arg name of wrong type string",
        docs_url: "https://pkg.go.dev/golang.org/x/tools/go/analysis/passes/printf",
      },
    ]);
  });

  it("splits concatenated objects and skips `# pkg` lines and braces inside strings", () => {
    expect(splitJsonObjects('# a\n{"a": "}{"}\n# b\n{"b": {"c": 1}}')).toEqual([
      { a: "}{" },
      { b: { c: 1 } },
    ]);
  });

  it("staticcheck -f json", () => {
    expect(parseStaticcheckJson(captured("staticcheck.jsonl"))).toMatchObject([
      {
        tool: "staticcheck",
        rule_id: "SA5009",
        severity: "error",
        line: 11,
        column: 13,
        end_line: 11,
        end_column: 25,
      },
    ]);
  });

  it("staticcheck's compile error of a package and of its test variant is one finding", () => {
    // The CLI prints it twice: `# example.com/brokendep/lib` and `# ... [example.com/brokendep/lib.test]`.
    expect(captured("staticcheck-compile-twice.jsonl").trim().split("\n")).toHaveLength(2);
    expect(parseStaticcheckJson(captured("staticcheck-compile-twice.jsonl"), "/proj")).toEqual([
      {
        tool: "staticcheck",
        file: "/proj/lib/lib.go",
        line: 5,
        column: 9,
        rule_id: "compile",
        severity: "error",
        message: 'cannot use "forty-two" (untyped string constant) as int value in return statement',
      },
    ]);
  });

  it("go vet's errors when the code does not build: its own `vet:` lines, a dependency's, go's own", () => {
    expect(
      parseGoVetTypeErrors(
        '# example.com/x\n# [example.com/x]\nvet: ./main.go:5:27: cannot use "s" (untyped string constant) as int value',
      ),
    ).toEqual(['./main.go:5:27: cannot use "s" (untyped string constant) as int value']);
    expect(
      parseGoVetTypeErrors(
        "main.go:3:8: no required module provides package example.com/nope; to add it:\n\tgo get example.com/nope",
      ),
    ).toEqual(["main.go:3:8: no required module provides package example.com/nope; to add it:"]);
    expect(parseGoVetTypeErrors('# example.com/x/lib\nlib/lib.go:3:23: cannot use "x"')).toEqual([
      'lib/lib.go:3:23: cannot use "x"',
    ]);
  });

  it("golint lines resolve against its working directory", () => {
    expect(
      parseGolint("main.go:5:1: exported function Add should have comment or be unexported\n", "/proj"),
    ).toEqual([
      {
        tool: "golint",
        file: "/proj/main.go",
        line: 5,
        column: 1,
        rule_id: "golint",
        severity: "warning",
        message: "exported function Add should have comment or be unexported",
      },
    ]);
  });

  it("go build -json: every compiler error", () => {
    expect(
      parseGoBuildJson(captured("go-build.jsonl"), "/proj").map((f) => `${f.line}:${f.column} ${f.message}`),
    ).toEqual([
      "4:6 declared and not used: n",
      '4:14 cannot use "three" (untyped string constant) as int value in variable declaration',
      "5:2 undefined: undefinedCall",
    ]);
  });

  it("go test -json: counts, failure location from the t.Errorf line, coverage", () => {
    const report = parseGoTestJson(captured("go-test.jsonl"), () => "/proj");
    expect(report.summary).toEqual({ passed: 1, failed: 1, skipped: 1, packages_failed: 1, build_failed: 0 });
    expect(report.failures).toEqual([
      {
        node_id: "example.com/testsproject.TestAddFails",
        kind: "failed",
        file: "/proj/add_test.go",
        line: 14,
        message: "add_test.go:14: Add(2, 2) = 4, want 5",
      },
    ]);
    expect(report.coveragePercent).toBe(100);
  });

  it("golangci-lint's JSON (v2.15.0 on test/fixtures/go/golangci-project): one finding per issue, the linter as rule", () => {
    expect(parseGolangciJson(captured("golangci-lint.json"), "/proj")).toEqual([
      {
        tool: "golangci-lint",
        file: "/proj/main.go",
        line: 12,
        column: 11,
        rule_id: "errcheck",
        severity: "warning",
        message: "Error return value of `os.Remove` is not checked",
      },
      {
        tool: "golangci-lint",
        file: "/proj/store/store.go",
        line: 9,
        column: 9,
        rule_id: "errcheck",
        severity: "warning",
        message: "Error return value of `f.Close` is not checked",
      },
      {
        tool: "golangci-lint",
        file: "/proj/main.go",
        line: 14,
        column: 14,
        rule_id: "govet",
        severity: "warning",
        message: 'printf: fmt.Printf format %d has arg "three" of wrong type string',
      },
    ]);
  });

  it("golangci-lint: code that does not build is a typecheck error per compiler line; no issues is none; v2 flags", () => {
    // One typecheck issue at the package's first line; the compiler's line in its text is the finding.
    expect(parseGolangciJson(captured("golangci-lint-typecheck.json"), "/proj")).toEqual([
      {
        tool: "golangci-lint",
        file: "/proj/bad.go",
        line: 2,
        column: 23,
        rule_id: "typecheck",
        severity: "error",
        message: 'cannot use "x" (untyped string constant) as int value in return statement',
      },
    ]);
    // A typecheck issue without compiler lines stays as golangci-lint placed it.
    const plain = JSON.stringify({
      Issues: [{ FromLinter: "typecheck", Text: "could not load", Pos: { Filename: "/proj/a.go", Line: 3 } }],
    });
    expect(parseGolangciJson(plain)).toMatchObject([
      { file: "/proj/a.go", line: 3, rule_id: "typecheck", severity: "error", message: "could not load" },
    ]);
    expect(parseGolangciJson('{"Issues":null,"Report":{}}')).toEqual([]);
    expect(parseGolangciJson("")).toEqual([]);
    // v2's flags (v1's --out-format is gone); the config and patterns last.
    const args = golangciArgs(["./..."], "/p/ci.yml");
    expect(args.slice(0, 3)).toEqual(["run", "--output.json.path", "stdout"]);
    expect(args.slice(-3)).toEqual(["--config", "/p/ci.yml", "./..."]);
    expect(golangciArgs(["./sub/..."])).not.toContain("--config");
  });

  it("golangci-lint fmt --diff (v2.15.0): each file at its first changed line; a file it cannot parse is a warning", () => {
    const diff = [
      "diff add.go.orig add.go",
      "--- add.go.orig",
      "+++ add.go",
      "@@ -2,6 +2,5 @@",
      " ",
      " // Add is formatted as gofmt wants it; gofumpt removes the empty line that opens its body.",
      " func Add(a, b int) int {",
      "-",
      " \treturn a + b",
      " }",
      "diff /proj/sub/x.go.orig /proj/sub/x.go",
      "--- /proj/sub/x.go.orig",
      "+++ /proj/sub/x.go",
      "@@ -1,3 +1,4 @@",
      " package sub",
      "+",
      " func A() {}",
      " func B() {",
      "",
    ].join("\n");
    expect([...parseGolangciFmtDiff(diff, "/proj")]).toEqual([
      ["/proj/add.go", 5],
      ["/proj/sub/x.go", 2],
    ]);
    expect(parseGolangciFmtDiff("", "/proj").size).toBe(0);
    expect(
      golangciFmtWarnings(
        `level=warning msg="(gofumpt) formatting file bad.go: 2:8: expected ')', found 'EOF'"\n`,
      ),
    ).toEqual(["golangci-lint fmt: (gofumpt) formatting file bad.go: 2:8: expected ')', found 'EOF'"]);
  });

  it("golangci-lint: the formatters a v2 config enables, in each of its formats; a v1 config has none", () => {
    const dir = tempDir("mcq-golangci-formatters-");
    const at = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return golangciFormatters(path.join(dir, name));
    };
    expect(at(".golangci.yml", 'version: "2"\nformatters:\n  enable: [gofumpt, goimports]\n')).toEqual([
      "gofumpt",
      "goimports",
    ]);
    expect(at(".golangci.toml", 'version = "2"\n[formatters]\nenable = ["gci"]\n')).toEqual(["gci"]);
    expect(at(".golangci.json", '{"version": "2", "formatters": {"enable": ["golines"]}}')).toEqual([
      "golines",
    ]);
    // No `version: "2"`: a v1 config (golangci-lint v2 refuses it), whatever it holds.
    expect(at("v1.yml", "formatters:\n  enable: [gofumpt]\n")).toEqual([]);
    expect(at("none.yml", 'version: "2"\nlinters:\n  enable: [errcheck]\n')).toEqual([]);
    expect(at("bad.yml", "version: [\n")).toEqual([]);
    expect(golangciFormatters(path.join(dir, "missing.yml"))).toEqual([]);
  });

  it("golangci-lint: the Go plugins a config loads, in each of its formats (module plugins need their own binary)", () => {
    const yml =
      "linters:\n  settings:\n    custom:\n      a:\n        path: a.so\n      b:\n        type: module\n";
    expect(goPluginsOf(yml, ".golangci.yml")).toEqual(["a"]);
    expect(goPluginsOf('[linters.settings.custom.c]\npath = "c.so"\n', ".golangci.toml")).toEqual(["c"]);
    expect(
      goPluginsOf('{"linters":{"settings":{"custom":{"d":{"path":"d.so"}}}}}', ".golangci.json"),
    ).toEqual(["d"]);
    expect(goPluginsOf('version: "2"\nlinters:\n  enable: [errcheck]\n', ".golangci.yaml")).toEqual([]);
    expect(goPluginsOf("{not yaml: [", ".golangci.yml")).toEqual([]);
  });

  it("golangci-lint: the files a config names (goheader's template, ruleguard's rules), as golangci-lint opens them", () => {
    const dir = tempDir("mcq-golangci-closure-");
    const config = path.join(dir, ".golangci.yml");
    fs.writeFileSync(
      config,
      [
        'version: "2"',
        "linters:",
        "  settings:",
        "    goheader:",
        "      template-path: hdr.txt",
        "    gocritic:",
        "      settings:",
        "        ruleguard:",
        '          rules: "${config-path}/rules/a.go, ${base-path}/more/*.go"',
      ].join("\n"),
    );
    const mod = path.join(dir, "svc");
    expect(golangciConfigClosure(config, mod)).toEqual({
      // A relative path is taken from the folder golangci-lint runs in (the module), not the config's.
      files: [config, path.join(mod, "hdr.txt"), path.join(dir, "rules", "a.go")],
      dirs: [{ dir: path.join(dir, "more"), names: "^[^/]*\\.go$" }],
      watch: [config],
    });
    fs.writeFileSync(config, 'version: "2"\n');
    expect(golangciConfigClosure(config, mod)).toEqual({ files: [config], dirs: [], watch: [config] });
  });

  it("a golangci-lint config is parsed once per text: the same text twice is one parse, an edited one parses anew", () => {
    const yml = "linters:\n  settings:\n    custom:\n      a:\n        path: a.so\n";
    expect(parseGolangciConfig(yml, ".golangci.yml")).toBe(parseGolangciConfig(yml, ".golangci.yml"));
    expect(goPluginsOf(yml, ".golangci.yml")).toEqual(["a"]);
    const edited = yml.replace("a:", "b:");
    expect(goPluginsOf(edited, ".golangci.yml")).toEqual(["b"]);
    // The same text under another name is read by that name's format.
    expect(parseGolangciConfig('{"linters": {}}', ".golangci.json")).toEqual({ linters: {} });
    expect(parseGolangciConfig('{"linters": {}}', ".golangci.toml")).toBeUndefined();
  });
});
