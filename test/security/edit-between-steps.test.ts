/**
 * Issue 24 (a break the sandbox cannot close): a user edit made between fix_all's lint-fix and format steps
 * was absorbed by the formatter, counted as the fix's own write, and lost by the automatic rollback. Each
 * step's writes are now measured against what the previous step left: a change no step made is a conflict,
 * never restored over and never left in the snapshot for a later `rollback`.
 *
 * The server stops itself (SIGSTOP, the test hook of src/fix/test-pause.ts) once its first step is recorded;
 * the test edits a file the way a user would, then continues it.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_STEP_STOP_ENV, TEST_STEP_STOP_MESSAGE } from "../../src/fix/test-pause.js";
import type { Connected } from "../helpers/server.js";
import { copyFixture, tempDir } from "../helpers/tools.js";
import {
  FIX_PROJECT,
  noMypy,
  noRuff,
  readTree,
  serverFor,
  TYPECOMMENT_PROJECT,
  waitFor,
} from "../fix/helpers.js";

/** Unformatted on purpose: the format step rewrites it, as it would a user's half-done edit. */
const EDIT = "\nuser_edit = [1,2,\n 3]\n";

/** Starts `tool` on the server, waits until it stops after `step`, runs `edit`, continues it. */
async function callStoppingAt(s: Connected, step: string, args: Record<string, unknown>, edit: () => void) {
  const pending = s.call("fix_all", args);
  const pid = await waitFor(() => {
    const m = new RegExp(`${TEST_STEP_STOP_MESSAGE} ${step}: run \\S+ pid (\\d+)`).exec(s.stderr());
    return m ? Number(m[1]) : undefined;
  }, 120_000);
  try {
    edit();
  } finally {
    process.kill(pid, "SIGCONT");
  }
  return pending;
}

describe("an edit made between a transaction's writing steps is the user's, not the fix's", () => {
  it.skipIf(noRuff() || noMypy())(
    "fix_all's automatic rollback keeps a file edited between its lint fix and its format step",
    async () => {
      const dir = copyFixture(TYPECOMMENT_PROJECT);
      const size = path.join(dir, "pkg", "size.py");
      const other = path.join(dir, "pkg", "other.py");
      const sizeBefore = fs.readFileSync(size);
      const s = await serverFor(dir, { env: { [TEST_STEP_STOP_ENV]: "1" } });
      try {
        const r = await callStoppingAt(s, "1", { path: ".", checker: "mypy" }, () => {
          // The lint fix has removed the unused import here; the user adds code.
          expect(fs.readFileSync(other, "utf8")).not.toContain("import os");
          fs.appendFileSync(other, EDIT);
        });
        expect(r.success, JSON.stringify(r).slice(0, 3000)).toBe(true);
        expect(r.rolled_back).toBe(true);
        // The fix's own write is undone; the user's file keeps the edit (as the formatter left it).
        expect(fs.readFileSync(size)).toEqual(sizeBefore);
        const otherNow = fs.readFileSync(other, "utf8");
        expect(otherNow).toContain("user_edit = [1, 2, 3]");
        expect(r.restored_files).toEqual(["pkg/size.py"]);
        expect((r.transaction as { conflicts?: string[] }).conflicts).toEqual(["pkg/other.py"]);
      } finally {
        await s.close();
      }
    },
    240_000,
  );

  it.skipIf(noRuff())(
    "a committed fix leaves the edited file out of its snapshot, so rollback does not undo the edit",
    async () => {
      const dir = path.join(tempDir("mcq-between-steps-"), "project");
      fs.cpSync(FIX_PROJECT, dir, { recursive: true });
      const before = readTree(dir);
      const m1 = path.join(dir, "pkg", "m1.py");
      const s = await serverFor(dir, { env: { [TEST_STEP_STOP_ENV]: "1" } });
      try {
        const r = await callStoppingAt(s, "1", { path: ".", skip_typecheck: true }, () =>
          fs.appendFileSync(m1, EDIT),
        );
        expect(r.success, JSON.stringify(r).slice(0, 3000)).toBe(true);
        const tx = r.transaction as { result: string; conflicts?: string[]; files_written: string[] };
        expect(tx.result).toBe("commit");
        expect(tx.conflicts).toEqual(["pkg/m1.py"]);
        expect(JSON.stringify(r.notes)).toMatch(/edited by another writer between the fix's steps/);
        const edited = fs.readFileSync(m1, "utf8");
        expect(edited).toContain("user_edit = [1, 2, 3]");

        const back = await s.call("rollback", { path: "." });
        expect(back.success, JSON.stringify(back).slice(0, 3000)).toBe(true);
        // Every other file is back as it was; the user's file is untouched.
        expect(fs.readFileSync(m1, "utf8")).toBe(edited);
        const after = readTree(dir);
        for (const [file, bytes] of before)
          if (file !== "pkg/m1.py") expect(after.get(file), file).toEqual(bytes);
      } finally {
        await s.close();
      }
    },
    240_000,
  );
});
