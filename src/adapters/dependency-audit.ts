/** The shape every dependency auditor (pip-audit, npm audit) reports, and how a network failure looks. */

/** One known vulnerability of one installed/pinned package version. */
export interface Vulnerability {
  package: string;
  version: string;
  /** Advisory id: PYSEC-..., GHSA-..., CVE-... */
  id: string;
  fix_versions: string[];
  aliases: string[];
  description: string;
  /** npm gives these; pip-audit does not. */
  severity?: string;
  url?: string;
  vulnerable_versions?: string;
}

const NETWORK_PATTERNS = [
  /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH/,
  /ConnectionError|ConnectTimeout|ReadTimeout|NewConnectionError|MaxRetryError/,
  /Max retries exceeded|Failed to establish a new connection|Temporary failure in name resolution/i,
  /Name or service not known|Network is unreachable|Connection refused|Connection timed out/i,
  /request to \S+ failed, reason:/,
];

/** True when a tool's output says it could not reach a server (DNS, refused, unreachable, timed out). */
export function looksLikeNetworkFailure(output: string): boolean {
  return NETWORK_PATTERNS.some((p) => p.test(output));
}
