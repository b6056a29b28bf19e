/** npm audit: pure argv builder and parser of its `--json` report (auditReportVersion 2) into the common shape. */
import { registerExternalTool } from "../registry.js";
import type { Vulnerability } from "../dependency-audit.js";

registerExternalTool({ name: "npm", program: "npm", versionArgs: ["--version"] });

/**
 * `npm audit --json --package-lock-only`: audits the lockfile as written (no node_modules needed, nothing
 * installed). The registry is npm's usual choice: the project's .npmrc, or `npm_config_registry`.
 */
export function npmAuditArgs(): string[] {
  return ["audit", "--json", "--package-lock-only"];
}

interface NpmVia {
  source?: number;
  name?: string;
  title?: string;
  url?: string;
  severity?: string;
  range?: string;
}

interface NpmVulnerability {
  name?: string;
  severity?: string;
  via?: (NpmVia | string)[];
  nodes?: string[];
  fixAvailable?: boolean | { name?: string; version?: string; isSemVerMajor?: boolean };
}

export type NpmAuditParse =
  { kind: "report"; vulnerabilities: Vulnerability[]; total: number } | { kind: "error"; message: string };

/** The installed version of each lockfile node (`node_modules/a/node_modules/b` → its `version`). */
export type LockVersions = (node: string) => string | undefined;

/** Reads `packages[node].version` from a lockfile v2/v3 (v1 lockfiles give no versions here). */
export function lockVersions(lockfileText: string): LockVersions {
  let packages: Record<string, { version?: string }> = {};
  try {
    packages = (JSON.parse(lockfileText) as { packages?: typeof packages }).packages ?? {};
  } catch {
    // An unreadable lockfile only costs the versions; npm itself reports the real problem.
  }
  return (node) => packages[node]?.version;
}

function advisoryId(via: NpmVia): string {
  const ghsa = /GHSA(?:-[\w]{4}){3}/.exec(via.url ?? "")?.[0];
  return ghsa ?? (via.source !== undefined ? `npm:${via.source}` : "");
}

/**
 * Parses `npm audit --json`. Each advisory (a `via` object; string `via` entries only say "vulnerable
 * through another package") becomes one entry per installed version of the package. `{error}` reports
 * (no lockfile, registry unreachable) come back as kind "error".
 */
export function parseNpmAuditJson(output: string, versionOf: LockVersions): NpmAuditParse | undefined {
  let doc: { vulnerabilities?: Record<string, NpmVulnerability>; error?: unknown; message?: string };
  try {
    doc = JSON.parse(output) as typeof doc;
  } catch {
    return undefined;
  }
  if (doc.error !== undefined) {
    const e = doc.error as { summary?: string; detail?: string; code?: string };
    const message = [doc.message, e.code, e.summary, e.detail].filter(Boolean).join(": ");
    return { kind: "error", message: message || JSON.stringify(doc.error) };
  }
  if (!doc.vulnerabilities || typeof doc.vulnerabilities !== "object") return undefined;
  const vulnerabilities: Vulnerability[] = [];
  for (const [name, vuln] of Object.entries(doc.vulnerabilities)) {
    const versions = [...new Set((vuln.nodes ?? []).map(versionOf).filter((v): v is string => !!v))];
    const fix = vuln.fixAvailable;
    const fixVersions = typeof fix === "object" && fix.name === name && fix.version ? [fix.version] : [];
    for (const via of vuln.via ?? []) {
      if (typeof via === "string") continue;
      for (const version of versions.length ? versions : [""]) {
        vulnerabilities.push({
          package: name,
          version,
          id: advisoryId(via),
          fix_versions: fixVersions,
          aliases: [],
          description: via.title ?? "",
          severity: via.severity ?? vuln.severity,
          url: via.url,
          vulnerable_versions: via.range,
        });
      }
    }
  }
  return { kind: "report", vulnerabilities, total: vulnerabilities.length };
}
