/**
 * Whether a variable's value carries a credential whatever its name says: a URL whose authority holds a
 * password (`postgres://app:s3cret@db.internal/app`, a `DATABASE_URL`) or a token in the user's place
 * (`https://ghp_…@github.com`, a Sentry DSN's key). A URL to the local machine or an RFC 2606 example host is
 * a development default (`postgres://postgres:postgres@localhost/test` in a project's CI) and kept, as the
 * policy's secret rules keep it. Plain string scanning (no regex over the whole value): linear in its length,
 * and cheap enough for every process the server starts. Pure.
 */
export function hasUrlCredential(value: string): boolean {
  for (let at = value.indexOf("://"); at !== -1; at = value.indexOf("://", at + 3)) {
    const start = at + 3;
    let end = start;
    while (end < value.length && !AUTHORITY_END.has(value[end] as string)) end++;
    const authority = value.slice(start, end);
    const atSign = authority.lastIndexOf("@");
    if (atSign <= 0) continue;
    if (isLocalOrExample(hostOf(authority.slice(atSign + 1)))) continue;
    const userinfo = authority.slice(0, atSign);
    const colon = userinfo.indexOf(":");
    if (colon >= 0 ? colon < userinfo.length - 1 : looksLikeToken(userinfo)) return true;
  }
  return false;
}

/** Characters that end a URL's authority (RFC 3986 3.2), and the separators a list of URLs uses. */
const AUTHORITY_END = new Set(["/", "?", "#", " ", "\t", "\n", "\r", ",", ";", "'", '"']);

function hostOf(hostPort: string): string {
  if (hostPort.startsWith("[")) return hostPort.slice(0, hostPort.indexOf("]") + 1);
  const colon = hostPort.lastIndexOf(":");
  return (colon === -1 ? hostPort : hostPort.slice(0, colon)).toLowerCase();
}

function isLocalOrExample(host: string): boolean {
  return (
    host === "localhost" ||
    host === "[::1]" ||
    host === "0.0.0.0" ||
    host.startsWith("127.") ||
    /(^|\.)(localhost|example|test|invalid|example\.(com|net|org))$/.test(host)
  );
}

/** A user name that is a key, not a login (`git`, `deploy`): long, with letters and digits. */
function looksLikeToken(user: string): boolean {
  return user.length >= 16 && /[0-9]/.test(user) && /[A-Za-z]/.test(user);
}
