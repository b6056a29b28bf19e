/**
 * The native client of `check --daemon` (native/check/daemon.go, run by bin/mcp-code-quality before Node):
 * it finds the daemon the Node client started (the same folder, secret and key, computed without Node),
 * proves itself, and answers as the Node client does; whatever it cannot do (no daemon yet, an environment
 * the daemon cannot serve, a listener that does not prove itself, a daemon of another build) it leaves to
 * the Node client, printing nothing and exiting 75. Real daemons, real ruff, a real project copy; the
 * listeners that misbehave are sockets of this test speaking the daemon's protocol (protocol.ts, auth.ts).
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newNonce, proofHolds, proofOf } from "../../src/check/daemon/auth.js";
import { frame, LineReader, parseHello, parseRequest } from "../../src/check/daemon/protocol.js";
import { daemonStatus, isolatedEnv, stopDaemons, timeless, until, alive } from "../helpers/check-daemon.js";
import { CHECK_FIXTURES, runCheck } from "../helpers/check.js";
import { REPO_ROOT } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const NATIVE = path.join(REPO_ROOT, "dist", "native", "check-front");
const BIN = path.join(REPO_ROOT, "bin", "mcp-code-quality");
const noNative = !fs.existsSync(NATIVE);
const noRuff = missing("ruff", [TOOLS_VENV_BIN]);
const MISS = 75;

afterEach(stopDaemons);

/** `check ...args` run by `program` (the native front, the bin) as runCheck runs it. */
const run = (program: string, args: string[], cwd: string, env: Record<string, string | undefined>) =>
  runCheck(args, { cwd, env, program: [program] });

const native = (args: string[], cwd: string, env: Record<string, string | undefined>) =>
  run(NATIVE, args, cwd, env);

/** The socket of `env`'s daemon, from a real daemon the Node client started (stopped again when `stop`). */
async function socketOf(env: Record<string, string>, cwd: string, stop: boolean): Promise<string> {
  await runCheck(["--daemon", "--only", "ruff", "--json", "."], { cwd, env });
  const st = await daemonStatus(env);
  if (!st) throw new Error("the daemon did not start");
  if (stop) {
    await runCheck(["--daemon-stop"], { env });
    await until(() => !alive(st.pid) && !fs.existsSync(st.socket));
  }
  return st.socket;
}

