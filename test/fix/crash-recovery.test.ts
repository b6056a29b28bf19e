/**
 * A server killed with SIGKILL in the middle of a transaction (after fix_all's lint step wrote, before
 * its format step and commit): the next start, or the next transaction on that root, restores the tree.
 * The pause point comes from the test-only MCP_CODE_QUALITY_TEST_PAUSE_AFTER_WRITES (src/fix/test-pause.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Connected } from "../helpers/server.js";
import { cachePaths } from "../../src/fix/cache-dir.js";
import { TEST_PAUSE_ENV, TEST_PAUSE_MESSAGE } from "../../src/fix/test-pause.js";
import { tempDir } from "../helpers/tools.js";
import { FIX_PROJECT, noRuff, readTree, serverFor, txEntries, waitFor } from "./helpers.js";

/** Starts fix_all on `project` in a server that pauses after the first write, then kills it with SIGKILL. */
async function killMidTransaction(allowed: string, project: string): Promise<void> {
  const s: Connected = await serverFor(allowed, { env: { [TEST_PAUSE_ENV]: "1" } });
  const pending = s.call("fix_all", { path: project, skip_typecheck: true }).catch((e: unknown) => e);
  const pid = await waitFor(() => {
    const m = new RegExp(`${TEST_PAUSE_MESSAGE}: run \\S+ pid (\\d+)`).exec(s.stderr());
    return m ? Number(m[1]) : undefined;
  });
  process.kill(pid, "SIGKILL");
  expect(await pending).toBeInstanceOf(Error);
  await s.close().catch(() => {});
}

function copyProject(into: string): string {
  fs.cpSync(FIX_PROJECT, into, { recursive: true });
  return into;
}

describe("crash recovery", () => {
  it.skipIf(noRuff())("the next server start restores a tree half-fixed by a killed server", async () => {
    const dir = copyProject(path.join(tempDir("mcq-crash-"), "project"));
    const before = readTree(dir);
    await killMidTransaction(dir, dir);

    // Killed between the lint step and the format step: files are half-fixed and a journal remains.
    const half = readTree(dir);
    expect(half.get("pkg/m1.py")?.toString()).not.toContain("import os");
    expect(half.get("pkg/m1.py")?.toString()).toContain("for item in items :");
    expect(fs.readdirSync(cachePaths(dir).journal).filter((n) => n.endsWith(".json"))).toHaveLength(1);

    const s = await serverFor(dir);
    // Recovery waits for the dead server's lock to go stale, then restores and audits.
    const entries = await waitFor(async () => {
      const e = await txEntries(s, dir);
      return e.length ? e : undefined;
    });
    await s.close();
    expect(readTree(dir)).toEqual(before);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ tool: "fix_all", result: "rollback", recovered: true });
    expect(entries[0]?.reason).toMatch(
      /^recovery: the process \(pid \d+\) died before its transaction committed; restored 8 file\(s\)/,
    );
    expect((entries[0]?.restored_files as string[]).length).toBe(8);
    expect(fs.readdirSync(cachePaths(dir).journal)).toEqual([]);
    expect(fs.readdirSync(cachePaths(dir).snapshots)).toEqual([]);
  });

  it.skipIf(noRuff())(
    "the next transaction on the root recovers first when start-up did not look there",
    async () => {
      // Deeper than start-up recovery looks (allowed root + 2 levels).
      const allowed = tempDir("mcq-crash-deep-");
      const dir = copyProject(path.join(allowed, "a", "b", "c", "project"));
      const before = readTree(dir);
      await killMidTransaction(allowed, dir);
      expect(readTree(dir)).not.toEqual(before);

      const s = await serverFor(allowed);
      const dry = await s.call("lint_fix", { path: dir, dry_run: true });
      expect(fs.readdirSync(cachePaths(dir).journal).filter((n) => n.endsWith(".json"))).toHaveLength(1); // a dry run neither locks nor recovers
      const r = await s.call("autoformat", { path: path.join(dir, "pkg", "clean.py") });
      const entries = await txEntries(s, dir);
      await s.close();
      expect(dry.success).toBe(true);
      expect(r.success).toBe(true);
      expect(r.notes).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^recovered interrupted transaction \S+ first \(undone; 8 file\(s\) restored\)/,
          ),
        ]),
      );
      expect(readTree(dir)).toEqual(before);
      expect(entries.map((e) => [e.tool, e.result, e.recovered ?? false])).toEqual([
        ["fix_all", "rollback", true],
        ["autoformat", "commit", false],
      ]);
    },
  );
});
