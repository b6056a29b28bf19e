/** Diff headers are renamed to display paths; hunk bodies are counted, never taken for headers. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { displayPaths, rebaseDiff } from "../../src/findings/display-path.js";
import { tempDir } from "../helpers/tools.js";

describe("rebaseDiff", () => {
  it("renames --- / +++ headers relative to the server's cwd, not a removed `-- ` line", () => {
    const root = tempDir("mcq-rebase-");
    fs.mkdirSync(path.join(root, "pkg"));
    fs.writeFileSync(path.join(root, "pyproject.toml"), "");
    const display = displayPaths(root, [root]);
    const cwd = path.join(root, "pkg");
    const diff = [
      "--- a.py",
      "+++ a.py",
      "@@ -1,3 +1,2 @@",
      "--- not a header",
      "+++ nor this",
      " x = 1",
      "-y",
      "--- /dev/null",
      "+++ b/b.py\t2026-12-01",
      "@@ -0,0 +1 @@",
      "+z",
      "",
    ].join("\n");
    expect(rebaseDiff(diff, cwd, display).split("\n")).toEqual([
      "--- pkg/a.py",
      "+++ pkg/a.py",
      "@@ -1,3 +1,2 @@",
      "--- not a header",
      "+++ nor this",
      " x = 1",
      "-y",
      "--- /dev/null",
      "+++ b/pkg/b.py\t2026-12-01",
      "@@ -0,0 +1 @@",
      "+z",
      "",
    ]);
  });
});
