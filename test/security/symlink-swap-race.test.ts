/**
 * Issue 10.2: a folder swapped back and forth with a symlink to the outside, while format_check (with diff)
 * and autoformat run, made the server read outside content (into diffs) and write outside files: each path
 * was checked, then opened again by name. The server's own reads and writes now reach each file from the
 * allowed root without following links, so a link swapped in after the check is refused, never followed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { attacker, filesUnder } from "./helpers/race.js";

const INSIDE = "x   =  1\n";
const OUTSIDE = "SECRET_OUTSIDE   =  1\n";
const SWAP_MS = 8_000;

describe("a folder swapped with a link out while the embedded ruff formats", () => {
  it("never reads outside content into a result and never writes outside", async () => {
    const outer = tempDir("mcq-swap-race-");
    const proj = path.join(outer, "proj");
    const outside = path.join(outer, "outside");
    fs.mkdirSync(path.join(proj, "sub"), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
    fs.writeFileSync(path.join(proj, "sub", "a.py"), INSIDE);
    fs.writeFileSync(path.join(outside, "a.py"), OUTSIDE);
    const outsideBefore = filesUnder(outside);

    const s = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd: proj,
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
    const results: string[] = [];
    try {
      const swapping = attacker([
        "swap",
        path.join(proj, "sub"),
        path.join(proj, ".sub-real"),
        outside,
        String(SWAP_MS),
        "a.py",
        INSIDE,
      ]);
      let running = true;
      void swapping.finally(() => (running = false));
      const calls: [string, Record<string, unknown>][] = [
        ["format_check", { path: "sub/a.py", diff: true }],
        ["autoformat", { path: "sub/a.py" }],
        ["format_check", { path: "sub", diff: true }],
        ["autoformat", { path: "sub" }],
      ];
      for (let i = 0; running; i++) {
        const [name, args] = calls[i % calls.length] as [string, Record<string, unknown>];
        results.push(JSON.stringify(await s.call(name, args)));
      }
      const { swaps } = await swapping;
      expect(swaps).toBeGreaterThan(100);
    } finally {
      await s.close();
    }
    expect(results.length).toBeGreaterThan(10);
    expect(results.filter((r) => r.includes("SECRET_OUTSIDE"))).toEqual([]);
    expect(filesUnder(outside)).toEqual(outsideBefore);
  });
});
