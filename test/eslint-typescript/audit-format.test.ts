/** The audit entry format shared with seed 001's server, both ways, and fix_all's before/after comparison. */
import { describe, expect, it } from "vitest";
import { fromAuditLine, seedAuditFields } from "../../src/fix/seed-interop.js";
import type { TxAuditEntry } from "../../src/fix/tx-audit.js";
import { newDiagnostics } from "../../src/mcp/tools/pipeline/verify.js";
import type { Finding } from "../../src/findings/model.js";

const ours: TxAuditEntry = {
  timestamp: "2026-12-01T09:01:12.541Z",
  run_id: "20261201T090112Z-010f6a11",
  tool: "rollback",
  root: "/repo",
  result: "commit",
  files_written: ["src/count.ts"],
  lock_wait_ms: 3,
  lock_hold_ms: 143,
  rolled_back: ["20261201T090111Z-79162be3"],
};

describe("seed 001's audit fields", () => {
  it("a manual rollback of ours reads as the original writes one, and back as ours", () => {
    const fields = seedAuditFields(ours);
    expect(fields).toEqual({
      runId: ours.run_id,
      cwd: "/repo",
      filesRequested: [],
      operation: "rollback",
      lockAcquiredAt: "2026-12-01T09:01:12.398Z",
      lockReleasedAt: ours.timestamp,
      filesWritten: ["/repo/src/count.ts"],
      snapshotRef: "/repo/.mcp-cache/snapshots/20261201T090112Z-010f6a11",
      durationMs: 146,
      rollbackReason: "manual",
      result: "rollback",
      tx_result: "commit",
    });
    expect(fromAuditLine({ ...ours, ...fields })).toMatchObject({ result: "commit", run_id: ours.run_id });
  });

  it("a verification rollback and a locked-out entry", () => {
    const rolledBack = seedAuditFields({
      ...ours,
      tool: "fix_all",
      result: "rollback",
      reason: "type check (tsc) failed: 1",
    });
    expect(rolledBack).toMatchObject({
      operation: "fix",
      filesWritten: [],
      snapshotRef: null,
      rollbackReason: "tsc-verify-failed",
    });
    const locked = seedAuditFields({
      ...ours,
      tool: "lint_fix",
      result: "locked-out",
      reason: "busy",
      files_written: [],
    });
    expect(locked).toMatchObject({
      lockAcquiredAt: null,
      lockReleasedAt: null,
      error: "busy",
      snapshotRef: null,
    });
  });

  it("reads the original's lines: files relative to its cwd, its manual rollbacks undo their transaction", () => {
    const commit = fromAuditLine({
      runId: "1764579672000-4242-0a1b2c3d",
      timestamp: "2026-12-01T09:01:12.000Z",
      tool: "lint_fix",
      cwd: "/repo",
      filesRequested: ["/repo/src/a.ts"],
      operation: "fix",
      lockAcquiredAt: "2026-12-01T09:01:11.000Z",
      lockReleasedAt: "2026-12-01T09:01:12.000Z",
      result: "commit",
      filesWritten: ["/repo/src/a.ts", "/elsewhere/b.ts"],
      snapshotRef: "/repo/.mcp-cache/snapshots/1764579672000-4242-0a1b2c3d",
      durationMs: 1000,
    });
    expect(commit).toMatchObject({
      run_id: "1764579672000-4242-0a1b2c3d",
      root: "/repo",
      files_written: ["src/a.ts"],
      lock_hold_ms: 1000,
      seed_entry: true,
    });
    const manual = fromAuditLine({
      runId: "1764579672000-4242-0a1b2c3d-rb-1764579680000",
      tool: "rollback",
      cwd: "/repo",
      result: "rollback",
      filesWritten: [],
      rollbackReason: "manual",
    });
    expect(manual).toMatchObject({ rolled_back: ["1764579672000-4242-0a1b2c3d"], reason: "manual" });
    expect(fromAuditLine({ something: "else" })).toBeUndefined();
  });
});

describe("newDiagnostics", () => {
  const f = (file: string, line: number, rule: string, message: string): Finding =>
    ({ tool: "tsc", file, line, column: 1, rule_id: rule, severity: "error", message }) as Finding;
  it("ignores errors that were there before, wherever the fix moved them; counts repeats", () => {
    const before = [f("a.ts", 2, "TS2322", "x"), f("a.ts", 9, "TS2322", "x")];
    const after = [
      f("a.ts", 3, "TS2322", "x"),
      f("a.ts", 10, "TS2322", "x"),
      f("a.ts", 11, "TS2322", "x"),
      f("b.ts", 1, "TS2304", "y"),
    ];
    expect(newDiagnostics(before, after).map((d) => [d.file, d.line])).toEqual([
      ["a.ts", 11],
      ["b.ts", 1],
    ]);
    expect(newDiagnostics(after, before)).toEqual([]);
  });
});
