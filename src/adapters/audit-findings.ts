/**
 * Vulnerabilities as findings: one per vulnerability, at the line of the requirements file or lockfile
 * where the package is pinned (line 0, the whole file, when no line names it).
 */
import type { Finding, Severity } from "../findings/model.js";
import type { Vulnerability } from "./dependency-audit.js";

/** PEP 503 name normalization: case and runs of -, _ and . do not matter. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** 1-based line pinning `pkg` in a requirements file or a package-lock.json, 0 when none does. */
export function pinLine(lines: readonly string[], pkg: string, lockfile: boolean): number {
  if (lockfile) {
    const key = `"node_modules/${pkg}": {`;
    const nested = `/node_modules/${pkg}": {`;
    const i = lines.findIndex((l) => l.trim() === key || l.trim().endsWith(nested));
    return i + 1;
  }
  const want = normalize(pkg);
  const i = lines.findIndex((l) => {
    const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(l);
    return m !== null && !l.trimStart().startsWith("#") && normalize(m[1] as string) === want;
  });
  return i + 1;
}

const NPM_SEVERITY: Record<string, Severity> = {
  critical: "error",
  high: "error",
  moderate: "warning",
  low: "info",
  info: "info",
};

export function vulnerabilityFindings(
  tool: string,
  vulnerabilities: readonly Vulnerability[],
  file: string,
  text: string,
  lockfile: boolean,
): Finding[] {
  const lines = text.split(/\r?\n/);
  return vulnerabilities.map((v) => {
    const line = pinLine(lines, v.package, lockfile);
    const fix = v.fix_versions.length ? `; fixed in ${v.fix_versions.join(", ")}` : "";
    return {
      tool,
      file,
      line,
      column: line ? (lines[line - 1] as string).search(/\S/) + 1 : 0,
      rule_id: v.id,
      category: "vulnerability",
      // pip-audit gives no severity: a known vulnerability is an error until someone says otherwise.
      severity: v.severity ? (NPM_SEVERITY[v.severity] ?? "warning") : "error",
      level: v.severity,
      message: `${v.package} ${v.version}: ${v.description || v.id}${fix}`,
      correctable: v.fix_versions.length > 0,
      docs_url:
        v.url ??
        (v.id.startsWith("GHSA-")
          ? `https://github.com/advisories/${v.id}`
          : `https://osv.dev/vulnerability/${v.id}`),
    };
  });
}
