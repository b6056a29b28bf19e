/**
 * Issue 38 ("transactions under stalls"): a rollback never overwrites a file whose content is not what that
 * transaction wrote, however long it stalls between deciding to restore a file and writing it. Server A's
 * fix_all breaks the type check (mypy) and rolls back; it stops itself (SIGSTOP, the test-only hook of
 * src/fix/test-pause.ts) right after it found its own write in pkg/x.py and decided to restore it; its lock
 * goes stale; server B lint-fixes pkg/x.py and commits; A is continued. A used to put its snapshot over B's
 * commit and report no conflict; now it compares at the write and leaves B's commit, as a conflict.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  TEST_RESTORE_STOP_ENV,
  TEST_RESTORE_STOP_MESSAGE,
  TEST_WRITE_STOP_ENV,
  TEST_WRITE_STOP_MESSAGE,
} from "../../src/fix/test-pause.js";
import { tempDir } from "../helpers/tools.js";
import { noMypy, noRuff, PATH_WITHOUT_RUFF, serverFor, txEntries, waitFor } from "./helpers.js";

/**
 * An import only a type comment uses (ruff's safe fix removes it, and mypy then fails: A rolls back), and
 * an unused local (an unsafe fix, which only B applies).
 */
const X =
  "from typing import List\n\n\ndef size(items):\n    # type: (List[int]) -> int\n    y = 1\n    return len(items)\n";

describe("a rollback stalled before it writes", () => {
  it.skipIf(noRuff() || noMypy())(
    "leaves another server's commit made meanwhile, and reports the file as a conflict",
    async () => {
      const proj = tempDir("mcq-stalled-rb-");
      fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
      fs.mkdirSync(path.join(proj, "pkg"));
      const x = path.join(proj, "pkg", "x.py");
      fs.writeFileSync(x, X);
      const args = ["--rate-limit", "false"];
      const a = await serverFor(proj, { args, env: { [TEST_RESTORE_STOP_ENV]: "1" } });
      const b = await serverFor(proj, { args });
      try {
        const fixing = a
          .call("fix_all", { path: "pkg", checker: "mypy" })
          .catch((e: unknown) => ({ thrown: String(e) }) as Record<string, unknown>);
        const pid = await waitFor(() => {
          const m = new RegExp(`${TEST_RESTORE_STOP_MESSAGE} pkg/x\\.py: run \\S+ pid (\\d+)`).exec(
            a.stderr(),
          );
          return m ? Number(m[1]) : undefined;
        }, 120_000);
        // A decided to restore x.py (it holds A's fix) and stopped before writing.
        const byA = fs.readFileSync(x, "utf8");
        expect(byA).not.toContain("from typing");
        expect(byA).toContain("y = 1");
        let rb: Record<string, unknown>;
        try {
          // B waits for A's lock to go stale, then commits its unsafe fix of x.py.
          rb = await b.call("lint_fix", { path: "pkg", files: ["x.py"], safety: "unsafe" });
        } finally {
          process.kill(pid, "SIGCONT");
        }
        expect(rb.transaction, JSON.stringify(rb).slice(0, 2000)).toMatchObject({ result: "commit" });
        const byB = fs.readFileSync(x, "utf8");
        expect(byB).toBe(byA.replace("    y = 1\n", ""));

        const ra = await fixing;
        // A rolled back, restored nothing over B's commit, and says x.py changed under it.
        expect(ra.transaction, JSON.stringify(ra).slice(0, 2000)).toMatchObject({
          result: "rollback",
          restored_files: [],
          conflicts: ["pkg/x.py"],
        });
        expect(fs.readFileSync(x, "utf8")).toBe(byB);
        const trail = (await txEntries(b, proj)).map((e) => [e.tool, e.result]);
        expect(trail).toEqual([
          ["lint_fix", "commit"],
          ["fix_all", "rollback"],
        ]);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
    240_000,
  );

  it.skipIf(noRuff())(
    "a write stalled past the check of what it replaces is refused, and the other server's commit stays",
    async () => {
      // A formats pkg/ with the embedded ruff (no ruff CLI on its PATH) and stops at its first write, once
      // safe-fs found the file still holding what A read; B lint-fixes that file and commits; A continues.
      // A used to write over B's commit, take that for its own write and, its lock lost, restore its
      // snapshot: B's fix gone either way.
      const proj = tempDir("mcq-stalled-write-");
      fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
      fs.mkdirSync(path.join(proj, "pkg"));
      const small = path.join(proj, "pkg", "a_small.py");
      const original = "import os\nimport sys\n\n\nprint( sys.argv )\n";
      fs.writeFileSync(small, original);
      const args = ["--rate-limit", "false"];
      const a = await serverFor(proj, {
        args,
        path: PATH_WITHOUT_RUFF,
        env: { [TEST_WRITE_STOP_ENV]: "1", VIRTUAL_ENV: "" },
      });
      const b = await serverFor(proj, { args });
      try {
        const formatting = a
          .call("autoformat", { path: "pkg" })
          .catch((e: unknown) => ({ thrown: String(e) }) as Record<string, unknown>);
        const pid = await waitFor(() => {
          const m = new RegExp(`${TEST_WRITE_STOP_MESSAGE} pkg/a_small\\.py: run \\S+ pid (\\d+)`).exec(
            a.stderr(),
          );
          return m ? Number(m[1]) : undefined;
        }, 120_000);
        expect(fs.readFileSync(small, "utf8")).toBe(original);
        let rb: Record<string, unknown>;
        try {
          rb = await b.call("lint_fix", { path: "pkg", files: ["a_small.py"] });
        } finally {
          process.kill(pid, "SIGCONT");
        }
        expect(rb.transaction, JSON.stringify(rb).slice(0, 2000)).toMatchObject({ result: "commit" });
        const byB = fs.readFileSync(small, "utf8");
        expect(byB).not.toContain("import os");
        const ra = await formatting;
        expect(JSON.stringify(ra)).toMatch(/the root lock was lost during the run/);
        expect(ra.transaction, JSON.stringify(ra).slice(0, 2000)).toMatchObject({ result: "rollback" });
        expect(fs.readFileSync(small, "utf8")).toBe(byB);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
    240_000,
  );
});
