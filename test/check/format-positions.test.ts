/**
 * A format finding points at the first line its formatter would change, for every formatter (issue 27):
 * gofmt's and rustfmt's were put at 1:1 by `check`. The line is the one `gofmt -d` and `cargo fmt --check`
 * print for the file.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCheck, type CheckJson } from "../helpers/check.js";
import { missing, tempDir } from "../helpers/tools.js";

/** 36 formatted lines, then one gofmt rewrites (line 38). */
function goModule(dir: string): void {
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "go.mod"), "module example.com/fmtp\n\ngo 1.21\n");
  const funcs = Array.from({ length: 11 }, (_, i) => `func f${i}() {\n\tfmt.Println(${i})\n}\n`).join("");
  fs.writeFileSync(
    path.join(dir, "main.go"),
    `package main\n\nimport "fmt"\n\n${funcs}func   messy( ) int {\nreturn 1\n}\n\nfunc main() { fmt.Println(messy()) }\n`,
  );
}

/** 40 formatted lines, then one rustfmt rewrites (line 41). */
function rustCrate(dir: string): void {
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "Cargo.toml"),
    '[package]\nname = "fmtp"\nversion = "0.1.0"\nedition = "2021"\n',
  );
  const funcs = Array.from({ length: 10 }, (_, i) => `pub fn f${i}() -> i32 {\n    ${i}\n}\n\n`).join("");
  fs.writeFileSync(path.join(dir, "src", "lib.rs"), `${funcs}pub fn messy( a:i32 )->i32{ a+1 }\n`);
}

describe.skipIf(missing("gofmt") || missing("cargo"))("format findings at the first changed line", () => {
  let root: string;
  let json: CheckJson;
  beforeAll(async () => {
    root = tempDir("mcq-format-positions-");
    goModule(path.join(root, "gomod"));
    rustCrate(path.join(root, "crate"));
    const run = await runCheck(["gomod", "crate", "--json"], { cwd: root });
    json = JSON.parse(run.stdout) as CheckJson;
  }, 180_000);

  it("gofmt: the first changed line of gofmt -d", () => {
    const direct = spawnSync("gofmt", ["-d", "main.go"], { cwd: path.join(root, "gomod"), encoding: "utf8" });
    // The hunk starts 3 context lines before the change.
    expect(/^@@ -(\d+),/m.exec(direct.stdout)?.[1]).toBe("35");
    const format = json.findings.filter((f) => f.rule_id === "format" && f.tool === "gofmt");
    expect(format.map((f) => [f.file, f.line])).toEqual([["gomod/main.go", 38]]);
  });

  it("rustfmt: the first changed line after cargo fmt --check's `Diff in FILE:LINE:`", () => {
    const direct = spawnSync("cargo", ["fmt", "--check"], {
      cwd: path.join(root, "crate"),
      encoding: "utf8",
    });
    expect(direct.stdout).toContain(`Diff in ${path.join(root, "crate", "src", "lib.rs")}:38:\n`);
    const format = json.findings.filter((f) => f.rule_id === "format" && f.tool === "rustfmt");
    expect(format.map((f) => [f.file, f.line])).toEqual([["crate/src/lib.rs", 41]]);
  });
});
