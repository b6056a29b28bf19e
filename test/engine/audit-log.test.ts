/** The JSON-lines audit log: rotation, reading across it, corrupt lines, limit clamping, permissions. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../src/engine/audit-log.js";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

describe("AuditLog", () => {
  it("rotates to <file>.1 past the size cap and reads across the rotation, skipping corrupt lines", async () => {
    const dir = tempDir("mcq-audit-");
    const file = path.join(dir, "logs", "audit.log");
    const log = new AuditLog(file, 4096);
    for (let i = 0; i < 40; i++)
      await log.append({
        operation: i % 2 ? "lint" : "format_check",
        path: `/p/${i}`,
        success: true,
        details: { i, pad: "x".repeat(100) },
      });
    expect(fs.existsSync(`${file}.1`)).toBe(true);
    expect(fs.statSync(file).size).toBeLessThanOrEqual(4096);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    fs.appendFileSync(file, "{not json\n\n");
    await log.append({ operation: "lint", path: "/p/40", success: false, details: { i: 40 } });
    const all = await log.read(1000);
    const indices = all.map((e) => e.details.i as number);
    // Everything still on disk (the current file plus one rotation), in order, ending with the newest.
    expect(indices.at(-1)).toBe(40);
    expect(indices).toEqual([...indices].sort((a, b) => a - b));
    expect(indices.length).toBeGreaterThan(fs.readFileSync(file, "utf8").split("\n").length - 4);
    const lint = await log.read(3, (e) => e.operation === "lint");
    expect(lint.map((e) => e.details.i)).toEqual([37, 39, 40]);
  });

  it("reads a missing file as empty", async () => {
    expect(await new AuditLog(path.join(tempDir(), "none.log"), 4096).read(10)).toEqual([]);
  });
});

describe("get_audit_log", () => {
  it("records each call and clamps limit to 1-1000", async () => {
    const dir = tempDir("mcq-audit-mcp-");
    fs.writeFileSync(path.join(dir, "a.py"), "import os\n");
    const s = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      await s.call("lint", { path: "a.py" });
      await s.call("lint", { path: "/etc" });
      await s.call("format_check", { path: "a.py" });
      const lint = await s.call("get_audit_log", { operation: "lint" });
      const entries = lint.entries as {
        operation: string;
        path: string;
        success: boolean;
        details: Record<string, unknown>;
      }[];
      expect(entries.map((e) => [e.operation, e.path, e.success])).toEqual([
        ["lint", path.join(dir, "a.py"), true],
        ["lint", "/etc", false],
      ]);
      expect(entries[0]!.details).toMatchObject({ returncode: 1, passed: false });
      expect(entries[1]!.details).toMatchObject({ error_type: "path_validation" });
      const one = await s.call("get_audit_log", { limit: 0 });
      expect(one.limit).toBe(1);
      expect((one.entries as unknown[]).length).toBe(1);
      expect((await s.call("get_audit_log", { limit: 5000 })).limit).toBe(1000);
      const lines = fs
        .readFileSync(s.auditLog, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(Object.keys(lines[0]).sort()).toEqual(["details", "operation", "path", "success", "timestamp"]);
    } finally {
      await s.close();
    }
  });
});
