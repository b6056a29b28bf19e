/**
 * `.mcp-cache/` shared with the original seed 001 server, both ways: a trail and snapshot in the original's
 * format (eslint-typescript-mcp 1.2.0: `audit.jsonl` lines of its AuditEntry, `snapshots/<runId>/manifest.json`
 * with `entries` and blobs named by sha256 beside it) is read and rolled back by ours; ours is written so the
 * original's reader and restore find what they need.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";
import { auditLines, dropIn, readTree, rel, type Json } from "./drop-in.js";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** What the original leaves after a committed lint_fix on `files` (relative), as its transaction.ts writes it. */
function originalCommit(dir: string, runId: string, files: Record<string, string>, at: Date): Json {
  const snap = path.join(dir, ".mcp-cache", "snapshots", runId);
  fs.mkdirSync(snap, { recursive: true });
  const entries = Object.keys(files).map((rel) => {
    const abs = path.join(dir, rel);
    const before = fs.readFileSync(abs);
    fs.writeFileSync(path.join(snap, sha(before)), before);
    return { absPath: abs, sha256: sha(before), size: before.length, mtimeMs: fs.statSync(abs).mtimeMs };
  });
  fs.writeFileSync(
    path.join(snap, "manifest.json"),
    JSON.stringify({ runId, cwd: dir, createdAt: at.toISOString(), truncated: false, entries }, null, 2),
  );
  for (const [rel, after] of Object.entries(files)) fs.writeFileSync(path.join(dir, rel), after);
  const released = new Date();
  return {
    runId,
    timestamp: at.toISOString(),
    tool: "lint_fix",
    cwd: dir,
    filesRequested: Object.keys(files).map((f) => path.join(dir, f)),
    operation: "fix",
    lockAcquiredAt: at.toISOString(),
    lockReleasedAt: released.toISOString(),
    result: "commit",
    filesWritten: Object.keys(files).map((f) => path.join(dir, f)),
    snapshotRef: snap,
    durationMs: released.getTime() - at.getTime(),
  };
}

function writeAudit(dir: string, entries: Json[]): void {
  fs.writeFileSync(
    path.join(dir, ".mcp-cache", "audit.jsonl"),
    entries.map((e) => JSON.stringify(e) + "\n").join(""),
  );
}

