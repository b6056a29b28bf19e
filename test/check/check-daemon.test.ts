/**
 * `check --daemon`: the check runs in a background daemon that stays warm, and answers exactly as a direct
 * run (same stdout apart from timings, same stderr for usage errors, same exit code). Each environment has
 * its own daemon; it exits when idle, on --daemon-stop, and a killed one's socket is replaced. Real
 * processes, real ruff on a real project; each test has its own TMPDIR and runtime folder, so its own daemon
 * folder and sockets.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { daemonChoice } from "../../src/check/daemon/flags.js";
import { daemonKey, daemonUnfit, keyedEnv } from "../../src/check/daemon/key.js";
import { proofHolds, proofOf } from "../../src/check/daemon/auth.js";
import { LineReader, parseHello, parseHelloAnswer, parseRequest } from "../../src/check/daemon/protocol.js";
import { CHECK_FIXTURES, PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { CLI } from "../helpers/server.js";
import {
  alive,
  alsoStop,
  daemonStatus as status,
  isolatedEnv,
  stopDaemons,
  timeless,
  until,
} from "../helpers/check-daemon.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const noRuff = missing("ruff", [TOOLS_VENV_BIN]);
const noCargo = missing("cargo");

afterEach(stopDaemons);

describe("check --daemon", () => {
  it.skipIf(noRuff)(
    "answers as a direct run does, from one daemon that stays, until --daemon-stop",
    async () => {
      const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
      const env = isolatedEnv();
      const direct = await runCheck(["--json", "."], { cwd: dir, env });
      const first = await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
      const second = await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
      expect(direct.status).toBe(1);
      expect(timeless(direct)).toMatchObject({ exit_code: 1 });
      for (const r of [first, second]) {
        expect(r.status).toBe(direct.status);
        expect(r.stderr).toBe(direct.stderr);
        expect(timeless(r)).toEqual(timeless(direct));
      }
      // An edit between two checks: the daemon's kept engine answers as a fresh direct run.
      fs.writeFileSync(
        path.join(dir, "app.py"),
        "import sys\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n\n\nx: int = add(1, 2)\n",
      );
      const edited = await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
      const editedDirect = await runCheck(["--json", "."], { cwd: dir, env });
      expect(timeless(edited)).toEqual(timeless(editedDirect));
      expect(timeless(edited)).not.toEqual(timeless(direct));
      const st = await status(env);
      expect(st).toMatchObject({ served: 3 });
      expect(alive(st!.pid)).toBe(true);
      expect(fs.lstatSync(st!.socket).isSocket()).toBe(true);
      expect(fs.statSync(st!.socket).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(st!.socket)).mode & 0o777).toBe(0o700);

      const stop = await runCheck(["--daemon-stop"], { env });
      expect(stop).toMatchObject({ status: 0, stdout: "stopped the check daemon of this environment\n" });
      await until(() => !alive(st!.pid));
      expect(fs.existsSync(st!.socket)).toBe(false);
      expect(await runCheck(["--daemon-status"], { env })).toMatchObject({
        status: 1,
        stdout: "no check daemon runs for this environment\n",
      });
    },
  );

  it.skipIf(noRuff)("gives a usage error, its text and its exit code, as a direct run", async () => {
    const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const env = isolatedEnv({ MCP_CODE_QUALITY_CHECK_DAEMON: "1" });
    const direct = await runCheck(["--no-daemon", "--only", "nonesuch", "."], { cwd: dir, env });
    const viaDaemon = await runCheck(["--only", "nonesuch", "."], { cwd: dir, env });
    expect(direct.status).toBe(2);
    expect(direct.stderr).toMatch(/--only nonesuch: no such check/);
    expect(viaDaemon).toEqual(direct);
    expect(await status(env)).toMatchObject({ served: 1 });
  });

  it.skipIf(noRuff)("has a daemon per environment: another variable, another daemon", async () => {
    const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const env = isolatedEnv();
    const other = { ...env, SOME_SETTING: "x" };
    alsoStop(other);
    await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
    await runCheck(["--daemon", "--json", "."], { cwd: dir, env: other });
    const a = await status(env);
    const b = await status(other);
    expect(a && b && a.pid !== b.pid && a.socket !== b.socket).toBe(true);
    expect([a?.served, b?.served]).toEqual([1, 1]);
  });

  it.skipIf(noRuff)("exits when idle, and a killed daemon's socket is replaced by a new daemon", async () => {
    const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const env = isolatedEnv({ MCP_CODE_QUALITY_CHECK_DAEMON_IDLE: "1" });
    const direct = await runCheck(["--json", "."], { cwd: dir, env });
    await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
    const idle = await status(env);
    expect(idle).toBeDefined();
    await until(() => !alive(idle!.pid));
    expect(fs.existsSync(idle!.socket)).toBe(false);

    const longer = isolatedEnv();
    await runCheck(["--daemon", "--json", "."], { cwd: dir, env: longer });
    const killed = await status(longer);
    process.kill(killed!.pid, "SIGKILL");
    await until(() => !alive(killed!.pid));
    expect(fs.lstatSync(killed!.socket).isSocket()).toBe(true);
    const again = await runCheck(["--daemon", "--json", "."], { cwd: dir, env: longer });
    expect(timeless(again)).toEqual(timeless(direct));
    const fresh = await status(longer);
    expect(fresh!.pid).not.toBe(killed!.pid);
    expect(fresh!.served).toBe(1);
  });

  it.skipIf(noRuff)(
    "runs in this process, and says why, when PATH has a folder relative to the caller",
    async () => {
      const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
      const env = isolatedEnv();
      const relative = { ...env, PATH: `${TOOLS_VENV_BIN}:bin:${process.env.PATH ?? ""}` };
      const r = await runCheck(["--daemon", "--json", "."], { cwd: dir, env: relative });
      expect(r.stderr).toContain(
        "mcp-code-quality check: --daemon: not used: PATH holds relative folders (bin); checking in this process\n",
      );
      expect(timeless(r)).toMatchObject({ exit_code: 1 });
      expect(await status(relative)).toBeUndefined();
    },
  );

  it.skipIf(noRuff)(
    "--daemon-status in another environment says none runs for it, and lists the one that runs",
    async () => {
      // The git hook's daemon runs with git's environment: asked from a shell, "none runs" alone misled.
      const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
      const env = isolatedEnv();
      await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
      const own = await status(env);
      expect(own).toBeDefined();
      const r = await runCheck(["--daemon-status"], { env: { ...env, GIT_EXEC_PATH_LIKE: "another" } });
      expect(r.status).toBe(1);
      const [none, other, ...rest] = r.stdout.trimEnd().split("\n");
      expect(none).toBe("no check daemon runs for this environment");
      expect(rest).toEqual([]);
      const prefix =
        "another runs for another environment (a variable or PATH differs; the git hook's has git's): ";
      expect(other?.startsWith(prefix)).toBe(true);
      expect(JSON.parse(other!.slice(prefix.length))).toMatchObject({ socket: own!.socket, pid: own!.pid });
    },
  );
});

/** The pids of every process below `pid` (from /proc), with their command names. */
function descendants(pid: number): { pid: number; comm: string }[] {
  const children = new Map<number, { pid: number; comm: string }[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), { pid: Number(name), comm }]);
  }
  const out: { pid: number; comm: string }[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c.pid);
    }
  };
  walk(pid);
  return out;
}

