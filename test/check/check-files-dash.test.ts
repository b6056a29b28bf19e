/**
 * `check --files` takes every later word as a file name (docs/check.md), one that starts with `-` too: the
 * pre-commit framework passes whatever is staged, and `--help.py` was read as an unknown flag. The real bin.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

describe("check --files", () => {
  it("reads a file named --help.py or -x.py as a file", () => {
    const dir = tempDir("mcq-files-dash-");
    fs.writeFileSync(path.join(dir, "--help.py"), "value = 1\n");
    fs.writeFileSync(path.join(dir, "-x.py"), "value = 2\n");
    const r = spawnSync(process.execPath, [CLI, "check", "--files", "--help.py", "-x.py"], {
      cwd: dir,
      encoding: "utf8",
      timeout: 300_000,
    });
    const output = r.stdout + r.stderr;
    expect(output).not.toContain("unknown flag");
    expect(output).not.toMatch(/^Usage/m);
    expect(r.status, output).not.toBe(2);
  });
});
