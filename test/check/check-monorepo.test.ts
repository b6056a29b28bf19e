/**
 * Issue 39: a path holding several projects is checked as several projects, each at its own root with its
 * own configuration (src/adapters/projects.ts). The fixture is a monorepo root with no manifest of its own
 * (py/, go/, rs/, js/, rb/, 20 planted findings, README.txt): `check .` finds each of them, the same as each
 * project's tools run directly in it, and never exits 0; the MCP tools on the root run per project too. A
 * folder holding only rs/ is no "nothing to check", and when none of its checks can run, no exit 0.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { cargoMessagePlaces } from "../helpers/cargo.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, PATH_WITH_TOOLS, runCheck, type CheckJson } from "../helpers/check.js";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_GO_BIN, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const MONO = path.join(FIXTURES, "monorepo");
const BIN = (tool: string) => path.join(REPO_ROOT, "node_modules", ".bin", tool);
const NEEDED = ["ruff", "ty", "go", "cargo", "rubocop"];
const skip = NEEDED.some((t) => missing(t, [TOOLS_VENV_BIN]));

/** A tool run directly in a project folder (nothing written: no caches, a scratch target dir). */
function direct(program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(program, args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      PATH: PATH_WITH_TOOLS,
      PYTHONDONTWRITEBYTECODE: "1",
      GOTOOLCHAIN: "local",
      ...env,
    },
  });
}

/** `file:line rule` of a check's findings of one tool, sorted (files relative to the fixture). */
const fromCheck = (json: CheckJson, check: string) =>
  json.findings
    .filter((f) => f.check === check)
    .map((f) => `${f.file}:${f.line} ${f.rule_id}`)
    .sort();

