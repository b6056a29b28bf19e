/**
 * A red team's `ln victim/v3.py evlink/h.py`, then `autoformat` of evlink: the formatter wrote h.py, and so
 * victim/v3.py (the same inode), a file outside every allowed root, which the snapshot did not know. A file a
 * transaction may write that has other names is now refused before the tool runs, and nothing is written.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

describe("a hard link in a transaction", () => {
  it("autoformat refuses a file with other names, before the tool runs: nothing written, the other name's file unchanged", async () => {
    const root = tempDir("mcq-hardlink-");
    const project = path.join(root, "evlink");
    const victim = path.join(root, "victim");
    fs.mkdirSync(project);
    fs.mkdirSync(victim);
    fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "x"\nversion = "0"\n');
    fs.writeFileSync(path.join(project, "c.py"), "x=1\n");
    fs.writeFileSync(path.join(victim, "v3.py"), "y=2\n");
    fs.linkSync(path.join(victim, "v3.py"), path.join(project, "h.py"));
    const s = await connectStdio({
      args: ["--allowed-paths", project, "--result-cache", "false"],
      cwd: project,
    });
    try {
      const r = await s.call("autoformat", { path: project });
      expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({
        success: false,
        error_type: "invalid_input",
      });
      expect(r.error).toMatch(/^h\.py: a file this fix may write has other names \(hard links\)/);
      expect(fs.readFileSync(path.join(victim, "v3.py"), "utf8")).toBe("y=2\n");
      expect(fs.readFileSync(path.join(project, "c.py"), "utf8")).toBe("x=1\n");
      // Once the link is a copy of its own, the project is formatted as before, and the other file is not.
      fs.rmSync(path.join(project, "h.py"));
      fs.writeFileSync(path.join(project, "h.py"), "y=2\n");
      const again = await s.call("autoformat", { path: project });
      expect(again, JSON.stringify(again).slice(0, 1500)).toMatchObject({ success: true });
      expect(fs.readFileSync(path.join(project, "c.py"), "utf8")).toBe("x = 1\n");
      expect(fs.readFileSync(path.join(victim, "v3.py"), "utf8")).toBe("y=2\n");
    } finally {
      await s.close();
    }
  }, 120_000);
});
