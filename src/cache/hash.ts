/** Cache keys: SHA-256 over a canonical JSON of what determines a result. */
import { createHash, createHmac } from "node:crypto";

/**
 * JSON with object keys sorted, so equal values always give the same text. The keys are sorted in a copy made
 * beforehand, not by a replacer: JSON.stringify calls a replacer for every value, and a key over a project's
 * file list (thousands of strings) spent most of its time there (0.3-0.5 ms a key on pylint's 2,419 files).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(withSortedKeys(value));
}

/** `value` with every object's keys in sorted order: a copy where there is an object, else `value` itself. */
function withSortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  // As JSON.stringify does: what toJSON gives (a Date's string, a Buffer's object) is what is written.
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return withSortedKeys((toJSON as () => unknown).call(value));
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === null || typeof item !== "object") continue;
      (copy ??= value.slice())[i] = withSortedKeys(item);
    }
    return copy ?? value;
  }
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = withSortedKeys((value as Record<string, unknown>)[key]);
  return sorted;
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
