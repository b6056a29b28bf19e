/**
 * An allowed root that holds the server's own folders (`--allowed-paths /tmp` with the temp folder in it: a red
 * team's run). The sandbox bound the root whole, so a project's code saw the scratch root (another project's
 * inline source, the pytest.ini of another call's run), and the check daemon's folder: it read the secret,
 * asked the user's daemon for `check --sandbox off` and ran as root outside any sandbox. Each of the server's
 * folders under a bound root is now covered by an empty one; a run sees only what its own command names.
 * The same run read /etc/shadow as root's tools may: what only its owner may read under /etc is hidden now.
 * Through the real server, the real bubblewrap; the project's own ruff (project code) reports what it saw.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

const uid = process.getuid?.() ?? "user";

describe("the server's folders under an allowed root", () => {
  // The allowed root holds the server's temp folder, its cache and its state, as /tmp and $HOME would.
  const root = fs.realpathSync(tempDir("mcq-private-"));
  const at = (...p: string[]) => path.join(root, ...p);
  const looked = {
    scratch: at("tmp", `mcq-${uid}`),
    daemon: at("tmp", `mcq-daemon-${uid}`),
    cache: at("cache", "mcp-code-quality"),
    state: at("state", "mcp-code-quality"),
  };
  let s: Connected;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    for (const dir of Object.values(looked)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // What a daemon and other calls leave there.
    fs.writeFileSync(path.join(looked.daemon, "secret"), "S".repeat(32), { mode: 0o600 });
    fs.mkdirSync(path.join(looked.scratch, "mcq-pytest-other"), { mode: 0o700 });
    fs.writeFileSync(path.join(looked.state, "audit.log"), "{}\n");
    const project = at("project");
    fs.mkdirSync(path.join(project, ".venv", "bin"), { recursive: true });
    fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\n');
    fs.writeFileSync(path.join(project, "app.py"), "x = 1\n");
    fs.writeFileSync(path.join(project, ".venv", "bin", "python"), "");
    fs.writeFileSync(
      path.join(project, ".venv", "bin", "ruff"),
      `#!${process.execPath}
const fs = require("node:fs");
if (process.argv.includes("--version")) { console.log("ruff 0.17.6"); process.exit(0); }
const looked = ${JSON.stringify(looked)};
const seen = {};
for (const [name, dir] of Object.entries(looked)) {
  try { seen[name] = fs.readdirSync(dir).sort(); } catch (e) { seen[name] = e.code; }
}
try { seen.secret = fs.readFileSync(looked.daemon + "/secret", "utf8").length; } catch (e) { seen.secret = e.code; }
try { seen.shadow = fs.readFileSync("/etc/shadow", "utf8").length; } catch (e) { seen.shadow = e.code; }
console.log(JSON.stringify({ code: "X1", message: "SEEN " + JSON.stringify(seen), filename: "app.py", location: { row: 1, column: 1 } }));
`,
      { mode: 0o755 },
    );
    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", root],
      env: { TMPDIR: at("tmp"), XDG_CACHE_HOME: at("cache"), XDG_STATE_HOME: at("state") },
    });
  });
  afterAll(() => s?.close());

  it("shows a tool none of them: the scratch root, the daemon's folder, the caches, the state", async () => {
    const r = await s.call("lint", { path: at("project"), linter: "ruff" });
    const text = JSON.stringify(r);
    const m = /SEEN (\{.*?\})(?:\\"|")/.exec(text.replace(/\\\\"/g, '\\"'));
    expect(m, text.slice(0, 1500)).not.toBeNull();
    const seen = JSON.parse((m?.[1] ?? "{}").replace(/\\"/g, '"')) as Record<string, unknown>;
    // Each folder is there (the root shows its parent) and empty: none of what the server keeps in it.
    const { shadow, ...folders } = seen;
    expect(folders).toEqual({ scratch: [], daemon: [], cache: [], state: [], secret: "ENOENT" });
    // root's tools read root's files: what only its owner may read under /etc is hidden (a device node
    // bound over it, which the sandbox's mounts do not open: EACCES).
    if (process.getuid?.() === 0 && fs.existsSync("/etc/shadow")) {
      expect(fs.readFileSync("/etc/shadow", "utf8").length).toBeGreaterThan(0);
      expect(shadow).toBe("EACCES");
    }
    // The server's own files are as they were.
    expect(fs.readdirSync(looked.scratch)).toContain("mcq-pytest-other");
    expect(fs.readFileSync(path.join(looked.daemon, "secret"), "utf8")).toHaveLength(32);
  });
});
