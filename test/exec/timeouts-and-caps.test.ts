/** The bounded runner on real processes: group kill on timeout, head/tail caps, ANSI, stdin, missing programs. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ProgramNotFoundError, runBounded } from "../../src/exec/runner.js";
import { CappedBuffer } from "../../src/exec/capped-buffer.js";
import { stripVTControlCharacters as stripAnsi } from "node:util";
import { tempDir } from "../helpers/tools.js";

const base = { cwd: "/", timeoutMs: 30_000, maxOutputBytes: 100_000 };
const node = process.execPath;

/** Running (a zombie waiting for its reaper counts as gone: it can do nothing more). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** SIGKILL is delivered asynchronously: wait up to 2 s for the process to be gone. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe("timeout", () => {
  it("kills the whole process group, including a grandchild that ignores SIGTERM", async () => {
    const dir = tempDir("mcq-timeout-");
    const marker = path.join(dir, "grandchild-survived");
    const pidFile = path.join(dir, "grandchild.pid");
    // The grandchild ignores SIGTERM, detaches its stdio, and would write the marker after 3 s.
    const grandchild = `process.on("SIGTERM", () => {}); require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => require("fs").writeFileSync(${JSON.stringify(marker)}, "alive"), 3000);`;
    const child = `require("child_process").spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: "ignore" }); setInterval(() => {}, 1000);`;
    const run = await runBounded({
      ...base,
      program: node,
      args: ["-e", child],
      // Long enough for the grandchild to start on a loaded machine.
      timeoutMs: 3000,
      killGraceMs: 200,
    });
    expect(run.timedOut).toBe(true);
    expect(run.returncode).toBeNull();
    const gpid = Number(fs.readFileSync(pidFile, "utf8"));
    expect(await gone(gpid)).toBe(true);
    await new Promise((r) => setTimeout(r, 3500));
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a grandchild left running after a normal exit is ended too", async () => {
    const dir = tempDir("mcq-straggler-");
    const pidFile = path.join(dir, "pid");
    const grandchild = `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
    // The child exits once the grandchild is up.
    const child = `require("child_process").spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: "ignore" }); setInterval(() => { if (require("fs").existsSync(${JSON.stringify(pidFile)})) process.exit(0); }, 50);`;
    const run = await runBounded({ ...base, program: node, args: ["-e", child] });
    expect(run.returncode).toBe(0);
    expect(run.timedOut).toBe(false);
    const gpid = Number(fs.readFileSync(pidFile, "utf8"));
    expect(await gone(gpid)).toBe(true);
  });
});

describe("descendants that leave the process group", () => {
  // The grandchild calls setsid (Node's detached) and keeps the inherited stdout open for 60 s.
  const escapee = (pidFile: string) =>
    `const c = require("child_process").spawn("sleep", ["60"], { detached: true, stdio: ["ignore", "inherit", "inherit"] }); c.unref(); require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));`;

  it("a run returns at its timeout although a setsid grandchild holds stdout, and the grandchild is killed", async () => {
    const pidFile = path.join(tempDir("mcq-setsid-"), "pid");
    const started = Date.now();
    const run = await runBounded({
      ...base,
      program: node,
      args: ["-e", `${escapee(pidFile)} setInterval(() => {}, 1000);`],
      timeoutMs: 3000,
      killGraceMs: 200,
    });
    expect(run.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await gone(Number(fs.readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it("after a normal exit the pipes get a short drain, then the escaped grandchild is cut off and killed", async () => {
    const pidFile = path.join(tempDir("mcq-setsid-"), "pid");
    const run = await runBounded({
      ...base,
      program: node,
      args: ["-e", `${escapee(pidFile)} process.stdout.write("done");`],
      pipeDrainMs: 200,
    });
    expect(run).toMatchObject({ returncode: 0, timedOut: false, stdout: "done" });
    expect(await gone(Number(fs.readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it("keepDetached leaves a daemon started on purpose alone after a normal exit", async () => {
    const pidFile = path.join(tempDir("mcq-daemon-"), "pid");
    const daemon = `const c = require("child_process").spawn("sleep", ["30"], { detached: true, stdio: "ignore" }); c.unref(); require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));`;
    const run = await runBounded({ ...base, program: node, args: ["-e", daemon], keepDetached: true });
    expect(run.returncode).toBe(0);
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(pid)).toBe(true);
    process.kill(pid, "SIGKILL");
  });
});

describe("output caps", () => {
  it("keeps head and tail of a large stream with a marker of the bytes cut", async () => {
    // 'HEAD' + 1,000,000 x 'x' + 'TAIL' on stdout.
    const script = `process.stdout.write("HEAD" + "x".repeat(1000000) + "TAIL")`;
    const run = await runBounded({ ...base, program: node, args: ["-e", script], maxOutputBytes: 1024 });
    expect(run.truncated).toBe(true);
    expect(run.stdoutBytes).toBe(1_000_008);
    expect(run.stdout.startsWith("HEAD" + "x".repeat(508))).toBe(true);
    expect(run.stdout.endsWith("x".repeat(508) + "TAIL")).toBe(true);
    expect(run.stdout).toContain(`[${1_000_008 - 1024} bytes truncated]`);
  });

  it("CappedBuffer keeps everything under the cap", () => {
    const b = new CappedBuffer(10);
    b.push(Buffer.from("12345"));
    b.push(Buffer.from("678"));
    expect(b.toString()).toBe("12345678");
    b.push(Buffer.from("abcdef"));
    expect(b.truncatedBytes).toBe(4);
    expect(b.toString()).toBe("12345\n... [4 bytes truncated] ...\nbcdef");
  });
});

describe("environment", () => {
  it("strips ANSI escapes and sets NO_COLOR", async () => {
    const script = `process.stdout.write("\\u001b[31mred\\u001b[0m " + process.env.NO_COLOR + " \\u001b]8;;http://x\\u0007link\\u001b]8;;\\u0007")`;
    const run = await runBounded({ ...base, program: node, args: ["-e", script], env: { FORCE_COLOR: "1" } });
    expect(run.stdout).toBe("red 1 link");
    expect(stripAnsi("\u001b[1;32mok\u001b[0m")).toBe("ok");
  });

  it('colorEnv: "keep" leaves the colour variables as the server has them (a test run)', async () => {
    const script = `process.stdout.write([process.env.NO_COLOR, process.env.TERM, process.env.FORCE_COLOR].join("|"))`;
    const saved = {
      NO_COLOR: process.env.NO_COLOR,
      TERM: process.env.TERM,
      FORCE_COLOR: process.env.FORCE_COLOR,
    };
    Object.assign(process.env, { TERM: "xterm-256color", FORCE_COLOR: "2" });
    delete process.env.NO_COLOR;
    try {
      const kept = await runBounded({ ...base, program: node, args: ["-e", script], colorEnv: "keep" });
      expect(kept.stdout).toBe("|xterm-256color|2");
      const off = await runBounded({ ...base, program: node, args: ["-e", script] });
      expect(off.stdout).toBe("1|dumb|");
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  it("gives the child /dev/null as stdin (reads end at once)", async () => {
    const script = `let n = 0; process.stdin.on("data", (c) => (n += c.length)); process.stdin.on("end", () => process.stdout.write("eof " + n));`;
    const run = await runBounded({ ...base, program: node, args: ["-e", script], timeoutMs: 5000 });
    expect(run.timedOut).toBe(false);
    expect(run.stdout).toBe("eof 0");
  });

  it("passes arguments verbatim, without a shell", async () => {
    const run = await runBounded({ ...base, program: "printf", args: ["%s|", "$(whoami)", "a b", ";ls"] });
    expect(run.stdout).toBe("$(whoami)|a b|;ls|");
  });

  it("reports a missing program", async () => {
    await expect(runBounded({ ...base, program: "no-such-tool-mcq", args: [] })).rejects.toBeInstanceOf(
      ProgramNotFoundError,
    );
  });
});
