/**
 * Go linters as their own CLIs report (issue 27, issue 26 item 8): staticcheck's compile problem on code that
 * does not build comes back as findings at the compiler's positions, and `files` scopes go vet and
 * staticcheck to the files it matches (a pattern matching nothing is invalid_input).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_GO_BIN } from "../helpers/tools.js";

const GO = path.join(FIXTURES, "go");
const STATICCHECK = path.join(TOOLS_GO_BIN, "staticcheck");

describe.skipIf(missing("go"))("Go linters", () => {
  let lintProject: string;
  let typeErrors: string;
  let s: Connected;
  beforeAll(async () => {
    lintProject = copyFixture(path.join(GO, "lint-project"));
    // A second package with a finding of its own, so a scope to one package's files shows.
    fs.mkdirSync(path.join(lintProject, "sub"));
    fs.writeFileSync(
      path.join(lintProject, "sub", "other.go"),
      'package sub\n\nimport "fmt"\n\nfunc Hello(n int) {\n\tfmt.Printf("%s\\n", n)\n}\n',
    );
    // And a second file in that package with a finding of its own, so a scope to one file of it shows.
    fs.writeFileSync(
      path.join(lintProject, "sub", "more.go"),
      'package sub\n\nimport "fmt"\n\nfunc More(s string) {\n\tfmt.Printf("%d\\n", s)\n}\n',
    );
    typeErrors = copyFixture(path.join(GO, "type-errors"));
    s = await connectStdio({
      args: ["--allowed-paths", [lintProject, typeErrors].join(",")],
      cwd: lintProject,
      env: { PATH: `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}` },
    });
  });
  afterAll(async () => s?.close());

  it.skipIf(missing("staticcheck", [TOOLS_GO_BIN]))(
    "staticcheck on code that does not compile: each compiler error its CLI prints, as a compile finding",
    async () => {
      const direct = spawnSync(STATICCHECK, ["./..."], { cwd: typeErrors, encoding: "utf8" });
      expect(direct.status).toBe(1);
      // The CLI: `-: # pkg` then the compiler's lines, the last one suffixed ` (compile)`.
      const compilerLines = direct.stdout
        .split("\n")
        .filter((l) => l.startsWith("./"))
        .map((l) => l.replace(/ \(compile\)$/, "").replace(/^\.\//, ""));
      const r = await s.call("lint", { path: typeErrors, linter: "staticcheck" });
      expect(r).toMatchObject({ success: true, passed: false, returncode: 1, issue_count: 3 });
      expect(r.issues).toEqual(compilerLines.map((l) => l.replace(/^(main\.go:\d+:\d+): /, "$1: compile ")));
      expect((r.findings as Record<string, unknown>[])[0]).toMatchObject({
        tool: "staticcheck",
        file: path.join(typeErrors, "main.go"),
        line: 4,
        column: 6,
        rule_id: "compile",
        severity: "error",
        message: "declared and not used: n",
      });
    },
  );

  it("files scopes go vet to the files it matches, as go vet on their package reports", async () => {
    const direct = spawnSync("go", ["vet", "./sub"], { cwd: lintProject, encoding: "utf8" });
    const line = direct.stderr.split("\n").find((l) => l.startsWith("sub/other.go:"));
    expect(line).toBe("sub/other.go:6:14: fmt.Printf format %s has arg n of wrong type int");
    const r = await s.call("lint", { path: ".", linter: "govet", files: ["sub/o*.go"] });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 1, command: "go vet -json ./sub" });
    expect(r.issues).toEqual([line!.replace(/^(sub\/other\.go:6:14): /, "$1: printf ")]);
    expect((r.findings as { file: string }[]).map((f) => f.file)).toEqual([
      path.join(lintProject, "sub", "other.go"),
    ]);
    // go vet on the package reports more.go too; the scope keeps other.go's only.
    expect(direct.stderr).toContain("sub/more.go:6:");
    const one = await s.call("lint", { path: ".", linter: "govet", files: ["main.go"] });
    expect(one).toMatchObject({ issue_count: 1, command: "go vet -json ." });
    expect((one.issues as string[])[0]).toMatch(/^main\.go:11:20: printf /);
    const none = await s.call("lint", { path: ".", linter: "govet", files: ["nothing/*.go"] });
    expect(none).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(none.error).toBe(`argument "files" matched no file under ${lintProject} (govet): nothing/*.go`);
  });

  it.skipIf(missing("staticcheck", [TOOLS_GO_BIN]))("files scopes staticcheck the same way", async () => {
    const r = await s.call("lint", { path: ".", linter: "staticcheck", files: ["sub/other.go"] });
    expect(r).toMatchObject({ success: true, passed: false, command: "staticcheck -f json ./sub" });
    expect(r.issues).toEqual(["sub/other.go:6:13: SA5009 Printf format %s has arg #1 of wrong type int"]);
    const none = await s.call("lint", { path: ".", linter: "staticcheck", files: ["*.rs"] });
    expect(none).toMatchObject({ success: false, error_type: "invalid_input" });
  });
});
