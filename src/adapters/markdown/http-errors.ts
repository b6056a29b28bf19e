/**
 * Pure helpers for external link checks: why a request failed (DNS, refused, TLS, ...) in words a
 * user can act on, and the wait a `Retry-After` header asks for.
 */

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "EAI_NODATA"]);
const TLS_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "HOSTNAME_MISMATCH",
]);
const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "ETIMEDOUT"]);

interface CodedError {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The innermost error of a `cause` chain that carries a string `code` (fetch wraps the real one). */
function codedCause(err: unknown): { code: string; message: string } | undefined {
  let found: { code: string; message: string } | undefined;
  for (let e = err as CodedError | undefined, depth = 0; e && depth < 8; depth++) {
    if (typeof e.code === "string") found = { code: e.code, message: String(e.message ?? "") };
    e = e.cause as CodedError | undefined;
  }
  return found;
}

/** A one-line reason for a failed request, naming the failure class first. */
export function describeRequestError(err: unknown, host: string): string {
  const cause = codedCause(err);
  if (!cause) return `request failed: ${err instanceof Error ? err.message : String(err)}`;
  const { code, message } = cause;
  if (code === "EPRIVATEADDR")
    return `refused: ${message} (the server checks such links only with --allow-private-links)`;
  if (DNS_CODES.has(code)) return `DNS lookup failed for ${host} (${code})`;
  if (code === "ECONNREFUSED") return `connection refused by ${host}`;
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return `connection reset by ${host} (${code})`;
  if (TIMEOUT_CODES.has(code)) return `connection to ${host} timed out (${code})`;
  if (TLS_CODES.has(code) || /^(CERT_|ERR_TLS_|ERR_SSL_)/.test(code))
    return `TLS error: ${message || code} (${code})`;
  return `request failed: ${message || code} (${code})`;
}

/**
 * Milliseconds a `Retry-After` header asks to wait: delta-seconds or an HTTP date. Undefined when
 * absent or unreadable.
 */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
