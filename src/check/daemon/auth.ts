/**
 * How a client and the check daemon prove to each other that they are this user's processes outside any
 * sandbox: both read the secret in the daemon folder (daemon-dir.ts), which no sandbox can see. The client
 * sends a fresh nonce; the daemon answers with its own nonce and an HMAC over both; the client checks it,
 * then sends its request with an HMAC over both nonces in the other role. A listener that cannot answer
 * (another process bound the socket path) is refused by the client; a connection that cannot prove itself
 * gets nothing from the daemon. Each proof also names the socket, so one daemon's answer is never taken
 * for another's.
 *
 * Peer credentials would add the kernel's word on the peer's uid and pid, but Node exposes none
 * (no SO_PEERCRED on net.Socket; it would take a native addon), so the folder's 0700 and the secret carry
 * the proof. Pure.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const NONCE_HEX = /^[0-9a-f]{64}$/;

export const newNonce = (): string => randomBytes(32).toString("hex");

export type Role = "daemon" | "client";

/** The proof `role` gives for this exchange on the socket named `socketName`. */
export function proofOf(
  secret: Buffer,
  role: Role,
  socketName: string,
  clientNonce: string,
  daemonNonce: string,
): string {
  return createHmac("sha256", secret)
    .update(JSON.stringify(["mcp-code-quality check daemon", role, socketName, clientNonce, daemonNonce]))
    .digest("hex");
}

/** Whether `given` is the proof `role` should give, compared in constant time. */
export function proofHolds(
  given: unknown,
  secret: Buffer,
  role: Role,
  socketName: string,
  clientNonce: string,
  daemonNonce: string,
): boolean {
  if (typeof given !== "string" || !NONCE_HEX.test(given)) return false;
  const expected = Buffer.from(proofOf(secret, role, socketName, clientNonce, daemonNonce), "hex");
  return timingSafeEqual(Buffer.from(given, "hex"), expected);
}
