/** Writers in separate server processes on one project root: serialized by the root lock, never corrupting. */
import { describe, expect, it } from "vitest";
import type { Connected } from "../helpers/server.js";
import { fixProject, locksSerialized, noRuff, serverFor, treeText, txEntries } from "./helpers.js";

const GROUPS = [
  ["pkg/m1.py", "pkg/m2.py"],
  ["pkg/m3.py", "pkg/m4.py"],
  ["pkg/m5.py", "pkg/m6.py"],
  ["pkg/m7.py", "pkg/m8.py"],
];
const ROUNDS = 2;

/** One agent's work on its own files: lint fixes (unsafe, so E711 too), then formatting of each file. */
async function agent(s: Connected, files: string[]): Promise<Record<string, unknown>[]> {
  const results: Record<string, unknown>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    results.push(await s.call("lint_fix", { path: ".", files, safety: "unsafe" }));
    for (const f of files) results.push(await s.call("autoformat", { path: f }));
  }
  return results;
}

describe("concurrent writers on one root", () => {
  it.skipIf(noRuff())(
    "two lint_fix calls from two processes at once are serialized; both succeed",
    async () => {
      const dir = fixProject();
      const expected = fixProject();
      const seq = await serverFor(expected);
      await seq.call("lint_fix", { path: "." });
      await seq.call("lint_fix", { path: "." });
      await seq.close();

      const [a, b] = await Promise.all([serverFor(dir), serverFor(dir)]);
      const results = await Promise.all([
        a.call("lint_fix", { path: "." }),
        b.call("lint_fix", { path: "." }),
      ]);
      const entries = await txEntries(a, dir);
      await Promise.all([a.close(), b.close()]);
      // Either both ran (one after the other) or one was locked out; with the default wait both run.
      for (const r of results) expect(r.success || r.error_type === "locked").toBe(true);
      expect(results.filter((r) => r.success)).toHaveLength(2);
      expect(entries.map((e) => [e.tool, e.result])).toEqual([
        ["lint_fix", "commit"],
        ["lint_fix", "commit"],
      ]);
      expect(locksSerialized(entries)).toBe(true);
      // One of them fixed everything; the other found nothing left to write.
      expect(entries.map((e) => e.files_written.length).sort()).toEqual([0, 8]);
      expect(treeText(dir)).toEqual(treeText(expected));
    },
  );

  for (const attempt of [1, 2])
    it.skipIf(noRuff())(
      `four processes fixing disjoint files end as a sequential run would (run ${attempt})`,
      async () => {
        const expected = fixProject();
        const seq = await serverFor(expected);
        for (const files of GROUPS) await agent(seq, files);
        await seq.close();

        const dir = fixProject();
        const servers = await Promise.all(GROUPS.map(() => serverFor(dir)));
        const results = await Promise.all(servers.map((s, i) => agent(s, GROUPS[i] as string[])));
        const entries = await txEntries(servers[0] as Connected, dir);
        await Promise.all(servers.map((s) => s.close()));
        for (const r of results.flat()) expect(r.success, JSON.stringify(r)).toBe(true);
        expect(treeText(dir)).toEqual(treeText(expected));
        expect(entries).toHaveLength(GROUPS.length * ROUNDS * 3);
        expect(new Set(entries.map((e) => e.result))).toEqual(new Set(["commit"]));
        expect(locksSerialized(entries)).toBe(true);
      },
    );
});
