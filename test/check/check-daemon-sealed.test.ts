/**
 * Issue 38: the check daemon is out of every sandbox's reach, and a client trusts only its own daemon.
 * A planted project tool (a `.venv/bin/ruff` the check picks, run by the daemon in its sandbox) can neither
 * see nor connect to the daemon's socket nor read its secret; a listener planted at the socket path is
 * refused and the check runs in the client, exiting as a direct run; a connection without the secret gets
 * nothing from the daemon; a file or folder left at the socket path is replaced at once (the daemon
 * serves that very check). Real CLI processes, real ruff, real bubblewrap (with the sandbox required, as CI).
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newNonce, proofOf } from "../../src/check/daemon/auth.js";
import { frame, LineReader, parseHelloAnswer } from "../../src/check/daemon/protocol.js";
import { CHECK_FIXTURES, runCheck, type CheckRun } from "../helpers/check.js";
import { copyFixture, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const noRuff = missing("ruff", [TOOLS_VENV_BIN]);

const timeless = (run: CheckRun): unknown =>
  JSON.parse(run.stdout, (k, v: unknown) => (k === "duration_ms" ? undefined : v));

interface Status {
  socket: string;
  pid: number;
  served: number;
}

const envs: Record<string, string | undefined>[] = [];

async function status(env: Record<string, string | undefined>): Promise<Status | undefined> {
  const r = await runCheck(["--daemon-status"], { env });
  return r.status === 0 ? (JSON.parse(r.stdout) as Status) : undefined;
}

/** A private TMPDIR, and a runtime folder unless `runtime` is false (then the daemon folder is under TMPDIR). */
function isolatedEnv(runtime = true): Record<string, string | undefined> {
  const env = {
    TMPDIR: tempDir("mcq-sealed-tmp-"),
    XDG_RUNTIME_DIR: runtime ? tempDir("mcq-sealed-run-") : undefined,
  };
  envs.push(env);
  return env;
}

afterEach(async () => {
  for (const env of envs.splice(0)) {
    const st = await status(env);
    await runCheck(["--daemon-stop"], { env });
    if (st)
      try {
        process.kill(st.pid, "SIGKILL");
      } catch {
        // gone
      }
  }
});

/** Starts this environment's daemon with a check of the Python fixture; its socket path. */
async function daemonSocket(env: Record<string, string | undefined>): Promise<string> {
  const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
  await runCheck(["--daemon", "--only", "ruff", "--json", "."], { cwd: dir, env });
  const st = await status(env);
  expect(st).toBeDefined();
  return st!.socket;
}

/** A Python project whose `.venv/bin/ruff` is `script` (Node), reporting what it finds as ruff findings. */
function projectWithRuff(script: string): string {
  const project = tempDir("mcq-sealed-proj-");
  fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(project, "app.py"), "x = 1\n");
  const bin = path.join(project, ".venv", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "python"), "");
  fs.writeFileSync(
    path.join(bin, "ruff"),
    `#!${process.execPath}
const fs = require("node:fs");
const net = require("node:net");
if (process.argv.includes("--version")) { console.log("ruff 0.17.6"); process.exit(0); }
const say = (message) => console.log(JSON.stringify({ code: "X1", message, filename: "app.py", location: { row: 1, column: 1 } }));
${script}
`,
    { mode: 0o755 },
  );
  return project;
}

describe("the daemon socket, from inside the sandbox", () => {
  it.skipIf(noRuff).each([
    ["in $XDG_RUNTIME_DIR", true],
    ["under TMPDIR without a runtime folder", false],
  ])(
    "a planted tool run by the daemon cannot see it, connect to it, or read the secret (%s)",
    async (_, runtime) => {
      const env = isolatedEnv(runtime);
      const socket = await daemonSocket(env);
      const dir = path.dirname(socket);
      const project = projectWithRuff(`
const dir = ${JSON.stringify(dir)};
const tryIt = (what, f) => { try { f(); say(what + ": ok"); } catch (e) { say(what + ": " + e.code); } };
tryIt("stat folder", () => fs.statSync(dir));
tryIt("stat socket", () => fs.statSync(${JSON.stringify(socket)}));
tryIt("read secret", () => fs.readFileSync(dir + "/secret"));
const s = net.connect(${JSON.stringify(socket)});
s.on("connect", () => { say("connect: ok"); s.destroy(); });
s.on("error", (e) => say("connect: " + e.code));
`);
      const r = await runCheck(["--daemon", "--only", "ruff", "--json", "."], { cwd: project, env });
      const messages = (JSON.parse(r.stdout) as { findings: { message: string }[] }).findings.map(
        (f) => f.message,
      );
      // The check ran in the daemon (its second), so the planted tool was a child of the daemon.
      expect(await status(env)).toMatchObject({ served: 2 });
      expect(messages.sort()).toEqual([
        "connect: ENOENT",
        "read secret: ENOENT",
        "stat folder: ENOENT",
        "stat socket: ENOENT",
      ]);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dir, "secret")).mode & 0o777).toBe(0o600);
      if (runtime) expect(dir).toBe(path.join(env.XDG_RUNTIME_DIR!, "mcp-code-quality"));
      else expect(dir).toBe(path.join(env.TMPDIR!, `mcq-daemon-${process.getuid!()}`));
    },
  );
});

