/**
 * check on a terminal: the live progress display and colours, in a real pseudo-terminal (util-linux
 * `script`), and NO_COLOR. (Off a terminal, stderr stays empty: check-languages.test.ts.)
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHECK_FIXTURES, PATH_WITH_TOOLS } from "../helpers/check.js";
import { CLI } from "../helpers/server.js";
import { missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

/** Everything a terminal showed while `check python-clean` ran in it (stdout and stderr together). */
function inTerminal(
  env: Record<string, string | undefined>,
  extra: string[] = [],
): Promise<{ status: number | null; screen: string }> {
  const audit = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-check-tty-")), "audit.log");
  const command = [process.execPath, CLI, "check", "python-clean", "--audit-log", audit, ...extra]
    .map((a) => `'${a}'`)
    .join(" ");
  const childEnv: Record<string, string | undefined> = { ...process.env, PATH: PATH_WITH_TOOLS, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    cwd: CHECK_FIXTURES,
    env: childEnv as Record<string, string>,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let screen = "";
  child.stdout.on("data", (c: Buffer) => (screen += c.toString()));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, screen })));
}

// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/;

// The display lists ty's check, which is not bundled: without ty it is skipped, and these lines differ.
describe.skipIf(missing("script") || missing("ty", [TOOLS_VENV_BIN]))("check in a terminal", () => {
  it("shows which checks are running and done with the elapsed time, then clears it for a coloured report", async () => {
    const { status, screen } = await inTerminal({ NO_COLOR: undefined, TERM: "xterm" });
    expect(status).toBe(0);
    // The display hides the cursor, redraws in place, and gives the cursor back.
    expect(screen).toContain("\x1b[?25l");
    expect(screen).toMatch(/running {2}ruff \(lint\) +\d+\.\d s/);
    expect(screen).toMatch(/done {5}ty \(types\) +passed \d+\.\d s/);
    expect(screen).toMatch(/3\/3 done, 0 running · \d+\.\d s elapsed/);
    // eslint-disable-next-line no-control-regex
    expect(screen).toMatch(/\x1b\[\d+F\x1b\[J/);
    expect(screen).toContain("\x1b[?25h");
    // The report comes after the display, in colour.
    const report = screen.slice(screen.lastIndexOf("\x1b[?25h"));
    expect(report).toContain("\x1b[32mpassed\x1b[39m");
    expect(report).toContain("✓ no findings; 3 checks ran");
  });

  it("uses no colour at all with NO_COLOR, and still shows the progress (one check at a time here)", async () => {
    const { status, screen } = await inTerminal({ NO_COLOR: "1", TERM: "xterm" }, ["--max-concurrent", "1"]);
    expect(status).toBe(0);
    expect(screen).not.toMatch(SGR);
    expect(screen).toMatch(/running {2}ruff \(lint\) +\d+\.\d s/);
    expect(screen).toContain("✓ no findings; 3 checks ran");
    // --max-concurrent 1: never two running at once.
    expect(screen).toContain("1 running");
    expect(screen).not.toMatch(/[2-9] running/);
  });
});
