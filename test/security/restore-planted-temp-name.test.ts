/**
 * Issue 10.1: restores wrote through a predictable `<file>.mcp-restore-<pid>`. A symlink planted under that
 * name (the pid shows in results and journals) made `rollback` write project bytes into a file outside the
 * root, chmod it, and turn the project file into a link out. Every write of the server now goes to an
 * exclusively created temp file with an unpredictable name, renamed into place.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { attacker, filesUnder, modeOf, serverPid } from "./helpers/race.js";

describe("rollback with symlinks planted at the old restore temp names", () => {
  it("writes nothing outside the root and leaves the project file a regular file", async () => {
    const outer = tempDir("mcq-restore-plant-");
    const proj = path.join(outer, "proj");
    const outside = path.join(outer, "outside");
    fs.mkdirSync(path.join(proj, "pkg"), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
    const original = "x   =  1\n";
    fs.writeFileSync(path.join(proj, "pkg", "a.py"), original);
    fs.writeFileSync(path.join(outside, "victim.txt"), "keep me\n", { mode: 0o600 });
    const outsideBefore = filesUnder(outside);

    const s = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd: proj,
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
    try {
      const fixed = await s.call("autoformat", { path: "pkg/a.py" });
      expect(fixed.success, JSON.stringify(fixed)).toBe(true);
      expect(fs.readFileSync(path.join(proj, "pkg", "a.py"), "utf8")).toBe("x = 1\n");
      // The attacker plants the temp name for this server's pid (and its neighbours) as links out.
      const pid = serverPid(s);
      for (const p of [pid - 1, pid, pid + 1])
        await attacker([
          "plant",
          path.join(outside, "victim.txt"),
          path.join(proj, "pkg", `a.py.mcp-restore-${p}`),
        ]);
      const r = await s.call("rollback", { path: "." });
      expect(r.success, JSON.stringify(r)).toBe(true);
    } finally {
      await s.close();
    }
    expect(filesUnder(outside)).toEqual(outsideBefore);
    expect(modeOf(path.join(outside, "victim.txt"))).toBe(0o600);
    const a = path.join(proj, "pkg", "a.py");
    expect(fs.lstatSync(a).isFile()).toBe(true);
    expect(fs.readFileSync(a, "utf8")).toBe(original);
  });
});