/** A listener planted at `socket`; close() ends its connections and unlinks the path (as Node does). */
async function plant(socket: string, onConnection: (c: net.Socket) => void) {
  const open = new Set<net.Socket>();
  const server = net.createServer((c) => {
    open.add(c);
    c.on("close", () => open.delete(c));
    c.on("error", () => {});
    onConnection(c);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    close: () => {
      for (const c of open) c.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("a listener at the socket path that is not our daemon", () => {
  it.skipIf(noRuff)(
    "is refused: the check runs in the client and exits as a direct run (1), and it learns nothing",
    async () => {
      const env = isolatedEnv();
      const socket = await daemonSocket(env);
      await runCheck(["--daemon-stop"], { env });
      const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
      const direct = await runCheck(["--json", "."], { cwd: dir, env });
      expect(direct.status).toBe(1);

      // What a planted listener would answer: a hello it cannot prove, then "no findings", exit 0.
      const heard: string[] = [];
      const fake = await plant(socket, (c) => {
        c.setEncoding("utf8");
        c.on("data", (d: string) => {
          heard.push(d);
          c.write(
            frame({ hello: { nonce: "0".repeat(64), proof: "0".repeat(64) } }) +
              frame({ o: '{"exit_code":0,"findings":[]}\n' }) +
              frame({ exit: 0 }),
          );
        });
      });
      try {
        const r = await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
        expect(r.status).toBe(1);
        expect(timeless(r)).toEqual(timeless(direct));
        expect(r.stderr).toContain(
          `mcp-code-quality check: --daemon: refused the listener at ${socket}: it is not this user's check daemon`,
        );
        // It heard a hello (a nonce), never the arguments or the working directory.
        expect(heard.join("")).not.toContain(dir);
        expect(heard.join("")).toMatch(/^\{"type":"hello","nonce":"[0-9a-f]{64}"\}\n$/);
      } finally {
        // Closed first: closing a listener unlinks its path, which must then be our daemon's no more.
        await fake.close();
      }
      // And the next --daemon has a daemon of ours there again.
      const next = await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
      expect(timeless(next)).toEqual(timeless(direct));
      expect(await status(env)).toMatchObject({ served: 1 });
    },
  );

  it.skipIf(noRuff)("a listener that never answers is refused too", async () => {
    const env = isolatedEnv();
    const socket = await daemonSocket(env);
    await runCheck(["--daemon-stop"], { env });
    const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const silent = await plant(socket, () => {});
    try {
      const r = await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /refused the listener at .*: it is not this user's check daemon \(it did not prove itself within 5 s\)/,
      );
    } finally {
      await silent.close();
    }
  });
});

describe("the daemon, to a client without the secret", () => {
  it.skipIf(noRuff)("proves itself, but answers a request with a wrong proof with nothing", async () => {
    const env = isolatedEnv();
    const socket = await daemonSocket(env);
    const secret = fs.readFileSync(path.join(path.dirname(socket), "secret"));
    const talk = (proofFor: (daemonNonce: string, clientNonce: string) => string) =>
      new Promise<{ proven: boolean; after: string }>((resolve) => {
        const c = net.connect(socket);
        c.setEncoding("utf8");
        const nonce = newNonce();
        let proven = false;
        let after = "";
        const reader = new LineReader((line) => {
          const hello = parseHelloAnswer(line);
          if (!proven && hello) {
            proven = hello.proof === proofOf(secret, "daemon", path.basename(socket), nonce, hello.nonce);
            c.write(frame({ type: "status", proof: proofFor(hello.nonce, nonce) } as never));
          } else after += line + "\n";
        });
        c.on("connect", () => c.write(frame({ type: "hello", nonce } as never)));
        c.on("data", (d: string) => reader.push(d));
        c.on("close", () => resolve({ proven, after }));
        c.on("error", () => {});
      });
    // A guessed proof, and the daemon's own proof replayed in the client's role: nothing comes back.
    const guessed = await talk(() => "0".repeat(64));
    expect(guessed).toEqual({ proven: true, after: "" });
    const replayed = await talk((d, c) => proofOf(secret, "daemon", path.basename(socket), c, d));
    expect(replayed).toEqual({ proven: true, after: "" });
    // With the secret: the status comes.
    const honest = await talk((d, c) => proofOf(secret, "client", path.basename(socket), c, d));
    expect(honest.proven).toBe(true);
    expect(JSON.parse(honest.after)).toMatchObject({ status: { served: 1 } });
  });
});

describe("something left at the socket path", () => {
  it.skipIf(noRuff)(
    "a file, then a folder, is replaced at once by the daemon, which serves that check",
    async () => {
      const env = isolatedEnv();
      const socket = await daemonSocket(env);
      const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
      const direct = await runCheck(["--json", "."], { cwd: dir, env });
      const leftOver = [
        (p: string) => fs.writeFileSync(p, "left over"),
        (p: string) => {
          fs.mkdirSync(p);
          fs.writeFileSync(path.join(p, "inside"), "x");
        },
      ];
      for (const leave of leftOver) {
        await runCheck(["--daemon-stop"], { env });
        leave(socket);
        const r = await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
        // No note: the daemon started and answered (before, it waited 15 s and the check ran in the client).
        expect(r.stderr).toBe(direct.stderr);
        expect(timeless(r)).toEqual(timeless(direct));
        expect(fs.lstatSync(socket).isSocket()).toBe(true);
        expect(await status(env)).toMatchObject({ served: 1 });
      }
    },
  );
});
