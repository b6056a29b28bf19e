/**
 * A project that configures both mypy and pyright (pallets/click): check runs each, type_check the first,
 * and nothing said pyright was left out (click: pyright's 5 errors and 1 warning never shown). Its notes
 * now name the other checker and how to run it. Through the real server.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

describe.skipIf(missing("mypy"))("type_check on a project configuring mypy and pyright", () => {
  it("runs mypy and names pyright, which it did not run", async () => {
    const dir = tempDir("mcq-both-checkers-");
    fs.writeFileSync(
      path.join(dir, "pyproject.toml"),
      '[project]\nname = "p"\nversion = "0"\n\n[tool.mypy]\nstrict = true\n\n[tool.pyright]\ninclude = ["."]\n',
    );
    fs.writeFileSync(path.join(dir, "a.py"), "def f(x: int) -> int:\n    return x\n");
    const s = await connectStdio({ args: ["--allowed-paths", dir] });
    try {
      const r = await s.call("type_check", { path: dir });
      expect(r).toMatchObject({ success: true, checker: "mypy" });
      expect(r.notes).toContain(
        'the project configures pyright too: pass checker "pyright" to run it (check runs each)',
      );
      const only = await s.call("type_check", { path: dir, checker: "pyright" });
      expect(only).toMatchObject({ success: true, checker: "pyright" });
    } finally {
      await s.close();
    }
  }, 120_000);
});
