/**
 * No capabilities in the host's namespaces (issue 38). Run as root, bubblewrap used to leave a tool every
 * capability (CapEff 1fffeffffff): a planted `.venv/bin/ruff` remounted its read-only project read-write during
 * a read-only lint and wrote into it and into another allowed root, and /proc/sys/kernel/core_pattern was
 * writable. Now every sandbox has a user namespace of its own and drops every capability, and /proc/sys is
 * read-only; the same flags work for a normal user.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { hostLayout } from "../../src/exec/sandbox/host.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";
import { planProfile } from "../../src/exec/sandbox/plan.js";
import { bwrapArgv } from "../../src/exec/sandbox/profile.js";

/** What the planted tool found, as the message of its one finding. */
interface Seen {
  uid: string;
  capEff: string;
  capBnd: string;
  projectRemount: string;
  projectWrite: string;
  otherRemount: string;
  otherWrite: string;
  corePattern: string;
}

function plantedRuff(project: string, other: string): void {
  const bin = path.join(project, ".venv", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "python"), "");
  fs.writeFileSync(
    path.join(bin, "ruff"),
    `#!${process.execPath}
const fs = require("node:fs");
const { spawnSync } = require("node:child_process");
if (process.argv.includes("--version")) { console.log("ruff 0.17.6"); process.exit(0); }
const status = fs.readFileSync("/proc/self/status", "utf8");
const REMOUNT = "import ctypes, os, sys\\nlibc = ctypes.CDLL(None, use_errno=True)\\nr = libc.mount(None, sys.argv[1].encode(), None, 32 | 4096, None)\\nprint(r, os.strerror(ctypes.get_errno()) if r else 'remounted')";
const field = (name) => new RegExp(name + ":\\\\s*(\\\\S+)").exec(status)[1];
const seen = { uid: field("Uid"), capEff: field("CapEff"), capBnd: field("CapBnd") };
for (const [name, dir] of [["project", ${JSON.stringify(project)}], ["other", ${JSON.stringify(other)}]]) {
  // mount(2) itself (MS_REMOUNT | MS_BIND, no MS_RDONLY), as "mount -o remount,bind,rw" asks it.
  const m = spawnSync(fs.existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3", ["-c", REMOUNT, dir], { encoding: "utf8" });
  seen[name + "Remount"] = (m.stdout || "").trim() + (m.stderr || "").trim();
  try { fs.writeFileSync(dir + "/planted.py", "import os\\n"); seen[name + "Write"] = "written"; }
  catch (e) { seen[name + "Write"] = e.code; }
}
// Opened for writing and closed: nothing is written even where it could be.
try { fs.closeSync(fs.openSync("/proc/sys/kernel/core_pattern", "r+")); seen.corePattern = "writable"; }
catch (e) { seen.corePattern = e.code; }
console.log(JSON.stringify({ code: "X1", message: JSON.stringify(seen), filename: "app.py", location: { row: 1, column: 1 } }));
`,
    { mode: 0o755 },
  );
}

describe("a sandboxed tool has no capabilities", () => {
  const project = tempDir("mcq-priv-proj-");
  const other = tempDir("mcq-priv-other-");
  let s: Connected;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\n');
    fs.writeFileSync(path.join(project, "app.py"), "x = 1\n");
    plantedRuff(project, other);
    s = await connectStdio({
      cwd: project,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", `${project},${other}`],
    });
  });
  afterAll(() => s?.close());

  it("a planted tool's remount of its read-only project gets EPERM and nothing is written", async () => {
    const r = await s.call("lint", { path: project, linter: "ruff" });
    const issues = (r.issues ?? []) as string[];
    expect(issues, JSON.stringify(r).slice(0, 1500)).toHaveLength(1);
    const seen = JSON.parse(issues[0]?.replace(/^app\.py:1:1: X1 /, "") ?? "{}") as Seen;
    expect(seen.capEff).toBe("0000000000000000");
    // root's tools are no one's root inside either.
    if (process.getuid?.() === 0) expect(seen.uid).toBe("65534");
    expect(seen.capBnd).toBe("0000000000000000");
    // EPERM from the kernel.
    expect([seen.projectRemount, seen.otherRemount]).toEqual([
      "-1 Operation not permitted",
      "-1 Operation not permitted",
    ]);
    expect([seen.projectWrite, seen.otherWrite]).toEqual(["EROFS", "EROFS"]);
    expect(seen.corePattern).toBe("EROFS");
    expect(fs.existsSync(path.join(project, "planted.py"))).toBe(false);
    expect(fs.existsSync(path.join(other, "planted.py"))).toBe(false);
  });

  it("get_status and tool_capabilities say so", async () => {
    const privileges = {
      capabilities: expect.stringContaining("none"),
      user_namespace: expect.stringContaining("--unshare-user"),
      proc_sys: "read-only",
    };
    expect((await s.call("get_status")).sandbox).toMatchObject({ enforced: true, privileges });
    expect((await s.call("tool_capabilities", {})).sandbox).toMatchObject({ enforced: true, privileges });
  });
});

describe("the same flags as a normal user", () => {
  it.skipIf(process.getuid?.() !== 0 || !fs.existsSync("/usr/bin/setpriv"))(
    "the profile's bwrap argv starts a tool as uid 65534, with no capabilities",
    () => {
      const dir = tempDir("mcq-priv-user-");
      fs.chmodSync(dir, 0o755);
      // root's own toolchains and install are not for uid 65534 to read: the system folders and the root only.
      const none = { common: [], go: [], cargo: [], npm: [], git: [], node: [], provider: [] };
      const host = {
        ...hostLayout(),
        home: "/home/mcq-nobody",
        install: dir,
        toolchains: none,
        caches: none,
      };
      const profile = planProfile(host, { kind: "read", roots: [dir] }, "/usr/bin/cat", dir);
      const run = spawnSync(
        "/usr/bin/setpriv",
        [
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          probeSandbox().bwrap as string,
          ...bwrapArgv(profile, "/usr/bin/cat", ["/proc/self/status"]),
        ],
        { encoding: "utf8", cwd: "/" },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Uid:\s+65534\s/m);
      expect(run.stdout).toMatch(/^CapEff:\s+0000000000000000$/m);
    },
  );
});
