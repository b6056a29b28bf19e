/**
 * The eslint-typescript drop-in (`--toolsets eslint-typescript`): seed 001's six tools, camelCase
 * parameters and exact result shape, through the SDK client over stdio, on fixture projects with the
 * bundled ESLint and TypeScript (real workers, real writes, real transactions).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";
import {
  auditLines,
  dropIn,
  expectValid,
  NOTE,
  ORIGINAL,
  readTree,
  rel,
  type DropIn,
  type Json,
} from "./drop-in.js";

const JS = path.join(FIXTURES, "js");

/** The note's sentence for a project without an eslint.config.* (issue 30: said, as the original fails there). */
const defaultConfig = (dir: string) =>
  `No eslint.config.* in ${dir}: used the bundled default config (@eslint/js recommended + ` +
  "typescript-eslint recommended); the original server fails without the project's config.";
const RESULT_KEYS = ["tool", "success", "workingDirectory", "files", "summary", "note"];
const FILE_KEYS = ["file", "status", "errorCount", "warningCount", "messages"];
const SUMMARY_KEYS = [
  "totalFiles",
  "totalErrors",
  "totalWarnings",
  "fixedFiles",
  "durationMs",
  "scope",
  "dryRun",
];

/** seed 001's exact keys, at every level (the original's schema allows `error` too). */
function expectSeedShape(r: Json, tool: string): void {
  expect(Object.keys(r).filter((k) => k !== "error")).toEqual(RESULT_KEYS);
  expect(r.tool).toBe(tool);
  expect(Object.keys(r.summary as Json)).toEqual(SUMMARY_KEYS);
  for (const f of r.files as Json[]) {
    expect(Object.keys(f)).toEqual(FILE_KEYS);
    // audit_log's records name a runId, as the original's do.
    if (tool !== "audit_log") expect(path.isAbsolute(f.file as string)).toBe(true);
  }
  expect((r.note as string).startsWith(NOTE)).toBe(true);
}

/** An argument error: an isError result in the original's shape, carrying the validation message. */
async function invalidResult(s: DropIn, name: string, args: Json): Promise<string> {
  const r = await s.call(name, args);
  expect(r).toMatchObject({ tool: name, success: false, files: [] });
  expect(r.note).toMatch(/Error type: invalid_input\./);
  return r.error as string;
}

