/**
 * A project's git data is the project's code (a red team's read-only `lint` escaped as host root through it):
 * its `.git` file said `gitdir: .g`, `.g/commondir` said `  /tmp/mcq-daemon-0` (two leading spaces: git reads
 * it relative, the server read it absolute after a trim), so git's sandbox bound the check daemon's folder
 * while git took `.g/  /tmp/mcq-daemon-0/config` from the project, whose core.fsmonitor ran a script that read
 * the daemon's secret and asked the daemon for `check --sandbox off`. Each root cause has a test here: the
 * `.git` file is refused, a bind never shows a server's private folder, git runs no program a repository's
 * config names, and what git still runs (a clean filter) runs as the project's code.
 * Through the real server, real git, real bubblewrap; the scripts git would run report through FIFOs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { reportChannel, type Fifo } from "../helpers/channel.js";
import { probeSandbox, sandboxLaunch } from "../../src/exec/sandbox/launch.js";

const uid = process.getuid?.() ?? "user";
// The server's state folder for this file's own sandboxLaunch (host.ts reads it once, at first use).
const stateHome = tempDir("mcq-git-state-");
process.env.XDG_STATE_HOME = stateHome;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });

/** A script git would run: it reports what it could read into `fifo`, then passes stdin through. */
function hook(file: string, fifo: string, secret: string): void {
  fs.writeFileSync(
    file,
    `import fs from "node:fs";
const seen = {};
try { seen.secret = fs.readFileSync(${JSON.stringify(secret)}, "utf8"); } catch (e) { seen.secret = e.code; }
try { seen.shadow = fs.readFileSync("/etc/shadow", "utf8").length; } catch (e) { seen.shadow = e.code; }
fs.writeFileSync(${JSON.stringify(fifo)}, "RAN " + JSON.stringify(seen) + "\\n");
process.stdout.write(fs.readFileSync(0));
`,
  );
}

