/** Line-delimited JSON, as tools print it (go test -json, staticcheck -f json) and the server's own test reporters. */

/**
 * Each line of `text` that parses as a JSON object, in order, typed as the caller knows the stream's lines to
 * be; blank lines, truncated ones and foreign output between them (a tool's plain-text messages) are skipped.
 */
export function parseJsonLines<T = Record<string, unknown>>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      const v: unknown = JSON.parse(t);
      if (v && typeof v === "object") out.push(v as T);
    } catch {
      // A truncated or foreign line.
    }
  }
  return out;
}
