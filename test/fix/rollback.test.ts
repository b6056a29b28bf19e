import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cachePaths } from "../../src/fix/cache-dir.js";
import { FIX_PROJECT, fixProject, noRuff, serverFor, txEntries } from "./helpers.js";

const original = (name: string) => fs.readFileSync(path.join(FIX_PROJECT, "pkg", name), "utf8");
const current = (dir: string, name: string) => fs.readFileSync(path.join(dir, "pkg", name), "utf8");

describe("rollback", () => {
  it.skipIf(noRuff())("undoes by count, newest first, then by since", async () => {
    const dir = fixProject();
    const s = await serverFor(dir);
    const t0 = new Date().toISOString();
    await s.call("lint_fix", { path: ".", files: ["pkg/m1.py"] });
    const t1 = new Date().toISOString();
    await s.call("lint_fix", { path: ".", files: ["pkg/m2.py"] });
    await s.call("autoformat", { path: "pkg/m3.py" });
    const fixed = ["m1.py", "m2.py", "m3.py"].map((f) => current(dir, f));
    for (const [i, f] of ["m1.py", "m2.py", "m3.py"].entries()) expect(fixed[i]).not.toBe(original(f));

    const two = await s.call("rollback", { path: ".", count: 2 });
    expect((two.transactions as { tool: string }[]).map((t) => t.tool)).toEqual(["autoformat", "lint_fix"]);
    expect((two.restored as { file: string }[]).map((r) => r.file)).toEqual(["pkg/m3.py", "pkg/m2.py"]);
    expect(current(dir, "m3.py")).toBe(original("m3.py"));
    expect(current(dir, "m2.py")).toBe(original("m2.py"));
    expect(current(dir, "m1.py")).toBe(fixed[0]);

    // Already rolled back transactions are not picked again; `since` selects by time.
    const none = await s.call("rollback", { path: ".", since: t1 });
    expect(none.rolled_back).toEqual([]);
    const rest = await s.call("rollback", { path: "pkg", since: t0 });
    expect((rest.restored as { file: string }[]).map((r) => r.file)).toEqual(["pkg/m1.py"]);
    expect(current(dir, "m1.py")).toBe(original("m1.py"));

    const entries = await txEntries(s, dir, { tool: "rollback" });
    await s.close();
    expect(entries.map((e) => (e.rolled_back as string[]).length)).toEqual([2, 0, 1]);
    expect(entries.every((e) => e.result === "commit")).toBe(true);
  });

  it.skipIf(noRuff())(
    "reports a file changed since its transaction as a conflict; force overwrites it",
    async () => {
      const dir = fixProject();
      const s = await serverFor(dir);
      await s.call("lint_fix", { path: ".", files: ["pkg/m4.py", "pkg/m5.py"] });
      const edited = current(dir, "m4.py") + "\n# edited by hand after the fix\n";
      fs.writeFileSync(path.join(dir, "pkg", "m4.py"), edited);

      const r = await s.call("rollback", { path: "." });
      expect(r.conflicts).toEqual([{ run_id: expect.any(String), file: "pkg/m4.py" }]);
      expect((r.restored as { file: string }[]).map((x) => x.file)).toEqual(["pkg/m5.py"]);
      expect(r.rolled_back).toEqual([]);
      expect(r.notes).toEqual(expect.arrayContaining([expect.stringContaining("pass force: true")]));
      expect(current(dir, "m4.py")).toBe(edited);
      expect(current(dir, "m5.py")).toBe(original("m5.py"));

      const forced = await s.call("rollback", { path: ".", force: true });
      await s.close();
      expect(forced.forced).toEqual([{ run_id: expect.any(String), file: "pkg/m4.py" }]);
      expect(forced.unchanged).toEqual([{ run_id: expect.any(String), file: "pkg/m5.py" }]);
      expect(forced.rolled_back).toHaveLength(1);
      expect(current(dir, "m4.py")).toBe(original("m4.py"));
    },
  );

  it.skipIf(noRuff())("reports files whose snapshot is gone as missing", async () => {
    const dir = fixProject();
    const s = await serverFor(dir);
    const fixed = await s.call("lint_fix", { path: ".", files: ["pkg/m6.py"] });
    const runId = (fixed.transaction as { run_id: string }).run_id;
    fs.rmSync(path.join(cachePaths(dir).snapshots, runId), { recursive: true });
    const r = await s.call("rollback", { path: "." });
    await s.close();
    expect(r.missing).toEqual([{ run_id: runId, file: "pkg/m6.py" }]);
    expect(r.restored).toEqual([]);
    expect(r.notes).toEqual(
      expect.arrayContaining([expect.stringContaining("snapshot was pruned or is missing")]),
    );
    expect(current(dir, "m6.py")).not.toBe(original("m6.py"));
  });

  it("rejects a count out of range and a since that is not ISO 8601", async () => {
    const dir = fixProject();
    const s = await serverFor(dir);
    await expect(s.call("rollback", { path: ".", count: 21 })).rejects.toThrow(/count/);
    await expect(s.call("rollback", { path: ".", since: "yesterday" })).rejects.toThrow(/since/);
    const outside = await s.call("rollback", { path: "/etc" });
    await s.close();
    expect(outside.error_type).toBe("path_validation");
  });
});