describe("the surface", () => {
  let dir: string;
  let s: DropIn;
  beforeAll(async () => {
    dir = copyFixture(path.join(JS, "no-toolchain"));
    s = await dropIn(dir);
  });
  afterAll(() => s.close());

  it("tools/list: the original's six tools, parameters, ranges and enums, and its outputSchema", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ORIGINAL.map((t) => t.name));
    const stripDescriptions = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(stripDescriptions)
        : v && typeof v === "object"
          ? Object.fromEntries(
              Object.entries(v)
                .filter(([k]) => k !== "description")
                .map(([k, x]) => [k, stripDescriptions(x)]),
            )
          : v;
    for (const original of ORIGINAL) {
      const ours = tools.find((t) => t.name === original.name)!;
      // The same output schema, field for field.
      expect(stripDescriptions(ours.outputSchema)).toEqual(stripDescriptions(original.outputSchema));
      // The same parameters in the same order, each with the original's type, enum and range.
      const props = (ours.inputSchema as { properties: Record<string, Json> }).properties;
      expect(Object.keys(props)).toEqual(Object.keys(original.inputSchema.properties));
      expect(ours.inputSchema).toMatchObject({ additionalProperties: false });
      for (const [name, want] of Object.entries(original.inputSchema.properties)) {
        const got = props[name] as Json;
        expect(got.type, `${original.name}.${name}`).toEqual(want.type);
        for (const k of ["enum", "maximum", "exclusiveMinimum", "format", "items"])
          if (k in want) expect(got[k], `${original.name}.${name}.${k}`).toEqual(want[k]);
      }
    }
    const auditLog = tools.find((t) => t.name === "audit_log")?.inputSchema as { properties: Json };
    expect(auditLog.properties.limit).toMatchObject({ default: 50, maximum: 500 });
    const fixAll = tools.find((t) => t.name === "fix_all")?.inputSchema as { properties: Json };
    expect(fixAll.properties.verify).toMatchObject({ default: true });
    const lintFix = tools.find((t) => t.name === "lint_fix")?.inputSchema as { properties: Json };
    expect(lintFix.properties.verify).toMatchObject({ default: false });
    expect(lintFix.properties.autoRollback).toMatchObject({ default: true });
  });

  it("invalid and unknown arguments are isError results with the validation message (nothing runs)", async () => {
    expect(await invalidResult(s, "lint_fix", { dry_run: true })).toMatch(/unknown argument\(s\) dry_run/);
    expect(await invalidResult(s, "fix_all", { auto_rollback: false })).toMatch(/auto_rollback/);
    expect(await invalidResult(s, "lint", { path: "." })).toMatch(/unknown argument\(s\) path/);
    expect(await invalidResult(s, "lint", { dryRun: true })).toMatch(/unknown argument\(s\) dryRun/);
    expect(await invalidResult(s, "rollback", { count: 21 })).toMatch(/count/);
    expect(await invalidResult(s, "rollback", { count: 0 })).toMatch(/count/);
    expect(await invalidResult(s, "audit_log", { limit: 501 })).toMatch(/limit/);
    expect(await invalidResult(s, "audit_log", { tool: "lint" })).toMatch(/tool/);
    expect(await invalidResult(s, "lint", { format: "verbose" })).toMatch(/format/);
    expect(fs.existsSync(path.join(dir, ".mcp-cache"))).toBe(false);
  });

  it("lint: seed 001's shape; compact drops clean files, full lists them; files filters the scope", async () => {
    const r = await s.call("lint", {});
    expectSeedShape(r, "lint");
    expect(r.success).toBe(true);
    expect(r.workingDirectory).toBe(dir);
    expect(rel(dir, r)).toEqual([
      ["src/legacy.js", "unfixable", 2],
      ["src/util.ts", "fixable", 2],
    ]);
    expect((r.files as Json[])[1]?.messages).toEqual([
      {
        ruleId: "prefer-const",
        severity: "error",
        message: "'total' is never reassigned. Use 'const' instead.",
        line: 2,
        column: 7,
        endLine: 2,
        endColumn: 12,
        fixable: true,
        messageId: "useConst",
      },
      {
        ruleId: "@typescript-eslint/no-explicit-any",
        severity: "error",
        message: "Unexpected any. Specify a different type.",
        line: 6,
        column: 24,
        endLine: 6,
        endColumn: 27,
        fixable: false,
        messageId: "unexpectedAny",
      },
    ]);
    expect(r.summary).toMatchObject({
      totalFiles: 4,
      totalErrors: 4,
      totalWarnings: 0,
      fixedFiles: 0,
      scope: "full",
      dryRun: false,
    });
    // The fixture has no eslint.config.*: the note says the bundled default was used.
    expect(r.note).toBe(`${NOTE} ${defaultConfig(dir)}`);

    const full = await s.call("lint", { files: ["src/*.ts"], format: "full" });
    expectSeedShape(full, "lint");
    expect(rel(dir, full)).toEqual([
      ["src/ignored.ts", "clean", 0],
      ["src/messy.ts", "clean", 0],
      ["src/util.ts", "fixable", 2],
    ]);
    expect(full.summary).toMatchObject({ totalFiles: 3, totalErrors: 2, scope: "filtered" });
  });

  it("lint_fix dryRun reports would-fix and writes nothing (no lock, no .mcp-cache); a real fix writes", async () => {
    const before = readTree(dir);
    const dry = await s.call("lint_fix", { dryRun: true });
    expectSeedShape(dry, "lint_fix");
    expect(rel(dir, dry)).toEqual([
      ["src/legacy.js", "unfixable", 2],
      ["src/util.ts", "would-fix", 1],
    ]);
    expect(dry.summary).toMatchObject({ fixedFiles: 1, dryRun: true, scope: "full" });
    expect(readTree(dir)).toEqual(before);
    expect(fs.existsSync(path.join(dir, ".mcp-cache"))).toBe(false);

    const fixed = await s.call("lint_fix", { files: ["src/util.ts"] });
    expectSeedShape(fixed, "lint_fix");
    // As the original: fixed, with a problem left that has no fix (no-explicit-any): unfixable.
    expect(rel(dir, fixed)).toEqual([["src/util.ts", "unfixable", 1]]);
    expect(fixed.summary).toMatchObject({ totalErrors: 1, fixedFiles: 1, dryRun: false, scope: "filtered" });
    expect(fs.readFileSync(path.join(dir, "src", "util.ts"), "utf8")).toContain("const total = a + b;");
    expect(fixed.note).toBe(`${NOTE} ${defaultConfig(dir)}`);

    // A file that is fixed completely is "fixed".
    fs.writeFileSync(
      path.join(dir, "src", "only-let.ts"),
      "export function f(): number {\n  let x = 1;\n  return x;\n}\n",
    );
    const clean = await s.call("lint_fix", { files: ["src/only-let.ts"] });
    expect(rel(dir, clean)).toEqual([["src/only-let.ts", "fixed", 0]]);
  });
});