describe("a trail the original wrote", () => {
  it("is listed by audit_log and rolled back by our rollback; an edited file is left alone", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "no-toolchain"));
    const before = readTree(dir);
    const t0 = new Date(Date.now() - 60_000);
    const first = originalCommit(
      dir,
      `${t0.getTime()}-4242-0a1b2c3d`,
      { "src/util.ts": "export const a = 1;\n" },
      t0,
    );
    const t1 = new Date(Date.now() - 30_000);
    const second = originalCommit(
      dir,
      `${t1.getTime()}-4242-deadbeef`,
      { "src/messy.ts": "export const m = 1;\n", "src/legacy.js": "export const l = 1;\n" },
      t1,
    );
    const locked = {
      ...second,
      runId: `${Date.now()}-4243-00000000`,
      result: "locked-out",
      lockAcquiredAt: null,
      lockReleasedAt: null,
      filesWritten: [],
      snapshotRef: null,
      error: "Lock acquisition failed: busy",
    };
    writeAudit(dir, [first, second, locked]);
    // Edited by hand after the original's second transaction.
    await new Promise((r) => setTimeout(r, 1500));
    fs.writeFileSync(path.join(dir, "src", "legacy.js"), "export const edited = 2;\n");

    const s = await dropIn(dir);
    try {
      const trail = await s.call("audit_log", {});
      expect((trail.files as Json[]).map((f) => [f.file, f.status])).toEqual([
        [first.runId, "fixed"],
        [second.runId, "fixed"],
        [locked.runId, "error"],
      ]);
      expect(((trail.files as Json[])[2]?.messages as Json[])[0]?.message).toMatch(
        /error=Lock acquisition failed: busy/,
      );

      const undo = await s.call("rollback", { count: 1 });
      expect(rel(dir, undo)).toEqual([
        ["src/messy.ts", "fixed", 0],
        ["src/legacy.js", "unfixable", 0],
      ]);
      expect(undo.note).toMatch(/Left alone \(changed after their transaction\): src\/legacy\.js\./);
      expect(fs.readFileSync(path.join(dir, "src", "messy.ts"))).toEqual(before.get("src/messy.ts"));
      expect(fs.readFileSync(path.join(dir, "src", "legacy.js"), "utf8")).toBe("export const edited = 2;\n");

      const rest = await s.call("rollback", { since: t0.toISOString() });
      expect(rel(dir, rest).map((f) => f[0])).toContain("src/util.ts");
      expect(fs.readFileSync(path.join(dir, "src", "util.ts"))).toEqual(before.get("src/util.ts"));
    } finally {
      await s.close();
    }
  });

  it("a manual rollback the original audited marks its transaction undone for ours", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "no-toolchain"));
    const t0 = new Date(Date.now() - 60_000);
    const commit = originalCommit(
      dir,
      `${t0.getTime()}-77-11111111`,
      { "src/util.ts": "export const a = 1;\n" },
      t0,
    );
    const manual = {
      ...commit,
      runId: `${commit.runId}-rb-${Date.now()}`,
      timestamp: new Date().toISOString(),
      tool: "rollback",
      filesRequested: [],
      operation: "rollback",
      lockReleasedAt: null,
      result: "rollback",
      filesWritten: [],
      durationMs: 0,
      rollbackReason: "manual",
    };
    writeAudit(dir, [commit, manual]);
    const s = await dropIn(dir);
    try {
      const r = await s.call("rollback", {});
      expect(r.files).toEqual([]);
      expect(r.note).toMatch(/No committed transaction to roll back matched/);
      const manualOnes = await s.call("audit_log", { result: "rollback" });
      expect((manualOnes.files as Json[]).map((f) => f.file)).toContain(manual.runId);
    } finally {
      await s.close();
    }
  });
});

describe("a trail ours wrote, as the original reads it", () => {
  it("every line has the original's fields; a commit's snapshot has its entries and blobs", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "fix-breaks-types"));
    const before = readTree(dir);
    const s = await dropIn(dir);
    try {
      await s.call("fix_all", {});
      await s.call("lint_fix", {});
    } finally {
      await s.close();
    }
    const lines = auditLines(dir);
    expect(lines.map((l) => [l.tool, l.result])).toEqual([
      ["fix_all", "rollback"],
      ["lint_fix", "commit"],
    ]);
    for (const l of lines) {
      expect(typeof l.runId).toBe("string");
      expect(l.cwd).toBe(dir);
      expect(l.operation).toBe("fix");
      expect(Array.isArray(l.filesRequested)).toBe(true);
      expect(typeof l.lockAcquiredAt).toBe("string");
      expect(typeof l.lockReleasedAt).toBe("string");
      expect(Number.isInteger(l.durationMs)).toBe(true);
      expect(Date.parse(l.timestamp as string)).not.toBeNaN();
    }
    const [rolledBack, commit] = lines as [Json, Json];
    expect(commit.filesWritten).toEqual([path.join(dir, "src/count.ts"), path.join(dir, "src/direction.ts")]);
    expect(rolledBack).toMatchObject({ filesWritten: [], rollbackReason: "tsc-verify-failed" });

    // The original's rollback: loadSnapshot(runId) reads manifest.entries, restore reads <dir>/<sha256>.
    const snap = commit.snapshotRef as string;
    expect(snap).toBe(path.join(dir, ".mcp-cache", "snapshots", commit.runId as string));
    const manifest = JSON.parse(fs.readFileSync(path.join(snap, "manifest.json"), "utf8")) as {
      entries: { absPath: string; sha256: string }[];
    };
    expect(manifest.entries.map((e) => path.relative(dir, e.absPath))).toEqual([
      "src/count.ts",
      "src/direction.ts",
    ]);
    for (const e of manifest.entries) {
      const blob = fs.readFileSync(path.join(snap, e.sha256));
      expect(sha(blob)).toBe(e.sha256);
      expect(blob).toEqual(before.get(path.relative(dir, e.absPath)));
    }
  });
});
