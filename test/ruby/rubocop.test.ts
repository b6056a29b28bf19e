/**
 * RuboCop through its warm Ruby worker and the real server: lint compared with `rubocop --format json`, Layout
 * formatting, safe and unsafe autocorrection inside transactions, a broken .rubocop.yml, an edited file, and a
 * worker killed at the timeout.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyPatch } from "diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

const FIXTURE = path.join(FIXTURES, "ruby", "project");

function readStat(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return "";
  }
}

interface Offense {
  cop_name: string;
  location: { start_line: number; start_column: number };
}

describe.skipIf(missing("rubocop") || missing("ruby"))("RuboCop", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    s = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
  });
  afterAll(async () => s?.close());

  it("lint reports what rubocop --format json reports, from a warm worker", async () => {
    const direct = spawnSync("rubocop", ["--format", "json", "."], { cwd: project, encoding: "utf8" });
    const expected = (
      JSON.parse(direct.stdout) as { files: { path: string; offenses: Offense[] }[] }
    ).files.flatMap((f) =>
      f.offenses.map((o) => `${f.path}:${o.location.start_line}:${o.location.start_column}: ${o.cop_name}`),
    );
    expect(expected).toHaveLength(5);
    const r = await s.call("lint", { path: ".", linter: "rubocop" });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      returncode: 1,
      issue_count: 5,
      files_inspected: 3,
    });
    expect((r.issues as string[]).map((i) => i.split(" ")[0] + " " + i.split(" ")[1])).toEqual(expected);
    expect(r.issues).toContain("app.rb:5:3: Style/RedundantReturn Redundant `return` detected.");
    expect((r.findings as Record<string, unknown>[])[0]).toMatchObject({
      tool: "rubocop",
      file: path.join(project, "app.rb"),
      line: 4,
      column: 3,
      end_line: 4,
      end_column: 9,
      rule_id: "Lint/UselessAssignment",
      severity: "warning",
      level: "warning",
      correctable: false,
    });
    // A compact lint computes no correction edits (issue 29: only when asked for).
    expect((r.findings as Record<string, unknown>[]).some((f) => f.correction)).toBe(false);
    const full = await s.call("lint", { path: ".", linter: "rubocop", format: "full" });
    const findings = full.findings as Record<string, unknown>[];
    expect(findings.map((f) => [f.rule_id, f.correctable])).toEqual(
      (r.findings as Record<string, unknown>[]).map((f) => [f.rule_id, f.correctable]),
    );
    // Each correctable offense carries its own edits, from RuboCop's corrector; safe per the cop's config.
    expect(findings.find((f) => f.rule_id === "Style/RedundantReturn")?.correction).toEqual({
      safe: true,
      edits: [{ line: 5, column: 3, end_line: 5, end_column: 10, text: "" }],
    });
    expect(findings.find((f) => f.rule_id === "Style/StringConcatenation")?.correction).toMatchObject({
      safe: false,
      edits: [{ line: 5, column: 10, end_line: 5, end_column: 25, text: '"hello #{name}"' }],
    });
    expect(findings.find((f) => f.rule_id === "Lint/UselessAssignment")?.correction).toBeUndefined();
    expect((r.notes as string[])[0]).toBe("the installed rubocop (the project's Gemfile.lock pins none)");
    expect((r.notes as string[])[1]).toMatch(/^cold start: new rubocop worker pid \d+$/);
    const again = await s.call("lint", { path: "lib/clean.rb", linter: "rubocop" });
    expect(again).toMatchObject({ success: true, passed: true, issue_count: 0 });
    expect((again.notes as string[])[1]).toMatch(/^warm rubocop worker pid \d+, request \d+$/);
  });

  it("a fresh server's cold worker loads RuboCop compiled by the last one, kept in the server's folder, not the project", async () => {
    const before = fs.readdirSync(project, { recursive: true }).sort();
    const root = fs.realpathSync(project);
    const key = createHash("sha256").update(root).digest("hex").slice(0, 20);
    const iseqs = path.join(os.tmpdir(), `mcq-${process.getuid?.() ?? "user"}`, `rubocop-iseq-${key}`);
    // The first test's worker compiled what it required (RuboCop and its gems, the worker's own files), kept
    // in one pack: a line of JSON naming each entry (key: offset, length, file), then the binaries.
    const pack = path.join(iseqs, "pack");
    const text = fs.readFileSync(pack);
    const index = JSON.parse(text.subarray(0, text.indexOf("\n")).toString("utf8")) as Record<
      string,
      [number, number, string]
    >;
    expect(Object.keys(index).length).toBeGreaterThan(100);
    expect(Object.values(index).some(([, , file]) => file.endsWith("/rubocop.rb"))).toBe(true);
    expect(fs.readdirSync(iseqs)).toEqual(["pack"]);
    // Loaded, not compiled and written again: the pack is the same file.
    const written = () => {
      const st = fs.statSync(pack);
      return `${st.ino}:${st.mtimeMs}`;
    };
    const compiled = written();
    const first = await s.call("lint", { path: ".", linter: "rubocop" });
    const other = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
    try {
      const r = await other.call("lint", { path: ".", linter: "rubocop" });
      expect((r.notes as string[])[1]).toMatch(/^cold start: new rubocop worker pid \d+$/);
      expect(r.issues).toEqual(first.issues);
      expect(written()).toEqual(compiled);
    } finally {
      await other.close();
    }
    expect(fs.readdirSync(project, { recursive: true }).sort()).toEqual(before);
  });

  it("lint without a linter on a Ruby project runs rubocop", async () => {
    const r = await s.call("lint", { path: "." });
    expect(r).toMatchObject({ success: true, issue_count: 5 });
    expect(r.notes).toContain("linter: rubocop (the project's languages: ruby)");
  });

  it("sees an edited file on the next call", async () => {
    const file = path.join(project, "lib", "clean.rb");
    const before = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, before.replace("'hello'", '"hello"'));
    try {
      const r = await s.call("lint", { path: "lib/clean.rb", linter: "rubocop" });
      expect(r.issues).toEqual([
        "lib/clean.rb:6:5: Style/StringLiterals Prefer single-quoted strings when you don't need string interpolation or special symbols.",
      ]);
    } finally {
      fs.writeFileSync(file, before);
    }
  });

  it("format_check / autoformat apply the Layout cops only", async () => {
    const check = await s.call("format_check", { path: ".", language: "ruby", diff: true });
    expect(check).toMatchObject({ success: true, formatted: false, unformatted_files: ["lib/layout.rb"] });
    expect(check.output).toContain("+  def self.indented");
    const file = path.join(project, "lib", "layout.rb");
    const w = await s.call("autoformat", { path: "lib/layout.rb", language: "ruby" });
    expect(w).toMatchObject({ success: true, changed_files: ["lib/layout.rb"] });
    expect(w.transaction).toMatchObject({ result: "commit" });
    expect(fs.readFileSync(file, "utf8")).toBe(
      "# frozen_string_literal: true\n\nmodule Layout\n  def self.indented\n    1\n  end\nend\n",
    );
    await s.call("rollback", { path: project });
  });

  it("lint_fix: safe corrections by default, unsafe ones with safety unsafe; a dry run writes nothing", async () => {
    const file = path.join(project, "app.rb");
    const before = fs.readFileSync(file, "utf8");
    /** What `rubocop <flag> --stdin` prints as the corrected source (after its ===== line). */
    const corrected = (flag: string) =>
      spawnSync("rubocop", [flag, "--format", "quiet", "--stdin", file], {
        cwd: project,
        input: before,
        encoding: "utf8",
      }).stdout.split(`${"=".repeat(20)}\n`)[1];
    const safeText = corrected("--autocorrect");
    const allText = corrected("--autocorrect-all");
    expect(safeText).toContain("  'hello ' + name");
    expect(allText).toContain('  "hello #{name}"');

    const dry = await s.call("lint_fix", { path: "app.rb", linter: "rubocop", dry_run: true });
    expect(dry).toMatchObject({ success: true, dry_run: true });
    expect(fs.readFileSync(file, "utf8")).toBe(before);
    expect(applyPatch(before, dry.diff as string)).toBe(safeText);

    const safe = await s.call("lint_fix", { path: "app.rb", linter: "rubocop" });
    expect(safe).toMatchObject({ success: true, changed_files: [file] });
    expect(fs.readFileSync(file, "utf8")).toBe(safeText);
    await s.call("rollback", { path: project });
    expect(fs.readFileSync(file, "utf8")).toBe(before);

    const unsafe = await s.call("lint_fix", { path: "app.rb", linter: "rubocop", safety: "unsafe" });
    expect(unsafe).toMatchObject({ success: true, changed_files: [file] });
    expect(fs.readFileSync(file, "utf8")).toBe(allText);
    const left = (unsafe.files as Record<string, unknown>[])[0];
    expect(left).toMatchObject({
      status: "fixable",
      messages: [{ line: 4, column: 3, rule_id: "Lint/UselessAssignment" }],
    });
    await s.call("rollback", { path: project });
  });

  it("a broken .rubocop.yml is a tool_error, and the worker works again once it is fixed", async () => {
    const config = path.join(project, ".rubocop.yml");
    const good = fs.readFileSync(config, "utf8");
    fs.writeFileSync(config, "AllCops:\n  TargetRubyVersion: [\n");
    try {
      const r = await s.call("lint", { path: "lib/clean.rb", linter: "rubocop" });
      expect(r).toMatchObject({ success: false, error_type: "tool_error" });
      expect(r.error).toMatch(/RuboCop failed/);
    } finally {
      fs.writeFileSync(config, good);
    }
    const ok = await s.call("lint", { path: "lib/clean.rb", linter: "rubocop" });
    expect(ok).toMatchObject({ success: true, passed: true });
  });
});