describe("a project's git data", () => {
  const channel = reportChannel("mcq-git-channel-");
  // The server's temp folder, outside the allowed paths: the check daemon's folder and its secret are in it.
  const tmp = tempDir("mcq-git-tmp-");
  const daemonDir = path.join(tmp, `mcq-daemon-${uid}`);
  const secret = path.join(daemonDir, "secret");
  const root = tempDir("mcq-git-root-");
  let ran: Fifo;
  let filtered: Fifo;
  let s: Connected;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    fs.mkdirSync(daemonDir, { mode: 0o700 });
    fs.writeFileSync(secret, "S".repeat(32), { mode: 0o600 });
    ran = channel.fifo("ran");
    filtered = channel.fifo("filtered");

    // The red team's repository: a `.git` file, a git dir `.g`, and a common dir whose name starts with spaces.
    const evil = path.join(root, "evil");
    fs.mkdirSync(evil);
    fs.writeFileSync(path.join(evil, "a.py"), "x = 1\n");
    git(evil, "init", "-q", "-b", "main");
    git(evil, "add", "a.py");
    git(evil, "commit", "-qm", "one");
    hook(path.join(evil, "x.mjs"), ran.path, secret);
    git(evil, "config", "core.fsmonitor", `${process.execPath} ${path.join(evil, "x.mjs")}`);
    const g = path.join(evil, ".g");
    const common = path.join(g, `  ${daemonDir}`);
    fs.mkdirSync(path.dirname(common), { recursive: true });
    fs.renameSync(path.join(evil, ".git"), common);
    fs.copyFileSync(path.join(common, "index"), path.join(g, "index"));
    fs.writeFileSync(path.join(g, "HEAD"), "ref: refs/heads/main\n");
    fs.writeFileSync(path.join(g, "commondir"), `  ${daemonDir}\n`);
    fs.writeFileSync(path.join(evil, ".git"), "gitdir: .g\n");
    fs.writeFileSync(path.join(evil, "a.py"), "x = 2\n");

    // A real repository outside the allowed paths, and two projects whose git data names it.
    const outside = tempDir("mcq-git-outside-");
    git(outside, "init", "-q");
    const viaCommon = path.join(root, "via-commondir");
    fs.mkdirSync(path.join(viaCommon, ".h"), { recursive: true });
    fs.writeFileSync(path.join(viaCommon, "a.py"), "x = 1\n");
    fs.writeFileSync(path.join(viaCommon, ".h", "HEAD"), "ref: refs/heads/main\n");
    fs.writeFileSync(path.join(viaCommon, ".h", "commondir"), `${path.join(outside, ".git")}\n`);
    fs.writeFileSync(path.join(viaCommon, ".git"), "gitdir: .h\n");
    const viaGitdir = path.join(root, "via-gitdir");
    fs.mkdirSync(viaGitdir);
    fs.writeFileSync(path.join(viaGitdir, "a.py"), "x = 1\n");
    fs.writeFileSync(path.join(viaGitdir, ".git"), `gitdir: ${path.join(outside, ".git")}\n`);

    // A plain repository whose config names programs git would run.
    const plain = path.join(root, "plain");
    fs.mkdirSync(plain);
    fs.writeFileSync(path.join(plain, "a.py"), "x = 1\n");
    git(plain, "init", "-q");
    git(plain, "add", "a.py");
    git(plain, "commit", "-qm", "one");
    hook(path.join(plain, "x.mjs"), ran.path, secret);
    git(plain, "config", "core.fsmonitor", `${process.execPath} ${path.join(plain, "x.mjs")}`);
    git(plain, "config", "core.pager", `${process.execPath} ${path.join(plain, "x.mjs")}`);
    fs.writeFileSync(path.join(plain, "a.py"), "x = 2\n");

    // A clean filter, which no setting turns off: git runs it to compare a file whose stat changed.
    const filter = path.join(root, "filter");
    fs.mkdirSync(filter);
    fs.writeFileSync(path.join(filter, "a.py"), "x = 1\n");
    fs.writeFileSync(path.join(filter, ".gitattributes"), "*.py filter=x\n");
    git(filter, "init", "-q");
    git(filter, "add", ".");
    git(filter, "commit", "-qm", "one");
    hook(path.join(filter, "f.mjs"), filtered.path, secret);
    git(filter, "config", "filter.x.clean", `${process.execPath} ${path.join(filter, "f.mjs")}`);
    fs.writeFileSync(path.join(filter, "a.py"), "x = 2\n");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(filter, "a.py"), later, later);

    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", `${root},${channel.dir}`],
      env: { TMPDIR: tmp },
    });
  });
  afterAll(async () => {
    await s?.close();
    ran?.close();
    filtered?.close();
  });

  it("reads a .git file and its commondir as git does: the leading spaces are part of the name", async () => {
    const r = await s.call("lint", { path: path.join(root, "evil"), changed: true });
    expect(r.success, JSON.stringify(r).slice(0, 2000)).toBe(true);
    expect(ran.read()).toBe("");
    expect(fs.readFileSync(secret, "utf8")).toHaveLength(32);
  });

  it("refuses a .git file or commondir that names git data outside the allowed paths", async () => {
    for (const [project, names] of [
      ["via-commondir", "commondir"],
      ["via-gitdir", ".git"],
    ] as const) {
      const r = await s.call("lint", { path: path.join(root, project), changed: true });
      expect(r, JSON.stringify(r).slice(0, 2000)).toMatchObject({
        success: false,
        error_type: "path_validation",
      });
      expect(String(r.error)).toContain(`${names} names`);
    }
  });

  it("runs no program a repository's config names (core.fsmonitor, core.pager)", async () => {
    const r = await s.call("lint", { path: path.join(root, "plain"), changed: true });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(JSON.stringify(r)).toContain("a.py");
    expect(ran.read()).toBe("");
  });

  it("runs what git still runs (a clean filter) as the project's code: /etc's owner-only files hidden", async () => {
    const r = await s.call("lint", { path: path.join(root, "filter"), changed: true });
    expect(r.success, JSON.stringify(r)).toBe(true);
    const text = await filtered.until("RAN ");
    const seen = JSON.parse(/RAN (\{.*\})/.exec(text)?.[1] ?? "{}") as Record<string, unknown>;
    expect(seen.secret).toBe("ENOENT");
    if (uid === 0 && fs.existsSync("/etc/shadow")) expect(seen.shadow).toBe("EACCES");
  });

  it("never binds a server's private folder, even one a request names exactly or an allowed root inside one", () => {
    const priv = path.join(stateHome, "mcp-code-quality");
    const project = path.join(priv, "project");
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(priv, "audit.log"), "AUDIT\n");
    fs.writeFileSync(path.join(project, "a.py"), "PROJECT\n");
    const cat = (request: { roots: string[]; readOnly?: string[] }, file: string) => {
      const launch = sandboxLaunch("/usr/bin/cat", [file], "/", {
        mode: "required",
        request: { kind: "read", ...request },
      });
      return spawnSync(launch.program, launch.args, { env: launch.env, encoding: "utf8" });
    };
    // What a forged .git file had bound: the folder exactly.
    expect(cat({ roots: [root], readOnly: [priv] }, path.join(priv, "audit.log")).stdout).toBe("");
    // An allowed root inside it.
    expect(cat({ roots: [project] }, path.join(project, "a.py")).stdout).toBe("");
    // Elsewhere the same runs read.
    expect(cat({ roots: [root] }, path.join(root, "plain", "x.mjs")).stdout).toContain("RAN");
  });
});
