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
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

/** A folder of programs that log each call (one line: the arguments) to `log`, then run the real one. */
function loggingShims(dir: string, log: string, programs: Record<string, string>): string {
  fs.mkdirSync(dir);
  for (const [name, real] of Object.entries(programs))
    fs.writeFileSync(
      path.join(dir, name),
      `#!/bin/sh\necho "${name} $*" >> '${log}'\nexec '${real}' "$@"\n`,
      {
        mode: 0o755,
      },
    );
  return dir;
}

const callsOf = (log: string, prefix: string) =>
  fs.existsSync(log)
    ? fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l.startsWith(prefix)).length
    : 0;

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

  it("each formatter runs once (its diff gives the line), and not at all in a warm check", async () => {
    const scratch = tempDir("mcq-format-calls-");
    const log = path.join(scratch, "calls.log");
    const which = (p: string) =>
      spawnSync("sh", ["-c", `command -v ${p}`], { encoding: "utf8" }).stdout.trim();
    const shims = loggingShims(path.join(scratch, "bin"), log, {
      gofmt: which("gofmt"),
      cargo: which("cargo"),
    });
    const options = {
      cwd: root,
      env: {
        PATH: `${shims}:${process.env.PATH}`,
        // The log is outside the projects, which the sandbox would not let a tool write.
        MCP_CODE_QUALITY_SANDBOX: "off",
        XDG_CACHE_HOME: path.join(scratch, "cache"),
      },
    };
    const calls: [number, number][] = [];
    for (let i = 0; i < 2; i++) {
      const run = await runCheck(
        ["gomod", "crate", "--only", "gofmt,rustfmt", "--json", "--result-cache", "true"],
        options,
      );
      expect(run.status, run.stderr).toBe(1);
      const again = JSON.parse(run.stdout) as CheckJson;
      expect(again.findings.filter((f) => f.rule_id === "format").map((f) => [f.file, f.line])).toEqual(
        json.findings.filter((f) => f.rule_id === "format").map((f) => [f.file, f.line]),
      );
      calls.push([callsOf(log, "gofmt -d"), callsOf(log, "cargo fmt --check")]);
    }
    // Once, then from the cache (before, each check ran gofmt -d and cargo fmt --check a second time for the
    // diff, and cargo fmt was never cached).
    expect(calls).toEqual([
      [1, 1],
      [1, 1],
    ]);
    // gofmt's version is go's (asked once, for the cache key): no `gofmt -h` probe.
    expect(callsOf(log, "gofmt -h")).toBe(0);
  }, 180_000);

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

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
  "ruff format: the first changed line, from the run the cache keeps",
  () => {
    it("is the line of ruff format --diff, and a warm check does not run ruff format at all", async () => {
      const root = tempDir("mcq-format-ruff-");
      const project = path.join(root, "proj");
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\nversion = "0"\n');
      const body = Array.from({ length: 12 }, (_, i) => `def f${i}():\n    return ${i}\n\n\n`).join("");
      fs.writeFileSync(path.join(project, "app.py"), `${body}x = {'a':1}\n`);
      fs.writeFileSync(path.join(project, "clean.py"), "y = 1\n");
      // A ruff that logs each call, then runs the real one (the sandbox is off: the log is outside the project).
      const real = path.join(TOOLS_VENV_BIN, "ruff");
      const log = path.join(root, "calls.log");
      const shims = loggingShims(path.join(root, "bin"), log, { ruff: real });
      const direct = spawnSync(real, ["format", "--diff", "app.py"], { cwd: project, encoding: "utf8" });
      const hunk = /^@@ -(\d+),/m.exec(direct.stdout);
      expect(hunk?.[1]).toBe("46");
      const args = [".", "--only", "ruff-format", "--json", "--result-cache", "true"];
      const options = {
        cwd: project,
        env: {
          PATH: `${shims}:${process.env.PATH}`,
          MCP_CODE_QUALITY_SANDBOX: "off",
          XDG_CACHE_HOME: path.join(root, "cache"),
        },
      };
      const runs: CheckJson[] = [];
      const calls: number[] = [];
      for (let i = 0; i < 2; i++) {
        const run = await runCheck(args, options);
        expect(run.status, run.stderr).toBe(1);
        runs.push(JSON.parse(run.stdout) as CheckJson);
        calls.push(callsOf(log, "ruff format"));
      }
      for (const json of runs)
        expect(json.findings.filter((f) => f.rule_id === "format").map((f) => [f.file, f.line])).toEqual([
          ["app.py", 49],
        ]);
      // One run (its diff gives the line), then none: before, every check ran ruff again for the diff.
      expect(calls).toEqual([1, 1]);
    }, 120_000);
  },
);