describe.skipIf(missing("rubocop") || missing("ruby"))("RuboCop worker at the timeout", () => {
  it("is killed with its group at --timeout and replaced on the next call", async () => {
    const project = copyFixture(FIXTURE);
    const big = Array.from({ length: 100_000 }, (_, i) => `x${i} = "v" + "${i}"`).join("\n");
    fs.writeFileSync(path.join(project, "big.rb"), `${big}\n`);
    const s = await connectStdio({ args: ["--allowed-paths", project, "--timeout", "8"], cwd: project });
    try {
      const slow = await s.call("lint", { path: "big.rb", linter: "rubocop" });
      expect(slow).toMatchObject({ success: false, error_type: "timeout" });
      const pid = Number(/pid (\d+)/.exec(slow.error as string)?.[1]);
      // SIGKILL was sent to its group; wait until the process is gone (reaped) rather than for a set time.
      for (let i = 0; i < 100 && fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(readStat(pid)); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(!fs.existsSync(`/proc/${pid}`) || /\) Z /.test(readStat(pid))).toBe(true);
      fs.rmSync(path.join(project, "big.rb"));
      const next = await s.call("lint", { path: "lib/clean.rb", linter: "rubocop" });
      expect(next).toMatchObject({ success: true, passed: true });
      expect((next.notes as string[])[1]).toMatch(/^cold start: new rubocop worker pid \d+$/);
    } finally {
      await s.close();
    }
  });
});