/** A listener of this test at `socket`: `answer` gets each line a client sends and writes back what it likes. */
async function listener(
  socket: string,
  answer: (line: string, reply: (text: string) => void, end: () => void) => void,
): Promise<{ lines: string[]; close: () => Promise<void> }> {
  const lines: string[] = [];
  const server = net.createServer((conn) => {
    conn.setEncoding("utf8");
    const reader = new LineReader((line) => {
      lines.push(line);
      answer(
        line,
        (text) => conn.write(text),
        () => conn.end(),
      );
    });
    conn.on("data", (c: string) => reader.push(c));
    conn.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { lines, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe.skipIf(noNative || noRuff)("check --daemon, native client", () => {
  it("asks the daemon the Node client started, and answers as it does", async () => {
    const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const env = isolatedEnv();
    const direct = await runCheck(["--json", "."], { cwd: dir, env });
    const throughNode = await runCheck(["--daemon", "--json", "."], { cwd: dir, env });
    const throughNative = await native(["--daemon", "--json", "."], dir, env);
    const byVariable = await native(["--json", "."], dir, { ...env, MCP_CODE_QUALITY_CHECK_DAEMON: "1" });
    expect(direct.status).toBe(1);
    for (const r of [throughNode, throughNative, byVariable]) {
      expect(r.status).toBe(direct.status);
      expect(r.stderr).toBe(direct.stderr);
      expect(timeless(r)).toEqual(timeless(direct));
    }
    // The native client answered itself: the daemon served all three.
    expect(await daemonStatus(env)).toMatchObject({ served: 3 });
    // The bin runs it first: served by the same daemon.
    const bin = await run(BIN, ["--daemon", "--json", "."], dir, env);
    expect(timeless(bin)).toEqual(timeless(direct));
    expect(await daemonStatus(env)).toMatchObject({ served: 4 });
    // A usage error comes back with its text and exit code.
    const usage = await native(["--daemon", "--only", "nonesuch", "."], dir, env);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/--only nonesuch: no such check/);
  });

  it("leaves to the Node client, printing nothing, what it cannot do", async () => {
    const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const env = isolatedEnv();
    const nothing = { status: MISS, stdout: "", stderr: "" };
    // No daemon runs yet (the Node client starts it).
    expect(await native(["--daemon", "--json", "."], dir, env)).toEqual(nothing);
    expect(await daemonStatus(env)).toBeUndefined();
    const socket = await socketOf(env, dir, false);
    const served = (await daemonStatus(env))!.served;
    // A PATH relative to the caller (the Node client says why it runs the check itself).
    const relative = { ...env, PATH: `${TOOLS_VENV_BIN}:bin:${process.env.PATH ?? ""}` };
    expect(await native(["--daemon", "--json", "."], dir, relative)).toEqual(nothing);
    // The daemon's own controls, help, and --no-daemon after --daemon (nothing kept to replay here).
    for (const args of [
      ["--daemon-status"],
      ["--daemon-stop"],
      ["--daemon", "--help"],
      ["--daemon", "--no-daemon", "."],
    ])
      expect(await native(args, dir, env)).toEqual(nothing);
    // A daemon folder others may enter, and a secret that is a link: not trusted (the Node client mends
    // the folder's mode and refuses the link).
    const folder = path.dirname(socket);
    fs.chmodSync(folder, 0o750);
    expect(await native(["--daemon", "--json", "."], dir, env)).toEqual(nothing);
    fs.chmodSync(folder, 0o700);
    const secret = path.join(folder, "secret");
    const kept = fs.readFileSync(secret);
    const elsewhere = path.join(tempDir("mcq-front-secret-"), "secret");
    fs.writeFileSync(elsewhere, kept, { mode: 0o600 });
    fs.rmSync(secret);
    fs.symlinkSync(elsewhere, secret);
    expect(await native(["--daemon", "--json", "."], dir, env)).toEqual(nothing);
    fs.rmSync(secret);
    fs.writeFileSync(secret, kept, { mode: 0o600 });
    expect(await daemonStatus(env)).toMatchObject({ served });
    // Mended, it is served again.
    expect((await native(["--daemon", "--json", "."], dir, env)).status).toBe(1);
    expect(await daemonStatus(env)).toMatchObject({ served: served + 1 });
  });

  it("tells nothing to a listener that does not prove itself", async () => {
    const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const env = isolatedEnv();
    const socket = await socketOf(env, dir, true);
    const other = Buffer.alloc(32, 7);
    const impostor = await listener(socket, (line, reply) => {
      const hello = parseHello(line);
      if (hello) {
        const nonce = newNonce();
        reply(
          frame({
            hello: { nonce, proof: proofOf(other, "daemon", path.basename(socket), hello.nonce, nonce) },
          }),
        );
      }
    });
    try {
      expect(await native(["--daemon", "--json", "."], dir, env)).toEqual({
        status: MISS,
        stdout: "",
        stderr: "",
      });
      // Only the hello reached it: never the request.
      expect(impostor.lines).toHaveLength(1);
      expect(parseHello(impostor.lines[0]!)).toBeDefined();
    } finally {
      await impostor.close();
    }
  });

  it("copies a proven daemon's frames as they come, and says so when it ends mid-answer", async () => {
    const dir = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const env = isolatedEnv();
    const socket = await socketOf(env, dir, true);
    const secret = fs.readFileSync(path.join(path.dirname(socket), "secret"));
    const name = path.basename(socket);
    const answers: string[][] = [
      [frame({ o: "one " }), frame({ e: "note\n" }), frame({ o: "two\n" }), frame({ exit: 1 })],
      [frame({ o: "part of an answer" })],
      [frame({ stale: true })],
    ];
    let turn = 0;
    const requests: unknown[] = [];
    let nonces: [string, string] | undefined;
    const daemon = await listener(socket, (line, reply, end) => {
      const hello = parseHello(line);
      if (hello) {
        nonces = [hello.nonce, newNonce()];
        reply(frame({ hello: { nonce: nonces[1], proof: proofOf(secret, "daemon", name, ...nonces) } }));
        return;
      }
      const request = parseRequest(line);
      if (!request || !nonces || !proofHolds(request.proof, secret, "client", name, ...nonces)) return end();
      requests.push(request);
      for (const text of answers[turn++]!) reply(text);
      end();
    });
    try {
      expect(await native(["--daemon", "--only", "ruff", "."], dir, env)).toEqual({
        status: 1,
        stdout: "one two\n",
        stderr: "note\n",
      });
      expect(requests[0]).toMatchObject({
        type: "check",
        argv: ["--audit-log", expect.any(String), "--only", "ruff", "."],
        cwd: fs.realpathSync(dir),
        stdoutTTY: false,
        stderrTTY: false,
        buildId: JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "dist", "build-id.json"), "utf8")).id,
      });
      expect(await native(["--daemon", "."], dir, env)).toEqual({
        status: 3,
        stdout: "part of an answer",
        stderr: "mcp-code-quality check: the check daemon ended before it answered\n",
      });
      // A daemon of another build: the Node client checks in its own process.
      expect(await native(["--daemon", "."], dir, env)).toEqual({ status: MISS, stdout: "", stderr: "" });
      expect(requests).toHaveLength(3);
    } finally {
      await daemon.close();
    }
  });
});