describe("check --daemon when its client goes away", () => {
  it.skipIf(noCargo)("stops the tools of that check, and serves the next", async () => {
    const crate = copyFixture(path.join(CHECK_FIXTURES, "rust"));
    // A build script that takes a minute: cargo check (and clippy) run it.
    fs.writeFileSync(
      path.join(crate, "build.rs"),
      "fn main() { std::thread::sleep(std::time::Duration::from_secs(60)); }\n",
    );
    const quick = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const env = isolatedEnv();
    await runCheck(["--daemon", "--only", "ruff", "--json", "."], { cwd: quick, env });
    const daemon = (await status(env))!.pid;
    const client = spawn(process.execPath, [CLI, "check", "--daemon", "--json", "."], {
      cwd: crate,
      env: { ...process.env, PATH: PATH_WITH_TOOLS, ...env },
      stdio: "ignore",
    });
    await until(() => descendants(daemon).some((p) => p.comm.startsWith("build-script")), 120_000);
    client.kill("SIGINT");
    await until(() => !descendants(daemon).some((p) => /^(build-script|cargo|rustc|clippy)/.test(p.comm)));
    expect(alive(daemon)).toBe(true);
    const next = await runCheck(["--daemon", "--only", "ruff", "--json", "."], { cwd: quick, env });
    expect(timeless(next)).toMatchObject({ exit_code: 1 });
    expect(await status(env)).toMatchObject({ pid: daemon, served: 3 });
  });
});

