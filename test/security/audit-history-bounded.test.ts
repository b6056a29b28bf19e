/**
 * get_audit_log and rollback read the whole audit history into memory (a 400 MB file took the server
 * to 1.9 GB), and rotated files were never pruned. Now audits are read from their end, in chunks, and
 * keep only what they return; rotation keeps the newest KEEP_ROTATED files.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureCacheDir } from "../../src/fix/cache-dir.js";
import { KEEP_ROTATED, TxAudit } from "../../src/fix/tx-audit.js";
import { AuditLog } from "../../src/engine/audit-log.js";
import { connectHttp, startHttp } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** Peak and current resident memory of a process, in MiB. */
function memory(pid: number): { peak: number; now: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) / 1024;
  return { peak: kb("VmHWM"), now: kb("VmRSS") };
}

/** Writes `mb` MiB of JSON lines produced by `line(i)` to `file`, in pieces. */
function writeHistory(file: string, mb: number, line: (i: number) => string): number {
  const fd = fs.openSync(file, "w", 0o600);
  let bytes = 0;
  let i = 0;
  while (bytes < mb * 1024 * 1024) {
    const piece = Array.from({ length: 2000 }, () => line(i++)).join("");
    fs.writeSync(fd, piece);
    bytes += piece.length;
  }
  fs.closeSync(fd);
  return i;
}

describe("audit history", () => {
  it("get_audit_log over a 150 MB transaction audit and server log stays small in memory", async () => {
    const proj = tempDir("mcq-bigaudit-");
    fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
    const paths = await ensureCacheDir(proj);
    const pad = "x".repeat(200);
    const n = writeHistory(
      paths.audit,
      150,
      (i) =>
        JSON.stringify({
          timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
          run_id: `run-${i}`,
          tool: i % 2 ? "lint_fix" : "autoformat",
          root: proj,
          result: "commit",
          files_written: [`f${i}.py`],
          lock_wait_ms: 0,
          lock_hold_ms: 1,
          pad,
        }) + "\n",
    );
    const auditLog = path.join(tempDir("mcq-bigaudit-log-"), "audit.log");
    writeHistory(
      auditLog,
      60,
      (i) =>
        JSON.stringify({
          timestamp: new Date().toISOString(),
          operation: "lint",
          path: null,
          success: true,
          details: { i, pad },
        }) + "\n",
    );
    const server = await startHttp({
      args: ["--allowed-paths", proj, "--audit-log", auditLog, "--audit-log-max-bytes", String(2 ** 30)],
    });
    const s = await connectHttp(server);
    try {
      const pid = server.child.pid as number;
      const before = memory(pid);
      const r = await s.call("get_audit_log", { path: proj, limit: 3 });
      expect(r.success).toBe(true);
      expect((r.entries as { run_id: string }[]).map((e) => e.run_id)).toEqual([
        `run-${n - 3}`,
        `run-${n - 2}`,
        `run-${n - 1}`,
      ]);
      const tx = await s.call("get_audit_log", { path: proj, limit: 2, tool: "autoformat" });
      expect((tx.entries as unknown[]).length).toBe(2);
      const log = await s.call("get_audit_log", { limit: 5 });
      expect((log.entries as unknown[]).length).toBe(5);
      // A rollback plans from the same audit (the newest transaction's snapshot is missing: nothing to restore).
      const rb = await s.call("rollback", { path: proj });
      expect(JSON.stringify(rb)).toContain(`run-${n - 1}`);
      const after = memory(pid);
      // Reading the files whole took at least their size (210 MB) as strings, more once parsed.
      expect(after.peak - before.peak).toBeLessThan(64);
    } finally {
      await s.close();
      await server.stop();
      // 210 MB of history: not left in the temp directory.
      fs.rmSync(proj, { recursive: true, force: true });
      fs.rmSync(path.dirname(auditLog), { recursive: true, force: true });
    }
  }, 180_000);

  it("rotation keeps the newest rotated files only", async () => {
    const proj = tempDir("mcq-rotate-");
    const paths = await ensureCacheDir(proj);
    const audit = new TxAudit(paths.audit, 4096);
    for (let i = 0; i < 200; i++) {
      await audit.append({
        run_id: `r${i}`,
        tool: "lint_fix",
        root: proj,
        result: "commit",
        files_written: ["a.py"],
        lock_wait_ms: 0,
        lock_hold_ms: 0,
        pad: "y".repeat(200),
      });
      // Rotated names carry the time in milliseconds: keep them apart.
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 2));
    }
    const rotated = fs.readdirSync(paths.dir).filter((f) => /^audit\.jsonl\..+\.jsonl$/.test(f));
    expect(rotated.length).toBeLessThanOrEqual(KEEP_ROTATED);
    expect(rotated.length).toBeGreaterThan(0);
    // The newest entries are all still readable, oldest first.
    const last = await audit.read({ limit: 5 });
    expect(last.map((e) => e.run_id)).toEqual(["r195", "r196", "r197", "r198", "r199"]);
  });

  it("the server's audit log reads the newest matching entries across its rotation", async () => {
    const file = path.join(tempDir("mcq-srvaudit-"), "audit.log");
    const log = new AuditLog(file, 4096);
    for (let i = 0; i < 60; i++)
      await log.append({ operation: i % 3 ? "lint" : "rollback", path: null, success: true, details: { i } });
    const r = await log.read(2, (e) => e.operation === "rollback");
    expect(r.map((e) => e.details.i)).toEqual([54, 57]);
  });
});
