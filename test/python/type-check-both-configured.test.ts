/**
 * A project that configures both mypy and pyright (pallets/click): check runs each, and type_check ran the
 * first only (click: pyright's 5 errors and 1 warning never shown). type_check now runs each configured
 * checker, each with the count it reports by hand; naming one runs that one. Through the real server.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

interface CheckerEntry {
  checker: string;
  path: string;
  passed: boolean;
  issue_count: number;
}

function byHand(program: string, args: string[], cwd: string): string {
  return spawnSync(program, args, { cwd, encoding: "utf8" }).stdout;
}

describe.skipIf(missing("mypy"))("type_check on a project configuring mypy and pyright", () => {
  it("runs both, each with the count it reports by hand; a named checker runs alone", async () => {
    const dir = tempDir("mcq-both-checkers-");
    fs.writeFileSync(
      path.join(dir, "pyproject.toml"),
      '[project]\nname = "p"\nversion = "0"\n\n[tool.mypy]\nstrict = true\n\n[tool.pyright]\ninclude = ["."]\n',
    );
    // Both report the return; only mypy's strict mode reports the untyped function.
    fs.writeFileSync(
      path.join(dir, "a.py"),
      "def f(x: int) -> str:\n    return x\n\n\ndef g(y):\n    return y\n",
    );
    const mypyOwn = Number(/Found (\d+) errors?/.exec(byHand("mypy", ["--no-incremental", "."], dir))?.[1]);
    const pyrightOwn = (
      JSON.parse(
        byHand(
          process.execPath,
          [path.join(REPO_ROOT, "node_modules", "pyright", "index.js"), "--outputjson"],
          dir,
        ),
      ) as { summary: { errorCount: number } }
    ).summary.errorCount;
    expect(mypyOwn).toBeGreaterThan(pyrightOwn);
    expect(pyrightOwn).toBeGreaterThan(0);
    const s = await connectStdio({ args: ["--allowed-paths", dir] });
    try {
      const r = await s.call("type_check", { path: dir });
      expect(r).toMatchObject({ success: true, passed: false });
      const entries = r.checkers as CheckerEntry[];
      expect(entries.map((e) => [e.checker, e.path, e.issue_count])).toEqual([
        // The project root itself is "." (its folder's name is no path below it).
        ["mypy", ".", mypyOwn],
        ["pyright", ".", pyrightOwn],
      ]);
      expect(r.issue_count).toBe(mypyOwn + pyrightOwn);
      expect(r.notes).toContain(
        'checkers: the project configures mypy, pyright: type_check runs each (pass checker "mypy" or another to run one)',
      );
      const only = await s.call("type_check", { path: dir, checker: "pyright" });
      expect(only).toMatchObject({ success: true, checker: "pyright", issue_count: pyrightOwn });
    } finally {
      await s.close();
    }
  }, 120_000);
});