describe("the daemon's pure parts", () => {
  it("keys the environment without what a shell changes between commands", () => {
    const base = { PATH: "/usr/bin", HOME: "/root" };
    const id = (env: NodeJS.ProcessEnv) =>
      daemonKey({ buildId: "b", execPath: "/usr/bin/node", nodeIdentity: "1:2:3:4.5", uid: 0, env });
    expect(id({ ...base, PWD: "/a", OLDPWD: "/b", SHLVL: "3", _: "/usr/bin/node" })).toBe(id(base));
    expect(id({ ...base, MCP_CODE_QUALITY_CHECK_DAEMON: "1" })).toBe(id(base));
    expect(id({ ...base, VIRTUAL_ENV: "/v" })).not.toBe(id(base));
    expect(id({ ...base, PATH: "/usr/local/bin:/usr/bin" })).not.toBe(id(base));
    expect(keyedEnv({ B: "2", A: "1", PWD: "/x" })).toEqual([
      ["A", "1"],
      ["B", "2"],
    ]);
  });

  it("refuses an environment whose PATH is relative to the working directory", () => {
    expect(daemonUnfit({ PATH: "/usr/bin:/bin" })).toBeUndefined();
    expect(daemonUnfit({ PATH: "/usr/bin::/bin" })).toBe("PATH holds relative folders (an empty entry)");
    expect(daemonUnfit({ PATH: "node_modules/.bin:/bin" })).toBe(
      "PATH holds relative folders (node_modules/.bin)",
    );
  });

  it("reads its flags: the last wins, help never goes to the daemon", () => {
    expect(daemonChoice(["--daemon", "."], {})).toEqual({ action: "run", argv: ["."] });
    expect(daemonChoice(["."], { MCP_CODE_QUALITY_CHECK_DAEMON: "1" })).toEqual({
      action: "run",
      argv: ["."],
    });
    expect(daemonChoice(["--no-daemon"], { MCP_CODE_QUALITY_CHECK_DAEMON: "1" }).action).toBe("off");
    expect(daemonChoice(["--daemon", "--help"], {}).action).toBe("off");
    expect(daemonChoice(["--daemon", "--merge-sarif", "a.sarif"], {}).action).toBe("off");
    expect(daemonChoice(["--daemon-stop"], {}).action).toBe("stop");
  });

  it("frames: a long line read in pieces, and only well-formed requests", () => {
    const lines: string[] = [];
    const reader = new LineReader((l) => lines.push(l));
    const long = "x".repeat(200_000);
    for (let i = 0; i < long.length; i += 1000) reader.push(long.slice(i, i + 1000));
    reader.push("\nab\ncd");
    expect(lines).toEqual([long, "ab"]);
    expect(reader.pendingLength).toBe(2);
    const proof = "ab".repeat(32);
    const ok = {
      type: "check",
      argv: ["."],
      cwd: "/p",
      buildId: "b",
      stdoutTTY: false,
      stderrTTY: false,
      proof,
    };
    expect(parseRequest(JSON.stringify(ok))).toEqual(ok);
    expect(parseRequest(JSON.stringify({ ...ok, cwd: "relative" }))).toBeUndefined();
    expect(parseRequest(JSON.stringify({ ...ok, argv: [1] }))).toBeUndefined();
    expect(parseRequest(JSON.stringify({ ...ok, proof: undefined }))).toBeUndefined();
    expect(parseRequest("not json")).toBeUndefined();
    expect(parseRequest(JSON.stringify({ type: "stop", proof }))).toEqual({ type: "stop", proof });
    expect(parseRequest(JSON.stringify({ type: "stop" }))).toBeUndefined();
    const nonce = "0f".repeat(32);
    expect(parseHello(JSON.stringify({ type: "hello", nonce }))).toEqual({ type: "hello", nonce });
    expect(parseHello(JSON.stringify({ type: "hello", nonce: "short" }))).toBeUndefined();
    expect(parseHelloAnswer(JSON.stringify({ hello: { nonce, proof } }))).toEqual({ nonce, proof });
    expect(parseHelloAnswer(JSON.stringify({ o: "no findings" }))).toBeUndefined();
  });

  it("proofs: each role's differs, and only the secret's holds", () => {
    const secret = Buffer.alloc(32, 7);
    const [c, d] = ["1".repeat(64), "2".repeat(64)];
    const daemon = proofOf(secret, "daemon", "check-k.sock", c, d);
    expect(proofHolds(daemon, secret, "daemon", "check-k.sock", c, d)).toBe(true);
    expect(proofHolds(daemon, secret, "client", "check-k.sock", c, d)).toBe(false);
    expect(proofHolds(daemon, secret, "daemon", "check-other.sock", c, d)).toBe(false);
    expect(proofHolds(daemon, Buffer.alloc(32, 8), "daemon", "check-k.sock", c, d)).toBe(false);
    expect(proofHolds(daemon.slice(2), secret, "daemon", "check-k.sock", c, d)).toBe(false);
    expect(proofHolds(undefined, secret, "daemon", "check-k.sock", c, d)).toBe(false);
  });
});
