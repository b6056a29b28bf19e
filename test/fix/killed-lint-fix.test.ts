/**
 * Issue 38 ("transactions under stalls"): a lint_fix whose server is killed with SIGKILL while the ruff CLI
 * is still writing leaves files fixed with no record of the transaction's (the tool wrote them itself).
 * Recovery cannot tell those from edits made since, so it leaves them, but `rollback` now puts the
 * snapshot back: files untouched since the crash are restored, a file edited since is a conflict that
 * `force` overwrites. Before, recovery listed them as conflicts and `rollback`, force or not, found nothing
 * to roll back. Real ruff, a real server process killed with SIGKILL mid-run: pkg/zbig.py (60,000 unused
 * imports) keeps ruff busy for over a second after it wrote the small files.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/tools.js";
import { noRuff, readTree, serverFor, txEntries, waitFor } from "./helpers.js";

const SMALL = "import os\nimport sys\n\nprint(sys.argv)\n";
const SMALL_FILES = 60;

function project(): string {
  const proj = tempDir("mcq-killed-fix-");
  fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.mkdirSync(path.join(proj, "pkg"));
  for (let i = 0; i < SMALL_FILES; i++) fs.writeFileSync(path.join(proj, "pkg", `m${i}.py`), SMALL);
  const big = Array.from({ length: 60_000 }, (_, i) => `import mod${i}`).join("\n") + "\nprint(1)\n";
  fs.writeFileSync(path.join(proj, "pkg", "zbig.py"), big);
  return proj;
}

const fixedSmall = (proj: string) =>
  Array.from({ length: SMALL_FILES }, (_, i) => path.join(proj, "pkg", `m${i}.py`)).filter(
    (f) => !fs.readFileSync(f, "utf8").includes("import os"),
  );

describe("a lint_fix killed with SIGKILL while its tool writes", () => {
  it.skipIf(noRuff())(
    "is rolled back to its snapshot by rollback: untouched files restored, an edited one with force",
    async () => {
      const proj = project();
      const before = readTree(proj);
      const args = ["--rate-limit", "false"];
      const a = await serverFor(proj, { args });
      let answered: unknown;
      const fixing = a.call("lint_fix", { path: "pkg" }).then(
        (r) => (answered = r),
        (e: unknown) => e,
      );
      // Killed once ruff wrote some small files and is still busy with the big one.
      await waitFor(() => {
        if (answered) throw new Error(`lint_fix answered before the kill: ${JSON.stringify(answered)}`);
        return fixedSmall(proj).length > 0 ? true : undefined;
      }, 120_000);
      expect(fs.readFileSync(path.join(proj, "pkg", "zbig.py"), "utf8")).toContain("import mod0\n");
      process.kill(a.pid as number, "SIGKILL");
      expect(await fixing).toBeInstanceOf(Error);
      await a.close().catch(() => {});
      const half = fixedSmall(proj);
      expect(half.length).toBeGreaterThan(0);
      // A file the killed transaction left, then edited by hand: rollback must not take it without force.
      const edited = half[0] as string;
      const b = await serverFor(proj, { args });
      try {
        // The next transaction recovers first (once the dead server's lock is stale): the files the tool
        // wrote are left, as changes it cannot tell from edits.
        const recovered = await waitFor(async () => {
          const e = await txEntries(b, proj, { result: "rollback" });
          return e.find((x) => x.recovered === true);
        }, 60_000);
        expect((recovered.conflicts as string[]).length).toBeGreaterThanOrEqual(half.length);
        fs.writeFileSync(edited, "# edited by hand after the crash\n");

        const undo = await b.call("rollback", { path: "." });
        expect(undo.success, JSON.stringify(undo).slice(0, 2000)).toBe(true);
        expect(undo.rolled_back).toEqual([]);
        expect(undo.conflicts).toEqual([{ run_id: recovered.run_id, file: path.relative(proj, edited) }]);
        const tree = readTree(proj);
        for (const [file, bytes] of before)
          if (file !== path.relative(proj, edited)) expect(tree.get(file), file).toEqual(bytes);
        expect(fs.readFileSync(edited, "utf8")).toBe("# edited by hand after the crash\n");

        const forced = await b.call("rollback", { path: ".", force: true });
        expect(forced.success, JSON.stringify(forced).slice(0, 2000)).toBe(true);
        expect(forced.forced).toEqual([{ run_id: recovered.run_id, file: path.relative(proj, edited) }]);
        expect(forced.rolled_back).toEqual([recovered.run_id]);
        expect(readTree(proj)).toEqual(before);
      } finally {
        await b.close();
      }
    },
    240_000,
  );
});
