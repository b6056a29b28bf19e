/**
 * Issue 39: lint_fix on a Go project that configures golangci-lint runs `golangci-lint run --fix` with its
 * config, as its developers do, through the transaction pipeline: a dry run writes nothing and its diff is
 * what the real run writes; the real run leaves the files as `golangci-lint run --fix` in a copy does; what is
 * left is what a plain `golangci-lint run` of the fixed files reports. The fixture's config enables misspell
 * and godot (fixable) beside errcheck and govet (not). fix_all and `check --fix` take the same fixer; what
 * golangci-lint cannot scope (only/except, files, source_code) is refused.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCheck } from "../helpers/check.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const FIXTURE = path.join(FIXTURES, "go", "golangci-project");
const GOLANGCI = path.join(TOOLS_GO_BIN, "golangci-lint");
const CONFIG = 'version: "2"\nlinters:\n  default: none\n  enable: [errcheck, govet, godot, misspell]\n';
const DOC_GO = [
  "package store",
  "",
  "// Size returns what the store would recieve.",
  "func Size() int { return 2 }",
  "",
  "// Empty reports whether the store is empty",
  "func Empty() bool { return Size() == 0 }",
  "",
].join("\n");

/** A copy of the fixture with the fixable config and file. */
function project(): string {
  const dir = copyFixture(FIXTURE);
  fs.writeFileSync(path.join(dir, ".golangci.yml"), CONFIG);
  fs.writeFileSync(path.join(dir, "store", "doc.go"), DOC_GO);
  return dir;
}

/** `golangci-lint run [--fix]` in `dir`: `file:line linter` of what it reports. */
function golangci(dir: string, fix: boolean): string[] {
  const args = ["run", ...(fix ? ["--fix"] : []), "--output.json.path", "stdout", "--show-stats=false"];
  const run = spawnSync(GOLANGCI, args, {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GOTOOLCHAIN: "local", GOLANGCI_LINT_CACHE: tempDir("mcq-golangci-cache-") },
  });
  expect([0, 1], run.stderr).toContain(run.status);
  const doc = JSON.parse(run.stdout) as {
    Issues: { FromLinter: string; Pos: { Filename: string; Line: number } }[];
  };
  return doc.Issues.map(
    (i) => `${path.relative(dir, path.resolve(dir, i.Pos.Filename))}:${i.Pos.Line} ${i.FromLinter}`,
  ).sort();
}

interface FileResult {
  file: string;
  status: string;
  messages: { line: number; rule_id: string }[];
}

/** `file:line rule` of what a fix left (files are shown relative to the project). */
const left = (r: Record<string, unknown>, dir: string) =>
  (r.files as FileResult[])
    .flatMap((f) =>
      f.messages.map(
        (m) => `${path.isAbsolute(f.file) ? path.relative(dir, f.file) : f.file}:${m.line} ${m.rule_id}`,
      ),
    )
    .sort();

describe.skipIf(missing("go") || missing("golangci-lint", [TOOLS_GO_BIN]))(
  "lint_fix with golangci-lint",
  () => {
    let dir: string;
    let fixedDirectly: string;
    let s: Connected;
    beforeAll(async () => {
      dir = project();
      // The developer's own: golangci-lint run --fix in a copy of the same project.
      fixedDirectly = project();
      golangci(fixedDirectly, true);
      s = await connectStdio({
        args: ["--allowed-paths", dir],
        cwd: dir,
        env: { PATH: `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}` },
      });
    });
    afterAll(async () => s?.close());

    it("a dry run writes nothing; its diff and leftovers are what golangci-lint run --fix gives", async () => {
      const before = treeHash(dir);
      const r = await s.call("lint_fix", { path: dir, dry_run: true });
      expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({ success: true });
      expect(treeHash(dir)).toEqual(before);
      expect(r.changed_files).toEqual([path.join(dir, "store", "doc.go")]);
      expect(r.diff).toContain("-// Size returns what the store would recieve.");
      expect(r.diff).toContain("+// Size returns what the store would receive.");
      expect(r.diff).toContain("+// Empty reports whether the store is empty.");
      expect(left(r, dir)).toEqual(golangci(fixedDirectly, false));
      expect(left(r, dir)).toEqual(["main.go:12 errcheck", "main.go:14 govet", "store/store.go:9 errcheck"]);
    });

    it("the real run writes what golangci-lint run --fix writes, in a transaction, and lists what is left", async () => {
      const r = await s.call("lint_fix", { path: dir });
      expect(r).toMatchObject({ success: true });
      expect(r.transaction).toBeTruthy();
      const ours = treeHash(dir);
      const theirs = treeHash(fixedDirectly);
      for (const file of Object.keys(theirs).filter((f) => f.endsWith(".go")))
        expect(ours[file]).toBe(theirs[file]);
      expect(fs.readFileSync(path.join(dir, "store", "doc.go"), "utf8")).toContain("would receive.");
      expect(left(r, dir)).toEqual(golangci(dir, false));
      // Nothing left to fix: a second dry run changes nothing.
      const again = await s.call("lint_fix", { path: dir, dry_run: true });
      expect(again.changed_files).toEqual([]);
    });

    it("what golangci-lint cannot scope is refused, not fixed wider: only/except, files, source_code", async () => {
      const before = treeHash(dir);
      for (const extra of [
        { only: ["misspell"] },
        { files: ["store/doc.go"] },
        { source_code: "package x\n" },
      ]) {
        const r = await s.call("lint_fix", { path: dir, linter: "golangci-lint", dry_run: true, ...extra });
        expect(r, JSON.stringify(extra)).toMatchObject({ success: false, error_type: "invalid_input" });
      }
      expect(treeHash(dir)).toEqual(before);
    });

    it("fix_all on the module runs golangci-lint's fixes, then gofmt, and verifies: the same files as lint_fix", async () => {
      const other = project();
      const t = await connectStdio({
        args: ["--allowed-paths", other],
        cwd: other,
        env: { PATH: `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}` },
      });
      try {
        const r = await t.call("fix_all", { path: other });
        expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({ success: true });
        const ours = treeHash(other);
        const theirs = treeHash(fixedDirectly);
        for (const file of Object.keys(theirs).filter((f) => f.endsWith(".go")))
          expect(ours[file], file).toBe(theirs[file]);
      } finally {
        await t.close();
      }
    });

    it("check --fix fixes with golangci-lint too, then reports what is left (exit 1)", async () => {
      const other = project();
      const run = await runCheck([".", "--fix", "--json", "--result-cache", "false"], { cwd: other });
      const json = parseJson(run);
      expect(json.fixes?.map((f) => [f.id, f.tool, f.success])).toContainEqual([
        "golangci-lint",
        "lint_fix",
        true,
      ]);
      expect(fs.readFileSync(path.join(other, "store", "doc.go"), "utf8")).toBe(
        fs.readFileSync(path.join(fixedDirectly, "store", "doc.go"), "utf8"),
      );
      expect(
        json.findings
          .filter((f) => f.check === "golangci-lint")
          .map((f) => `${f.file}:${f.line} ${f.rule_id}`)
          .sort(),
      ).toEqual(golangci(fixedDirectly, false));
      expect(run.status).toBe(1);
    }, 120_000);
  },
);