describe("typecheck", () => {
  let dir: string;
  let s: DropIn;
  beforeAll(async () => {
    dir = copyFixture(path.join(JS, "type-errors"));
    s = await dropIn(dir);
  });
  afterAll(() => s.close());

  it("reports tsc's errors per file; files (paths or globs) filter the view and scope says so", async () => {
    const all = await s.call("typecheck", {});
    expectSeedShape(all, "typecheck");
    expect(rel(dir, all)).toEqual([
      ["src/a.ts", "unfixable", 1],
      ["src/b.ts", "unfixable", 1],
      ["src/c.ts", "unfixable", 1],
    ]);
    expect((all.files as Json[])[0]?.messages).toEqual([
      {
        ruleId: "TS2322",
        severity: "error",
        message: "Type 'number' is not assignable to type 'string'.",
        line: 4,
        column: 14,
        endLine: 4,
        endColumn: 19,
        fixable: false,
      },
    ]);
    expect(all.success).toBe(false);
    expect(all.summary).toMatchObject({ totalFiles: 3, totalErrors: 3, scope: "full", fixedFiles: 0 });

    const one = await s.call("typecheck", { files: ["src/c.ts"] });
    expect(rel(dir, one)).toEqual([["src/c.ts", "unfixable", 1]]);
    expect(one.summary).toMatchObject({ totalFiles: 1, totalErrors: 1, scope: "filtered" });

    const glob = await s.call("typecheck", { files: ["src/[ab].ts"] });
    expect(rel(dir, glob).map((f) => f[0])).toEqual(["src/a.ts", "src/b.ts"]);
    expect(glob.summary).toMatchObject({ scope: "filtered" });

    const clean = await s.call("typecheck", { files: ["src/ok.ts"] });
    expect(clean).toMatchObject({ success: true, files: [], summary: { totalErrors: 0, scope: "filtered" } });

    const outside = await s.call("typecheck", { files: ["../**"] });
    expect(outside).toMatchObject({ tool: "typecheck", success: false, workingDirectory: dir, files: [] });
    expect(outside.error).toMatch(/outside/);
    expect(outside.note).toMatch(/Error type: path_validation\. Allowed paths: /);
  });
});