describe.skipIf(skip)("check . on a monorepo root without a manifest", () => {
  let json: CheckJson;
  let status: number | null;
  beforeAll(async () => {
    const before = treeHash(MONO);
    // The fixture is inside this repository, whose work tree would be check's default allowed root (and its
    // package.json a project above): the monorepo is the allowed root, as for a repository of its own.
    const run = await runCheck([".", "--json", "--result-cache", "false", "--allowed-paths", MONO], {
      cwd: MONO,
    });
    status = run.status;
    json = parseJson(run);
    expect(treeHash(MONO)).toEqual(before);
  }, 240_000);

  it("runs each language's checks at its project, finds all 20 planted findings, and exits 1", () => {
    expect(status).toBe(1);
    const where = Object.fromEntries(json.checks.map((c) => [c.id, path.relative(MONO, c.target)]));
    expect(where).toEqual({
      "ruff-format": "py",
      ruff: "py",
      ty: "py",
      gofmt: "go",
      govet: "go",
      go: "go",
      prettier: "js",
      eslint: "js",
      tsc: "js",
      rustfmt: "rs",
      clippy: "rs",
      cargo: "rs",
      rubocop: "rb",
    });
    expect(json.checks.filter((c) => c.status === "failed" || c.status === "skipped")).toEqual([]);
    const count = (id: string) => json.checks.find((c) => c.id === id)?.finding_count;
    expect(json.checks.map((c) => [c.id, c.finding_count])).toEqual([
      ["ruff-format", 1],
      ["ruff", 3],
      ["ty", 1],
      ["gofmt", 1],
      ["govet", 2],
      ["go", 0],
      ["prettier", 1],
      ["eslint", 2],
      ["tsc", 1],
      ["rustfmt", 1],
      ["clippy", 3],
      ["cargo", 0],
      ["rubocop", 4],
    ]);
    expect(json.findings).toHaveLength(20);
    expect(count("ruff")).toBe(3);
  });

  it("Python: ruff with py/pyproject.toml's settings (its exclude and per-file ignores), as ruff and ty run in py/", () => {
    const py = path.join(MONO, "py");
    const ruff = JSON.parse(
      direct("ruff", ["check", "--no-cache", "--output-format", "json", "."], py).stdout,
    ) as { filename: string; location: { row: number }; code: string }[];
    expect(fromCheck(json, "ruff")).toEqual(
      ruff.map((f) => `${path.relative(MONO, f.filename)}:${f.location.row} ${f.code}`).sort(),
    );
    // No --isolated: generated.py (excluded) and legacy.py (F401 ignored) are not reported.
    expect(json.findings.some((f) => /generated|legacy/.test(f.file))).toBe(false);
    const format = direct("ruff", ["format", "--no-cache", "--check", "."], py);
    expect(format.status).toBe(1);
    expect(format.stdout).toMatch(/src\/mono\/app\.py/);
    expect(format.stdout).toMatch(/^1 file would be reformatted/m);
    expect(fromCheck(json, "ruff-format")).toEqual(["py/src/mono/app.py:9 format"]);
    const ty = direct("ty", ["check", "--output-format", "concise"], py).stdout;
    const tyRows = [...ty.matchAll(/^(\S+?):(\d+):\d+: error\[([\w-]+)\]/gm)].map(
      (m) => `py/${m[1]}:${m[2]} ${m[3]}`,
    );
    expect(fromCheck(json, "ty")).toEqual(tyRows.sort());
  });

  it("Go: gofmt and go vet as run in go/", () => {
    const go = path.join(MONO, "go");
    expect(direct("gofmt", ["-l", "."], go).stdout.trim()).toBe("messy.go");
    expect(fromCheck(json, "gofmt")).toEqual(["go/messy.go:3 format"]);
    const vet = direct("go", ["vet", "./..."], go).stderr;
    const lines = [...vet.matchAll(/^(\S+\.go):(\d+):\d+: /gm)].map((m) => `go/${m[1]}:${m[2]}`).sort();
    expect(fromCheck(json, "govet").map((r) => r.split(" ")[0])).toEqual(lines);
  });

  it("Rust: clippy and rustfmt as run in rs/", () => {
    const rs = path.join(MONO, "rs");
    const target = tempDir("mcq-mono-target-");
    const clippy = direct("cargo", ["clippy", "--locked", "--message-format=json", "--quiet"], rs, {
      CARGO_TARGET_DIR: target,
    }).stdout;
    const own = cargoMessagePlaces(clippy)
      .map((m) => `rs/${m.file}:${m.line} ${m.code}`)
      .sort();
    expect(fromCheck(json, "clippy")).toEqual(own);
    const fmt = direct("cargo", ["fmt", "--check"], rs);
    expect(fmt.status).toBe(1);
    expect(fmt.stdout).toContain(`Diff in ${path.join(rs, "src", "lib.rs")}`);
    expect(fromCheck(json, "rustfmt")).toEqual(["rs/src/lib.rs:9 format"]);
    fs.rmSync(target, { recursive: true, force: true });
  });

  it("JavaScript: its own ESLint config, Prettier and tsc as run in js/", () => {
    const js = path.join(MONO, "js");
    const eslint = JSON.parse(direct(BIN("eslint"), ["--format", "json", "."], js).stdout) as {
      filePath: string;
      messages: { line: number; ruleId: string }[];
    }[];
    expect(fromCheck(json, "eslint")).toEqual(
      eslint
        .flatMap((f) => f.messages.map((m) => `${path.relative(MONO, f.filePath)}:${m.line} ${m.ruleId}`))
        .sort(),
    );
    const run = direct(BIN("prettier"), ["--check", "--no-color", "."], js);
    const prettier = run.stdout + run.stderr;
    expect([...prettier.matchAll(/^\[warn\] (\S+\.\w+)$/gm)].map((m) => m[1])).toEqual(["src/index.ts"]);
    expect(fromCheck(json, "prettier")).toEqual(["js/src/index.ts:3 format"]);
    const tsc = direct(BIN("tsc"), ["--noEmit", "-p", "tsconfig.json"], js).stdout;
    const own = [...tsc.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map(
      (m) => `js/${m[1]}:${m[2]} ${m[3]}`,
    );
    expect(fromCheck(json, "tsc")).toEqual(own.sort());
  });

  it("Ruby: rubocop as run in rb/", () => {
    const rb = path.join(MONO, "rb");
    const own = JSON.parse(direct("rubocop", ["--format", "json"], rb).stdout) as {
      files: { path: string; offenses: { cop_name: string; location: { line: number } }[] }[];
    };
    expect(fromCheck(json, "rubocop")).toEqual(
      own.files.flatMap((f) => f.offenses.map((o) => `rb/${f.path}:${o.location.line} ${o.cop_name}`)).sort(),
    );
  });
});

describe.skipIf(missing("cargo"))("a folder holding only rs/", () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir("mcq-rs-only-");
    fs.cpSync(path.join(MONO, "rs"), path.join(dir, "rs"), { recursive: true });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("is checked at rs/ (not `nothing to check`, exit 0): clippy's findings, exit 1", async () => {
    const run = await runCheck([".", "--json"], { cwd: dir });
    expect(run.stderr).not.toContain("nothing to check");
    const json = parseJson(run);
    expect(run.status).toBe(1);
    expect(json.checks.map((c) => [c.id, path.relative(dir, c.target)])).toEqual([
      ["rustfmt", "rs"],
      ["clippy", "rs"],
      ["cargo", "rs"],
    ]);
    expect(json.findings.filter((f) => f.check === "clippy")).toHaveLength(3);
  });

  it("with no Rust toolchain on PATH: the project was not checked, so exit 3, and the report says which", async () => {
    const env = { PATH: "/usr/bin:/bin", CARGO_HOME: undefined, RUSTUP_HOME: undefined };
    const run = await runCheck(["."], { cwd: dir, env });
    expect(run.status).toBe(3);
    expect(run.stdout).toMatch(/Not checked:\n {2}rs: rustfmt skipped: not installed/);
    expect(run.stdout).toContain("1 project not checked");
    const json = parseJson(await runCheck([".", "--json"], { cwd: dir, env }));
    expect(json.exit_code).toBe(3);
    expect(
      (json as unknown as { not_checked: { target: string }[] }).not_checked.map((u) => u.target),
    ).toEqual([path.join(dir, "rs")]);
  });
});

