/**
 * Issue 10.4: a server allowed into /repo and another allowed into /repo/pkg each locked their own project
 * root (/repo and /repo/pkg), so two transactions writing the same file ran at once and a committed fix was
 * lost without a warning. Transactions whose projects overlap (one root inside the other) now serialize,
 * whatever each server's allowed roots.
 *
 * Server A (embedded ruff) formats all of /repo; a large module keeps its format step busy for seconds after
 * it read pkg/a_small.py (not so long that A's lock would count as lost). While A is writing (its journal
 * exists), server B lint-fixes pkg/a_small.py.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { noRuff, PATH_WITH_RUFF } from "../fix/helpers.js";
import { auditLines, journalAppears, slowToFormat, SMALL } from "./helpers/race.js";

describe("servers whose allowed roots nest", () => {
  it.skipIf(noRuff())(
    "serialize their transactions on the same files: no committed fix is lost",
    async () => {
      const repo = tempDir("mcq-nested-");
      const pkg = path.join(repo, "pkg");
      fs.mkdirSync(path.join(repo, ".git"));
      fs.mkdirSync(pkg);
      fs.writeFileSync(path.join(pkg, "pyproject.toml"), '[project]\nname = "pkg"\n');
      fs.writeFileSync(path.join(pkg, "a_small.py"), SMALL);
      fs.writeFileSync(path.join(pkg, "z_big.py"), slowToFormat(0.8));

      const a = await connectStdio({
        args: ["--allowed-paths", repo, "--rate-limit", "false"],
        cwd: repo,
        env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
      });
      const b = await connectStdio({
        args: ["--allowed-paths", pkg, "--rate-limit", "false"],
        cwd: pkg,
        env: { PATH: PATH_WITH_RUFF, VIRTUAL_ENV: undefined },
      });
      let ra: Record<string, unknown>;
      let rb: Record<string, unknown>;
      try {
        // Load A's embedded ruff first: its start-up is not the stall this test is about.
        expect((await a.call("format_check", { path: "pkg/a_small.py" })).success).toBe(true);
        const formatting = a.call("autoformat", { path: "." });
        await Promise.race([journalAppears(path.join(repo, ".mcp-cache")), formatting]);
        rb = await b.call("lint_fix", { path: ".", files: ["a_small.py"] });
        ra = await formatting;
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
      expect(ra.success, JSON.stringify(ra).slice(0, 2000)).toBe(true);
      expect(rb.success, JSON.stringify(rb).slice(0, 2000)).toBe(true);
      const small = fs.readFileSync(path.join(pkg, "a_small.py"), "utf8");
      // B's fix (the unused import removed) and A's formatting both survive.
      expect(small).not.toContain("import os");
      expect(small).toContain("print(sys.argv)");
      const spans = [
        ...auditLines(path.join(repo, ".mcp-cache")),
        ...auditLines(path.join(pkg, ".mcp-cache")),
      ]
        .map((e) => [Date.parse(e.lock_acquired as string), Date.parse(e.lock_released as string)] as const)
        .sort((x, y) => x[0] - y[0]);
      expect(spans).toHaveLength(2);
      expect(spans[1]![0]).toBeGreaterThanOrEqual(spans[0]![1]);
    },
    180_000,
  );
});
