/**
 * A Go project whose golangci-lint v2 config enables formatters (`formatters: enable: [gofumpt]`, as
 * urfave/cli's) is formatted by them: gofmt accepted urfave/cli's value_source.go, which gofumpt (and so
 * `golangci-lint fmt --diff`, and its CI) does not. The fixture's add.go is the same kind of file: gofmt
 * accepts it, gofumpt removes the empty line opening a body. format_check, autoformat and check's format
 * row run `golangci-lint fmt` (--diff for a check, writing nothing) and agree with it run by hand; not
 * installed, gofmt runs with a note saying its verdict is not the project's, and check names the project
 * as not checked as it means. The result cache keys the config: an exclusion added there is a new verdict.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCheck } from "../helpers/check.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const FIXTURE = path.join(FIXTURES, "go", "gofumpt-project");
const GOLANGCI = path.join(TOOLS_GO_BIN, "golangci-lint");
const PATH_WITH_GO_TOOLS = `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}`;
/** The PATH without the installed Go tools (and no GOBIN/GOPATH that holds them): golangci-lint missing. */
const PATH_WITHOUT = (process.env.PATH ?? "")
  .split(":")
  .filter((d) => !fs.existsSync(path.join(d, "golangci-lint")))
  .join(":");
const NO_GO_BINS = { PATH: PATH_WITHOUT, GOBIN: undefined, GOPATH: tempDir("mcq-gopath-") };

/** `golangci-lint fmt` by hand in the folder: its stdout (exit 0 formatted, 1 a diff printed). */
function byHand(dir: string, ...args: string[]): string {
  const run = spawnSync(GOLANGCI, ["fmt", ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GOTOOLCHAIN: "local" },
  });
  expect([0, 1], run.stderr).toContain(run.status);
  return run.stdout;
}

/** The files a `--diff` names, relative to the folder. */
const diffFiles = (diff: string) => [...diff.matchAll(/^diff \S+\.orig (\S+)$/gm)].map((m) => m[1]);