describe.skipIf(skip)("the MCP tools on the monorepo root", () => {
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({
      args: ["--allowed-paths", MONO, "--rate-limit", "false", "--result-cache", "false"],
      cwd: MONO,
      env: { PATH: PATH_WITH_TOOLS, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it("lint runs each project's linter at its root (no invalid_input for go vet), 14 findings as check's", async () => {
    const r = await s.call("lint", { path: "." });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 14 });
    expect(
      (r.linters as { linter: string; path: string; issue_count: number }[]).map((l) => [
        l.linter,
        l.path,
        l.issue_count,
      ]),
    ).toEqual([
      ["ruff", "py", 3],
      ["govet", "go", 2],
      ["eslint", "js", 2],
      ["clippy", "rs", 3],
      ["rubocop", "rb", 4],
    ]);
    const vet = await s.call("lint", { path: ".", linter: "govet" });
    expect(vet).toMatchObject({ success: true, passed: false, issue_count: 2 });
  });

  it("lint_fix (dry run) runs each project's own fixer at its root with its settings, in one call", async () => {
    const before = treeHash(MONO);
    const r = await s.call("lint_fix", { path: ".", dry_run: true });
    expect(treeHash(MONO)).toEqual(before);
    expect(r).toMatchObject({ success: true, dry_run: true });
    expect(r.projects).toEqual([
      { path: "py", linter: "ruff" },
      { path: "js", linter: "eslint" },
      { path: "rs", linter: "clippy" },
      { path: "rb", linter: "rubocop" },
    ]);
    expect((r.notes as string[]).join("\n")).toContain("no lint fix for go: go vet fixes nothing");
    // ruff with py/pyproject.toml's settings: the excluded and the F401-ignored file are not touched.
    const diff = String(r.diff);
    expect(diff).toContain("py/src/mono/app.py");
    expect(diff).not.toMatch(/generated\.py|legacy\.py/);
  });

  it("format_check and a dry autoformat run each project's formatter at its root, as check's format checks", async () => {
    const before = treeHash(MONO);
    const check = await s.call("format_check", { path: "." });
    const dry = await s.call("autoformat", { path: ".", dry_run: true });
    expect(treeHash(MONO)).toEqual(before);
    const files = ["go/messy.go", "js/src/index.ts", "py/src/mono/app.py", "rs/src/lib.rs"];
    expect(check).toMatchObject({ success: true, formatted: false, unformatted_count: 4 });
    expect([...(check.unformatted_files as string[])].sort()).toEqual(files);
    expect(dry).toMatchObject({ success: true, formatted: false, changed_count: 4 });
    expect([...(dry.changed_files as string[])].sort()).toEqual(files);
    expect(
      (dry.projects as { path: string; formatter: string }[]).map((p) => `${p.path} ${p.formatter}`),
    ).toEqual(["py ruff", "go gofmt", "js prettier", "rs rustfmt", "rb rubocop"]);
  });

  it("type_check runs each project's checker at its root", async () => {
    const r = await s.call("type_check", { path: "." });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 2 });
    expect(
      (r.checkers as { checker: string; path: string; issue_count: number }[]).map((c) => [
        c.checker,
        c.path,
        c.issue_count,
      ]),
    ).toEqual([
      ["ty", "py", 1],
      ["go", "go", 0],
      ["tsc", "js", 1],
      ["cargo", "rs", 0],
    ]);
  });

  it.skipIf(missing("gosec", [TOOLS_GO_BIN]) || missing("bandit"))(
    "security_scan runs each project's scanners at its root: bandit in py/, gosec in go/ with gosec's own findings",
    async () => {
      const r = await s.call("security_scan", { path: "." });
      const scanners = r.scanners as { name: string; path?: string; ran: boolean; finding_count?: number }[];
      const ran = scanners.filter((e) => e.ran).map((e) => [e.name, e.path ?? "."]);
      expect(ran).toEqual(
        expect.arrayContaining([
          ["bandit", "py"],
          ["gosec", "go"],
        ]),
      );
      const own = JSON.parse(
        direct(path.join(TOOLS_GO_BIN, "gosec"), ["-fmt", "json", "-quiet", "./..."], path.join(MONO, "go"))
          .stdout,
      ) as { Issues: unknown[] };
      expect(scanners.find((e) => e.name === "gosec")?.finding_count).toBe(own.Issues.length);
    },
  );

  it("run_tests runs each project's runner at its root, not pytest over the whole root", async () => {
    const r = await s.call("run_tests", { path: "." });
    const projects = r.projects as {
      path: string;
      runner?: string;
      passed?: boolean;
      summary?: Record<string, number>;
    }[];
    expect(projects.map((p) => [p.path, p.runner ?? null])).toEqual([
      ["py", "pytest"],
      ["go", "go test"],
      ["js", null],
      ["rs", "cargo test"],
      ["rb", null],
    ]);
    // pytest in py/ (1 passed); go test fails the build on go vet's printf check, as `go test ./...` does.
    expect(projects[0]?.summary?.passed).toBe(1);
    expect(direct("go", ["test", "./..."], path.join(MONO, "go")).status).not.toBe(0);
    expect(projects[1]?.passed).toBe(false);
    expect(r.passed).toBe(false);
  });
});
