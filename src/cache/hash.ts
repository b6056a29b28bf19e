/** Cache keys: SHA-256 over a canonical JSON of what determines a result. */
import { createHash, createHmac } from "node:crypto";

/** JSON with object keys sorted, so equal values always give the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The key of a value: its canonical JSON hashed. */
export function keyOf(...parts: unknown[]): string {
  return sha256(canonicalJson(parts));
}

export function hmacHex(secret: string, data: string | Buffer): string {
  return createHmac("sha256", secret).update(data).digest("hex");
}
