/**
 * Issue 10.7: crash recovery at restart overwrote a hand edit made after the crash, and fix_all's automatic
 * rollback overwrote an edit made while its type check ran. Both now restore only files that still hold what
 * the transaction wrote, and report the others as conflicts (as the rollback tool already did).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Connected } from "../helpers/server.js";
import {
  TEST_PAUSE_ENV,
  TEST_PAUSE_MESSAGE,
  TEST_STEP_STOP_ENV,
  TEST_STEP_STOP_MESSAGE,
} from "../../src/fix/test-pause.js";
import { copyFixture, tempDir } from "../helpers/tools.js";
import {
  FIX_PROJECT,
  noMypy,
  noRuff,
  readTree,
  serverFor,
  txEntries,
  TYPECOMMENT_PROJECT,
  waitFor,
} from "../fix/helpers.js";

const EDIT = "\n# edited by hand after the fix\n";

describe("automatic restores keep edits made after the transaction wrote", () => {
  it.skipIf(noRuff())("crash recovery leaves a file edited after the crash and reports it", async () => {
    const dir = path.join(tempDir("mcq-recover-edit-"), "project");
    fs.cpSync(FIX_PROJECT, dir, { recursive: true });
    const before = readTree(dir);
    const s: Connected = await serverFor(dir, { env: { [TEST_PAUSE_ENV]: "1" } });
    const pending = s.call("fix_all", { path: ".", skip_typecheck: true }).catch((e: unknown) => e);
    const pid = await waitFor(() => {
      const m = new RegExp(`${TEST_PAUSE_MESSAGE}: run \\S+ pid (\\d+)`).exec(s.stderr());
      return m ? Number(m[1]) : undefined;
    });
    process.kill(pid, "SIGKILL");
    await pending;
    await s.close().catch(() => {});

    const m1 = path.join(dir, "pkg", "m1.py");
    fs.appendFileSync(m1, EDIT);
    const edited = fs.readFileSync(m1);

    const next = await serverFor(dir);
    const entries = await waitFor(async () => {
      const e = await txEntries(next, dir);
      return e.length ? e : undefined;
    });
    await next.close();
    expect(fs.readFileSync(m1)).toEqual(edited);
    const after = readTree(dir);
    for (const [file, bytes] of before)
      if (file !== "pkg/m1.py") expect(after.get(file), file).toEqual(bytes);
    expect(entries[0]).toMatchObject({ tool: "fix_all", result: "rollback", recovered: true });
    expect(entries[0]?.conflicts).toEqual(["pkg/m1.py"]);
    expect((entries[0]?.restored_files as string[]).length).toBe(7);
  });

  // The server stops itself once every write is claimed, before its verifying type check (the test hook of
  // src/fix/test-pause.ts): the edit lands exactly while fix_all verifies, after its last writing step.
  it.skipIf(noRuff() || noMypy())(
    "fix_all's automatic rollback leaves a file edited during the type check and reports it",
    async () => {
      const dir = copyFixture(TYPECOMMENT_PROJECT);
      const size = path.join(dir, "pkg", "size.py");
      const other = path.join(dir, "pkg", "other.py");
      const sizeBefore = fs.readFileSync(size);
      const s = await serverFor(dir, { env: { [TEST_STEP_STOP_ENV]: "verify" } });
      const pending = s.call("fix_all", { path: ".", checker: "mypy" });
      const pid = await waitFor(() => {
        const m = new RegExp(`${TEST_STEP_STOP_MESSAGE} verify: run \\S+ pid (\\d+)`).exec(s.stderr());
        return m ? Number(m[1]) : undefined;
      }, 120_000);
      fs.appendFileSync(other, EDIT);
      process.kill(pid, "SIGCONT");
      const r = await pending;
      await s.close();
      expect(r.success, JSON.stringify(r)).toBe(true);
      expect(r.rolled_back).toBe(true);
      expect(fs.readFileSync(size)).toEqual(sizeBefore);
      expect(fs.readFileSync(other, "utf8").endsWith(EDIT)).toBe(true);
      expect(r.restored_files).toEqual(["pkg/size.py"]);
      expect((r.transaction as { conflicts?: string[] }).conflicts).toEqual(["pkg/other.py"]);
    },
  );
});