describe("fix_all, rollback and audit_log", () => {
  it("a fix that introduces a type error is rolled back byte for byte; autoRollback false keeps it; rollback undoes it", async () => {
    const dir = copyFixture(path.join(JS, "fix-breaks-types"));
    const before = readTree(dir);
    const s = await dropIn(dir);
    try {
      const dry = await s.call("fix_all", { dryRun: true });
      expectSeedShape(dry, "fix_all");
      expect(rel(dir, dry)).toEqual([
        ["src/count.ts", "would-fix", 0],
        ["src/direction.ts", "would-fix", 1],
      ]);
      expect(dry.summary).toMatchObject({ fixedFiles: 2, dryRun: true });
      expect(dry.note).toBe(
        `${NOTE} ${defaultConfig(dir)} Dry run: nothing was written and the type check was not run.`,
      );
      expect(readTree(dir)).toEqual(before);
      expect(fs.existsSync(path.join(dir, ".mcp-cache"))).toBe(false);

      const r = await s.call("fix_all", {});
      expectSeedShape(r, "fix_all");
      expect(r.success).toBe(false);
      // The statuses and the type error describe the fix that was undone.
      expect(rel(dir, r)).toEqual([
        ["src/count.ts", "fixed", 0],
        ["src/direction.ts", "unfixable", 2],
      ]);
      expect(((r.files as Json[])[1]?.messages as Json[]).map((m) => m.ruleId)).toEqual([
        "@typescript-eslint/no-unused-vars",
        "TS2322",
      ]);
      expect(r.summary).toMatchObject({ totalErrors: 2, fixedFiles: 0, dryRun: false, scope: "full" });
      expect(r.note).toBe(
        `${NOTE} ${defaultConfig(dir)} Rolled back: type check (tsc) failed: 1 error(s), first: src/direction.ts:5:14: TS2322 ` +
          `Type '"down"' is not assignable to type '"up"'. Every file ESLint wrote was restored (2); the ` +
          "statuses and type errors above describe the undone fix.",
      );
      expect(readTree(dir)).toEqual(before);

      const rolledBack = await s.call("audit_log", { result: "rollback" });
      expectSeedShape(rolledBack, "audit_log");
      expect(rolledBack).toMatchObject({ success: true, workingDirectory: dir });
      expect(rolledBack.files).toEqual([
        {
          file: expect.stringMatching(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/),
          status: "clean",
          errorCount: 0,
          warningCount: 1,
          messages: [
            {
              ruleId: "rollback",
              severity: "warning",
              message: expect.stringMatching(
                /^fix_all rollback at \S+; filesWritten=2; durationMs=\d+; reason=tsc-verify-failed; detail=type check \(tsc\) failed: 1 error\(s\), first: src\/direction\.ts:5:14: TS2322/,
              ),
              line: 0,
              column: 0,
              fixable: false,
            },
          ],
        },
      ]);
      expect(rolledBack.summary).toMatchObject({ totalFiles: 1, fixedFiles: 0, scope: "filtered" });

      const kept = await s.call("fix_all", { autoRollback: false });
      expectSeedShape(kept, "fix_all");
      expect(kept.success).toBe(false);
      expect(kept.summary).toMatchObject({ totalErrors: 2, fixedFiles: 2 });
      expect(kept.note).toMatch(/Type check \(tsc\) failed and the fix was kept: autoRollback is off\./);
      expect(fs.readFileSync(path.join(dir, "src", "direction.ts"), "utf8")).toContain(
        'const direction = "up";',
      );

      const skipped = await s.call("fix_all", { skipTypecheck: true, files: ["src/count.ts"] });
      expectSeedShape(skipped, "fix_all");
      expect(skipped.success).toBe(true);
      expect(skipped.summary).toMatchObject({ scope: "filtered", fixedFiles: 0 });
      expect(skipped.note).toMatch(/Type check skipped \(skipTypecheck\)/);

      // count 1: the newest transaction that wrote something (the skipTypecheck run wrote nothing).
      const undo = await s.call("rollback", { count: 1 });
      expectSeedShape(undo, "rollback");
      expect(undo.success).toBe(true);
      expect(rel(dir, undo)).toEqual([
        ["src/count.ts", "fixed", 0],
        ["src/direction.ts", "fixed", 0],
      ]);
      expect(undo.summary).toMatchObject({ totalFiles: 2, fixedFiles: 2 });
      expect(undo.note).toMatch(/Rolled back \d{8}T\d{6}Z-[0-9a-f]{8} \(fix_all, /);
      expect(readTree(dir)).toEqual(before);

      const trail = await s.call("audit_log", { tool: "fix_all", limit: 10 });
      expect((trail.files as Json[]).map((e) => (e.messages as Json[])[0]?.ruleId)).toEqual([
        "rollback",
        "commit",
        "commit",
      ]);
      expect(trail.summary).toMatchObject({ totalFiles: 3, fixedFiles: 2 });
      // A manual rollback is audited as the original does: result rollback, reason manual.
      const rollbacks = await s.call("audit_log", { tool: "rollback" });
      expect(((rollbacks.files as Json[]).at(-1)?.messages as Json[])[0]).toMatchObject({
        ruleId: "rollback",
        message: expect.stringMatching(/^rollback rollback at .*; reason=manual/),
      });
      const lastLine = auditLines(dir).at(-1) as Json;
      expect(lastLine).toMatchObject({
        tool: "rollback",
        operation: "rollback",
        result: "rollback",
        rollbackReason: "manual",
      });
      expect(await invalidResult(s, "audit_log", { result: "bogus" })).toMatch(/result/);
    } finally {
      await s.close();
    }
  });

  it("rollback by since, and a file edited after the fix is reported as a conflict, not overwritten", async () => {
    const dir = copyFixture(path.join(JS, "no-toolchain"));
    const s = await dropIn(dir);
    try {
      const since = new Date().toISOString();
      await s.call("lint_fix", { files: ["src/util.ts"] });
      fs.writeFileSync(path.join(dir, "src", "util.ts"), "export const edited = 1;\n");
      const r = await s.call("rollback", { since });
      expectSeedShape(r, "rollback");
      expect(rel(dir, r)).toEqual([["src/util.ts", "unfixable", 0]]);
      expect(r.note).toMatch(/1 file\(s\) changed after their transaction and were left as they are\./);
      expect(r.note).toMatch(/Left alone \(changed after their transaction\): src\/util\.ts\./);
      expect(fs.readFileSync(path.join(dir, "src", "util.ts"), "utf8")).toBe("export const edited = 1;\n");
    } finally {
      await s.close();
    }
  });
});

describe("start-up and seed 001's environment variables", () => {
  it("--toolsets core,eslint-typescript stops the server with a message naming the clash", () => {
    const run = spawnSync(
      process.execPath,
      [CLI, "--mode", "stdio", "--toolsets", "core,eslint-typescript"],
      {
        encoding: "utf8",
        input: "",
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'mcp-code-quality: --toolsets: core and eslint-typescript both define the tool "lint"; choose one\n',
    );
  });

  it("ESLINT_MCP_LOG_LEVEL is read (a bad value is a start-up error naming it)", () => {
    const run = spawnSync(process.execPath, [CLI, "--mode", "stdio", "--toolsets", "eslint-typescript"], {
      encoding: "utf8",
      input: "",
      env: { ...process.env, ESLINT_MCP_LOG_LEVEL: "loud", MCP_CODE_QUALITY_LOG_LEVEL: undefined },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--log-level \(from ESLINT_MCP_LOG_LEVEL\): expected one of debug, info/);
  });

  it("ESLINT_MCP_ALLOW_DIRS lets a second root in (and only with it)", async () => {
    const home = copyFixture(path.join(JS, "no-toolchain"));
    const other = copyFixture(path.join(JS, "type-errors"));
    const start = (env: Record<string, string | undefined>) =>
      connectStdio({
        args: ["--toolsets", "eslint-typescript"],
        cwd: home,
        env: { MCP_CODE_QUALITY_ALLOWED_PATHS: undefined, ...env },
      });
    const without = await start({ ESLINT_MCP_ALLOW_DIRS: undefined });
    const refused = await without.call("typecheck", { cwd: other });
    await without.close();
    expectValid("typecheck", refused);
    expect(refused).toMatchObject({ tool: "typecheck", success: false, workingDirectory: other });
    expect(refused.note).toMatch(/Error type: path_validation/);

    const withIt = await start({ ESLINT_MCP_ALLOW_DIRS: `/nonexistent-root:${other}` });
    try {
      const r = await withIt.call("typecheck", { cwd: other });
      expectValid("typecheck", r);
      expectSeedShape(r, "typecheck");
      expect(r.workingDirectory).toBe(other);
      expect(r.summary).toMatchObject({ totalErrors: 3 });
      const local = await withIt.call("lint", {});
      expectValid("lint", local);
      expect(local.workingDirectory).toBe(home);
    } finally {
      await withIt.close();
    }
  });

  it("ESLINT_MCP_SNAPSHOT_MAX_BYTES caps the snapshot: commit-no-snapshot, and the note says so", async () => {
    const dir = copyFixture(path.join(JS, "no-toolchain"));
    const s = await dropIn(dir, {
      ESLINT_MCP_SNAPSHOT_MAX_BYTES: "10",
      MCP_CODE_QUALITY_SNAPSHOT_MAX_BYTES: undefined,
    });
    try {
      const r = await s.call("lint_fix", { files: ["src/util.ts"] });
      expectSeedShape(r, "lint_fix");
      expect(r.note).toMatch(/No snapshot: .* over --snapshot-max-bytes \(10\); automatic rollback is off/);
      const audit = await s.call("audit_log", {});
      expect(audit.files).toMatchObject([
        { status: "fixable", messages: [{ ruleId: "commit-no-snapshot" }] },
      ]);
    } finally {
      await s.close();
    }
  });

  it("ESLINT_MCP_AUDIT_MAX_BYTES rotates the audit file", async () => {
    const dir = copyFixture(path.join(JS, "no-toolchain"));
    const s = await dropIn(dir, {
      ESLINT_MCP_AUDIT_MAX_BYTES: "4096",
      MCP_CODE_QUALITY_CACHE_AUDIT_MAX_BYTES: undefined,
    });
    try {
      for (let i = 0; i < 20; i++) await s.call("lint_fix", { files: ["src/messy.ts"] });
      const audit = await s.call("audit_log", { limit: 500 });
      const cache = path.join(dir, ".mcp-cache");
      const rotated = fs.readdirSync(cache).filter((f) => /^audit\.jsonl\..+\.jsonl$/.test(f));
      expect(rotated.length).toBeGreaterThanOrEqual(1);
      expect(fs.statSync(path.join(cache, "audit.jsonl")).size).toBeLessThanOrEqual(4096);
      // Rotated files are still read.
      expect(audit.files).toHaveLength(20);
    } finally {
      await s.close();
    }
  });
});
