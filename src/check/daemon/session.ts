/**
 * One conversation with whatever listens at a daemon socket path, from the client's side: hello with a
 * nonce, the listener's proof checked (auth.ts), then the request with ours, then the daemon's frames.
 * Nothing a listener sends before its proof holds reaches the caller: a listener that is not this user's
 * daemon (another process bound the path) is reported as an impostor and never heard.
 */
import net from "node:net";
import path from "node:path";
import { newNonce, proofHolds, proofOf } from "./auth.js";
import { frame, LineReader, parseHelloAnswer, type DaemonAsk, type DaemonFrame } from "./protocol.js";

/** How long a listener has to answer hello: the daemon answers at once, whatever check it runs. */
const HELLO_WAIT_MS = 5_000;

export type Outcome =
  /** The daemon proved itself (a probe: no request was sent). */
  | { kind: "ours" }
  | { kind: "done"; code: number }
  /** Nothing listens there (no socket, a dead one, a file or folder), or it closed before saying hello. */
  | { kind: "unreachable" }
  /** Something listens that is not this user's daemon: it answered without the proof, or not at all. */
  | { kind: "impostor"; why: string }
  | { kind: "stale" }
  /** The daemon refused the request as one that would weaken it (relax.ts). */
  | { kind: "refused"; why: string }
  | { kind: "frames"; frames: DaemonFrame[] }
  /** The daemon went away mid-answer, after some output was written. */
  | { kind: "lost" };

/**
 * Talks to the listener at `socketPath`: proves both sides, then sends `ask` (none: a probe, which ends at
 * the proof) and copies output frames to our streams when `copyOutput`.
 */
export function exchange(
  socketPath: string,
  secret: Buffer,
  ask: DaemonAsk | undefined,
  copyOutput: boolean,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.setEncoding("utf8");
    const name = path.basename(socketPath);
    const clientNonce = newNonce();
    let proven = false;
    let wroteOutput = false;
    let settled = false;
    const frames: DaemonFrame[] = [];
    const settle = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(helloTimer);
      socket.destroy();
      resolve(o);
    };
    const helloTimer = setTimeout(
      () => settle({ kind: "impostor", why: `it did not prove itself within ${HELLO_WAIT_MS / 1000} s` }),
      HELLO_WAIT_MS,
    );
    const reader = new LineReader((line) => {
      if (settled) return;
      if (!proven) {
        const hello = parseHelloAnswer(line);
        if (!hello || !proofHolds(hello.proof, secret, "daemon", name, clientNonce, hello.nonce)) {
          settle({ kind: "impostor", why: "its answer does not carry this user's daemon proof" });
          return;
        }
        proven = true;
        clearTimeout(helloTimer);
        if (!ask) {
          settle({ kind: "ours" });
          return;
        }
        const proof = proofOf(secret, "client", name, clientNonce, hello.nonce);
        socket.write(frame({ ...ask, proof } as unknown as DaemonFrame));
        return;
      }
      let f: DaemonFrame;
      try {
        f = JSON.parse(line) as DaemonFrame;
      } catch {
        return;
      }
      // First of the answer, before the refusal's text: a client that falls back prints neither.
      if ("refused" in f) settle({ kind: "refused", why: f.refused });
      else if (copyOutput && "o" in f) {
        wroteOutput = true;
        process.stdout.write(f.o);
      } else if (copyOutput && "e" in f) {
        wroteOutput = true;
        process.stderr.write(f.e);
      } else if ("exit" in f) settle({ kind: "done", code: f.exit });
      else if ("stale" in f) settle({ kind: "stale" });
      else frames.push(f);
    });
    socket.on("connect", () =>
      socket.write(frame({ type: "hello", nonce: clientNonce } as unknown as DaemonFrame)),
    );
    socket.on("data", (chunk: string) => reader.push(chunk));
    const ended = () =>
      settle(
        frames.length ? { kind: "frames", frames } : wroteOutput ? { kind: "lost" } : { kind: "unreachable" },
      );
    socket.on("error", ended);
    socket.on("close", ended);
  });
}