describe.skipIf(missing("gofmt") || missing("golangci-lint", [TOOLS_GO_BIN]))("golangci-lint fmt", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    s = await connectStdio({
      args: ["--allowed-paths", project, "--result-cache", "false"],
      cwd: project,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
  });
  afterAll(async () => s?.close());

  it("the fixture is one gofmt accepts and the project's gofumpt does not", () => {
    expect(spawnSync("gofmt", ["-l", "."], { cwd: project, encoding: "utf8" }).stdout).toBe("");
    expect(diffFiles(byHand(project, "--diff"))).toEqual(["add.go"]);
  });

  it("format_check runs golangci-lint fmt --diff: the files it names, nothing written", async () => {
    const before = treeHash(project);
    const r = await s.call("format_check", { path: project });
    expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({
      success: true,
      formatted: false,
      unformatted_files: ["add.go"],
      command: `golangci-lint fmt --diff -- ${project}`,
    });
    expect(r.notes).toContain("golangci-lint fmt with config .golangci.yml (formatters: gofumpt)");
    // The diff: golangci-lint's own, by hand in the folder (file names relative to it, as ours are shown).
    const diff = await s.call("format_check", { path: project, language: "go", diff: true });
    expect(diff).toMatchObject({ formatted: false, unformatted_files: ["add.go"] });
    expect(String(diff.output).replaceAll(`${project}/`, "").trimEnd()).toBe(
      byHand(project, "--diff").trimEnd(),
    );
    expect(treeHash(project)).toEqual(before);
  });

  it("a module below: golangci-lint walks into it, yet each module's run lists its own files, once", async () => {
    const dir = copyFixture(FIXTURE);
    fs.mkdirSync(path.join(dir, "inner"));
    fs.writeFileSync(path.join(dir, "inner", "go.mod"), "module example.com/inner\n\ngo 1.22\n");
    fs.copyFileSync(path.join(dir, "add.go"), path.join(dir, "inner", "add.go"));
    expect(diffFiles(byHand(dir, "--diff"))).toEqual(["add.go", "inner/add.go"]);
    const t = await connectStdio({
      args: ["--allowed-paths", dir, "--result-cache", "false"],
      cwd: dir,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
    try {
      const r = await t.call("format_check", { path: dir });
      expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({ success: true, unformatted_count: 2 });
      expect([...(r.unformatted_files as string[])].sort()).toEqual(["add.go", "inner/add.go"]);
      const dry = await t.call("autoformat", { path: dir, language: "go", dry_run: true });
      expect([...(dry.changed_files as string[])].sort()).toEqual(["add.go", "inner/add.go"]);
    } finally {
      await t.close();
    }
  });

  it("a file golangci-lint cannot parse: left out of its diff (it exits 0), its warning in notes, as by hand", async () => {
    const dir = copyFixture(FIXTURE);
    fs.writeFileSync(path.join(dir, "bad.go"), "package main\nfunc (\n");
    expect(diffFiles(byHand(dir, "--diff"))).toEqual(["add.go"]);
    const t = await connectStdio({
      args: ["--allowed-paths", dir, "--result-cache", "false"],
      cwd: dir,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
    try {
      const r = await t.call("format_check", { path: dir });
      expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({
        success: true,
        unformatted_files: ["add.go"],
      });
      expect(r.notes).toContainEqual(
        `golangci-lint fmt: (gofumpt) formatting file ${path.join(dir, "bad.go")}: 2:8: expected ')', found 'EOF'`,
      );
    } finally {
      await t.close();
    }
  });

  it("autoformat: a dry run is the diff and writes nothing; a real run writes what golangci-lint fmt writes", async () => {
    const dir = copyFixture(FIXTURE);
    const t = await connectStdio({
      args: ["--allowed-paths", dir, "--result-cache", "false"],
      cwd: dir,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
    try {
      const before = treeHash(dir);
      const dry = await t.call("autoformat", { path: dir, dry_run: true });
      expect(dry, JSON.stringify(dry).slice(0, 1500)).toMatchObject({
        success: true,
        changed_files: ["add.go"],
      });
      expect(String(dry.diff)).toContain("-\n \treturn a + b");
      expect(treeHash(dir)).toEqual(before);
      const real = await t.call("autoformat", { path: dir });
      expect(real, JSON.stringify(real).slice(0, 1500)).toMatchObject({
        success: true,
        changed_files: ["add.go"],
      });
      // What golangci-lint fmt writes by hand in another copy.
      const other = copyFixture(FIXTURE);
      byHand(other);
      for (const f of ["add.go", "main.go"])
        expect(fs.readFileSync(path.join(dir, f), "utf8")).toBe(fs.readFileSync(path.join(other, f), "utf8"));
      expect(byHand(dir, "--diff")).toBe("");
      expect(await t.call("format_check", { path: dir })).toMatchObject({ formatted: true });
    } finally {
      await t.close();
    }
  });

  it("check's format row is golangci-lint fmt's, at the line golangci-lint names", async () => {
    const run = await runCheck([".", "--json", "--result-cache", "false"], { cwd: project });
    const json = parseJson(run);
    expect(json.checks.map((c) => [c.id, c.kind, c.status])).toEqual([
      ["golangci-lint-format", "format", "findings"],
      ["golangci-lint", "lint", "findings"],
      ["go", "types", "passed"],
    ]);
    expect(
      json.findings.filter((f) => f.check === "golangci-lint-format").map((f) => `${f.file}:${f.line}`),
    ).toEqual(["add.go:5"]);
    expect(run.status).toBe(1);
  }, 120_000);

  it("configured but not installed: gofmt, with a note that its verdict is not the project's; check exits 3", async () => {
    const t = await connectStdio({
      args: ["--allowed-paths", project, "--result-cache", "false"],
      cwd: project,
      env: NO_GO_BINS,
    });
    try {
      const r = await t.call("format_check", { path: project });
      expect(r).toMatchObject({ success: true, formatted: true, command: `gofmt -l -- ${project}` });
      expect(r.notes).toContainEqual(
        expect.stringMatching(
          /^the project's golangci-lint config \(\.golangci\.yml\) enables formatters \(gofumpt\), which golangci-lint fmt runs; golangci-lint is not installed, so gofmt ran instead and this verdict is gofmt's, not the project's; install: go install /,
        ),
      );
    } finally {
      await t.close();
    }
    const run = await runCheck([".", "--json", "--result-cache", "false"], { cwd: project, env: NO_GO_BINS });
    const json = parseJson(run);
    expect(json.checks.filter((c) => c.kind === "format").map((c) => [c.id, c.status])).toEqual([
      ["gofmt", "passed"],
      ["golangci-lint-format", "skipped"],
    ]);
    expect(json.not_checked?.[0]?.reasons).toContainEqual(
      expect.stringMatching(/^golangci-lint-format skipped: not installed; install: go install /),
    );
    expect(run.status).toBe(3);
  }, 120_000);

  it("the result cache keys the config: an exclusion added to it is a new verdict, as by hand", async () => {
    const dir = copyFixture(FIXTURE);
    const t = await connectStdio({
      args: [
        "--allowed-paths",
        dir,
        "--result-cache",
        "true",
        "--result-cache-dir",
        tempDir("mcq-fmt-cache-"),
      ],
      cwd: dir,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
    try {
      expect(await t.call("format_check", { path: dir })).toMatchObject({ unformatted_files: ["add.go"] });
      expect(await t.call("format_check", { path: dir })).toMatchObject({
        unformatted_files: ["add.go"],
        cached: "3 of 3 files",
      });
      const config = path.join(dir, ".golangci.yml");
      fs.appendFileSync(config, "  exclusions:\n    paths:\n      - add\\.go\n");
      expect(byHand(dir, "--diff")).toBe("");
      expect(await t.call("format_check", { path: dir })).toMatchObject({
        formatted: true,
        unformatted_files: [],
      });
    } finally {
      await t.close();
    }
  });
});
