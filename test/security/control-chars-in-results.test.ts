/**
 * Raw ESC and BEL bytes from a scanned file reached `security_scan` `findings[].code`: a terminal that
 * shows the result would obey them (retitle, recolor, worse). Every string in every result is now
 * stripped of control characters other than newline and tab, centrally in the engine.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

// eslint-disable-next-line no-control-regex -- the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Every string in a JSON value (keys too) that has a control character other than \n and \t. */
function withControlChars(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") {
    if (CONTROL.test(value)) out.push(value);
  } else if (Array.isArray(value)) value.forEach((v) => withControlChars(v, out));
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (CONTROL.test(k)) out.push(k);
      withControlChars(v, out);
    }
  return out;
}

const HOSTILE =
  'import subprocess\nsubprocess.call("echo \x1b]0;pwned\x07 \x1b[31mred\x1b[0m \x07done", shell=True)\n';

describe("control characters in results", () => {
  it.skipIf(missing("bandit"))(
    "security_scan findings carry no ESC or BEL",
    async () => {
      const dir = tempDir("mcq-ctrl-");
      fs.writeFileSync(path.join(dir, "run.py"), HOSTILE);
      const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
      try {
        const r = await s.call("security_scan", { path: dir });
        expect(r).toMatchObject({ success: true });
        const findings = r.findings as { code?: string; test_id?: string }[];
        const shell = findings.find((f) => f.test_id === "B602");
        expect(shell?.code).toContain("subprocess.call(");
        // The text between the escapes survives; the escapes do not.
        expect(shell?.code).toContain("red");
        expect(withControlChars(r)).toEqual([]);
      } finally {
        await s.close();
      }
    },
    120_000,
  );

  it("lint (embedded ruff) on a file named and filled with control characters", async () => {
    const dir = tempDir("mcq-ctrl-");
    const name = "evil\x1b[2Jname\x07.py";
    fs.writeFileSync(path.join(dir, name), "import os\x1b\n");
    const s = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      const r = await s.call("lint", { path: dir, linter: "ruff" });
      expect(r.success).toBe(true);
      expect((r.issues as string[]).length).toBeGreaterThan(0);
      expect(withControlChars(r)).toEqual([]);
    } finally {
      await s.close();
    }
  }, 120_000);
});
